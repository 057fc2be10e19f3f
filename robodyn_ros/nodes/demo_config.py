"""Parameters of the in-process demo (``robodyn demo``): the robot's config file, plus
what lock step needs. Pure: no rclpy, no environment changes."""

import os

import yaml

from ..defaults import COMMAND_TOPIC, DIAGNOSTICS_TOPIC, JOINT_STATES, REFERENCE_TOPIC
from ..errors import ConfigError
from ..model.registry import robot_path
from ..share import share_dir

__all__ = ['config_dir', 'load_config', 'demo_parameters', 'recorder_parameters']

#: Controller gains when a robot has no config file [1/s^2, 1/s], and the torque-level PD
#: of the feedforward / gravity modes [N m/rad, N m s/rad].
GENERIC_GAINS = ([400.0], [40.0])
TORQUE_PD = (100.0, 10.0)


def config_dir():
    """config/ in the source tree, or share/robodyn_ros/config when installed."""
    return os.path.join(share_dir(), 'config')


def load_config(robot):
    """Parameters {node name: {param: value}} from config/<robot>.yaml ({} if none)."""
    path = os.path.join(config_dir(), f'{robot}.yaml')
    if not os.path.isfile(path):
        return {}
    try:
        with open(path, encoding='utf-8') as handle:
            data = yaml.safe_load(handle) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f'{path}: invalid YAML: {exc}') from None
    return {node: (body or {}).get('ros__parameters', {}) for node, body in data.items()}


def _mid_range(path, base, tip):
    from ..model import load_urdf
    model = load_urdf(path, base, tip or None)
    return model.mid_range.tolist()


def demo_parameters(robot, mode='computed_torque', reference=None, rate=1000.0, tip=None,
                    controller_overrides=None):
    """(controller parameters, sim parameters) for a lock-step run of ``robot``.

    config/<robot>.yaml supplies gains and q0; without one: generic gains and a mid-range
    start. In lock step simulated time stops while the loop stalls (GC, bag writes), so
    the wall-clock watchdog gets a lenient ``state_timeout`` (separate processes keep the
    default).
    """
    config = load_config(robot) if not robot.endswith(('.urdf', '.xacro')) else {}
    path, base, default_tip = robot_path(robot)
    names = {'urdf_file': path, 'base_link': base or '', 'tip_link': tip or default_tip or ''}
    ctrl = dict(config.get('robodyn_controller', {}))
    sim = dict(config.get('robodyn_sim', {}))
    for cfg in (ctrl, sim):
        cfg.pop('robot', None)
        cfg.update({k: v for k, v in names.items() if v or k not in cfg})
    if 'kp' not in ctrl:
        ctrl['kp'], ctrl['kd'] = GENERIC_GAINS
    if 'q0' not in sim:
        sim['q0'] = _mid_range(path, base, names['tip_link'])
    if mode != 'computed_torque' and ctrl.get('mode', 'computed_torque') != mode:
        n = len(ctrl.get('kp', [0.0]))
        ctrl['kp'], ctrl['kd'] = [TORQUE_PD[0]] * n, [TORQUE_PD[1]] * n
    ctrl.update(mode=mode, trigger='state', rate=float(rate), use_sim_time=True,
                autostart=True, state_timeout=1.0)
    if reference:
        ctrl['reference'] = reference
    ctrl.update(controller_overrides or {})
    sim.update(lockstep=True, rate=float(rate), use_sim_time=True, publish_clock=True)
    return ctrl, sim


def recorder_parameters(ctrl, bag_path, storage):
    """Recorder parameters for what validation reads (types given: no discovery wait; in
    the demo's own process, so its niceness is left alone)."""
    topics = {'/' + JOINT_STATES: 'sensor_msgs/msg/JointState',
              '/' + ctrl.get('command_topic', COMMAND_TOPIC).lstrip('/'):
              'std_msgs/msg/Float64MultiArray',
              REFERENCE_TOPIC: 'sensor_msgs/msg/JointState',
              DIAGNOSTICS_TOPIC: 'diagnostic_msgs/msg/DiagnosticArray'}
    return dict(topics=list(topics), types=[f'{t}={m}' for t, m in topics.items()],
                bag_path=bag_path, storage=storage, use_sim_time=True, nice=0)
