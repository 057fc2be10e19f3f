"""Parameters of the in-process demo (``robodyn demo``): the robot's config file, plus
what lock step needs. Pure: no rclpy, no environment changes."""

import os

import numpy as np
import yaml

from ..defaults import (
    COMMAND_TOPIC,
    CONTROLLER_NAME,
    DIAGNOSTICS_TOPIC,
    JOINT_STATES,
    REFERENCE_TOPIC,
)
from ..errors import ConfigError
from ..model.registry import is_description, robot_path
from ..package_share import share_dir
from ..sim.effort_limits import simulation_effort_limits

__all__ = ['config_dir', 'load_config', 'demo_parameters', 'recorder_parameters',
           'stiff_damping']

#: Controller gains when a robot has no config file [1/s^2, 1/s], and the torque-level PD
#: of the feedforward / gravity modes [N m/rad, N m s/rad].
GENERIC_GAINS = ([400.0], [40.0])
TORQUE_PD = (100.0, 10.0)
#: A joint damping is compensated in the demo when its time constant is at least this many
#: control periods (see stiff_damping).
COMPENSABLE_PERIODS = 20.0


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


def load_model(path, base, tip, xacro_args):
    """The demo's RobotModel of a description path (effort limits not required)."""
    from ..model import load_robot
    return load_robot(path, base or None, tip or None, mappings=list(xacro_args),
                      require_effort_limits=False)


def stiff_damping(model, q, period):
    """Per joint: True when its damping's time constant M_jj(q) / b is under
    COMPENSABLE_PERIODS control periods (vendors' Gazebo damping on light joints: KUKA's
    10 N m s/rad on 3e-4 kg m^2 is 30 us). A torque held for a period cancels a damping
    torque that changes within it only to about period / (2 M_jj / b): measured on the
    med7, 3.4 ms at 1 kHz still left 1.1e-3 rad RMS."""
    from ..sim.mujoco_sim import damping_time_constants
    return damping_time_constants(model, q) < COMPENSABLE_PERIODS * period


def _like_with_like(model, q0, period, ctrl, sim):
    """Controller and sim parameters so that the controller compensates exactly what the
    simulator applies (see demo_parameters)."""
    stiff = stiff_damping(model, q0, period)
    damping = [0.0 if s else j.damping for s, j in zip(stiff, model.joints)]
    ctrl.update(include_friction=True, coulomb=[0.0], viscous=damping)
    sim.update(dry_friction=False, damping=damping)
    if stiff.any():
        names = [j.name for s, j in zip(stiff, model.joints) if s]
        return [f'damping of {names} left out of sim and controller: its time constant is '
                f'under {COMPENSABLE_PERIODS:g} control periods, which a controller at this '
                'rate does not compensate']
    return []


#: joint_impedance's demo spring [N m/rad], its damping ratio on M's diagonal at q0.
IMPEDANCE_K, IMPEDANCE_ZETA = 400.0, 1.0
#: cartesian_impedance's demo posture spring in the nullspace [N m/rad] (the tool spring:
#: cartesian.stiffness, the parameter's default 500 N/m and 30 N m/rad).
POSTURE_K = 20.0


def mode_gains(mode, model, q0, ctrl):
    """(kp, kd) of ``mode`` when the config's are computed torque's (acceleration gains
    kp [1/s^2], kd [1/s], critically damped at kd = 2 sqrt(kp)): joint_impedance K =
    IMPEDANCE_K [N m/rad], D = 2 zeta sqrt(K M_jj(q0)) (cartesian_impedance: its posture
    spring POSTURE_K the same way); passivity and adaptive Lambda =
    kd / 2 [1/s] and K_D = Lambda M_jj(q0) [N m s/rad], the error's poles where computed
    torque puts them (-kd / 2, twice); feedforward and gravity TORQUE_PD."""
    n = model.n
    if mode not in ('joint_impedance', 'passivity', 'adaptive', 'cartesian_impedance'):
        return [TORQUE_PD[0]] * n, [TORQUE_PD[1]] * n
    from ..dynamics import RigidBodyDynamics
    m = np.diag(RigidBodyDynamics(model, 'kronecker').mass_matrix(q0))
    if mode in ('joint_impedance', 'cartesian_impedance'):
        k = np.full(n, IMPEDANCE_K if mode == 'joint_impedance' else POSTURE_K)
        return k.tolist(), (2.0 * IMPEDANCE_ZETA * np.sqrt(k * m)).tolist()
    kd = np.broadcast_to(np.asarray(ctrl.get('kd') or GENERIC_GAINS[1], dtype=float), (n,))
    lam = kd / 2.0
    return lam.tolist(), (lam * m).tolist()


def demo_parameters(robot, mode='computed_torque', reference=None, rate=1000.0, tip=None,
                    controller_overrides=None, base=None, xacro_args=()):
    """(controller parameters, sim parameters, notes) for a lock-step run of ``robot``.

    config/<robot>.yaml supplies gains and q0; without one (any description path): generic
    gains, a mid-range start, and like with like: the simulator applies the description's
    damping and the controller compensates it (viscous, linear in qd: exactly); its dry
    friction is off in both (a smoothed Coulomb term cannot match a simulated stiction on
    a light joint: FR3's joint 7 has 0.2 N m on 6e-5 kg m^2), and so is a damping too stiff
    for the control rate (:func:`stiff_damping`). In lock
    step simulated time stops while the loop stalls (GC, bag writes), so the wall-clock
    watchdog gets a lenient ``state_timeout`` (separate processes keep the default), and
    the loop closes in one simulated cycle whatever the wall clock does, so the position
    hold is the one-cycle loop's (``hold_latency`` 0, as the C++ controller's). The
    controller receives its trajectories itself (``input_gateway`` false): the lock-step
    loop is one process by design, and a gateway process would make its start wait on a
    second process's imports and discovery (beside two hogs and a test suite, once more than
    its 15 s) and deliver inputs off the simulated steps.
    """
    config = {} if is_description(robot) else load_config(robot)
    path, default_base, default_tip = robot_path(robot)
    names = {'urdf_file': path, 'base_link': base or default_base or '',
             'tip_link': tip or default_tip or '', 'xacro_args': list(xacro_args)}
    ctrl = dict(config.get(CONTROLLER_NAME, {}))
    sim = dict(config.get('robodyn_sim', {}))
    for cfg in (ctrl, sim):
        cfg.pop('robot', None)
        cfg.update({k: v for k, v in names.items() if v or k not in cfg})
    model = load_model(path, names['base_link'], names['tip_link'], xacro_args)
    if 'q0' not in sim:
        sim['q0'] = model.mid_range.tolist()
    notes = list(model.warnings)
    if not np.all(np.isfinite(model.effort_limits)) and 'effort_limits' not in ctrl:
        effort = simulation_effort_limits(model).tolist()
        ctrl['effort_limits'] = sim['effort_limits'] = effort
        notes.append(f'the demo simulates with effort limits {effort} [N m or N] (3 x the '
                     "largest gravity torque + 1); a real arm needs its maker's")
    if not config:
        notes += _like_with_like(model, sim['q0'], 1.0 / rate, ctrl, sim)
    if 'kp' not in ctrl:
        ctrl['kp'], ctrl['kd'] = GENERIC_GAINS
    if mode != 'computed_torque' and ctrl.get('mode', 'computed_torque') != mode:
        ctrl['kp'], ctrl['kd'] = mode_gains(mode, model, sim['q0'], ctrl)
    ctrl.update(mode=mode, trigger='state', rate=float(rate), use_sim_time=True,
                autostart=True, state_timeout=1.0, hold_latency=0.0, input_gateway=False)
    if reference:
        ctrl['reference'] = reference
    ctrl.update(controller_overrides or {})
    sim.update(lockstep=True, rate=float(rate), use_sim_time=True, publish_clock=True)
    return ctrl, sim, notes


#: The simulator's ground truth of a push (nodes/sim_node.py), and the controller's
#: estimate of it (with collision detection).
TRUTH_TOPIC = '/robodyn_sim/external_torque'
ESTIMATE_TOPIC = f'/{CONTROLLER_NAME}/external_torque'
WRENCH_TOPIC = f'/{CONTROLLER_NAME}/tool_wrench'


def recorder_parameters(ctrl, bag_path, storage, truth=False):
    """Recorder parameters for what validation reads (types given: no discovery wait; in
    the demo's own process, so its niceness is left alone); ``truth``: the simulator's
    push too; with collision detection, the controller's estimate."""
    topics = {'/' + JOINT_STATES: 'sensor_msgs/msg/JointState',
              '/' + ctrl.get('command_topic', COMMAND_TOPIC).lstrip('/'):
              'std_msgs/msg/Float64MultiArray',
              REFERENCE_TOPIC: 'sensor_msgs/msg/JointState',
              DIAGNOSTICS_TOPIC: 'diagnostic_msgs/msg/DiagnosticArray'}
    if truth:
        topics[TRUTH_TOPIC] = 'sensor_msgs/msg/JointState'
    if ctrl.get('collision.thresholds'):
        topics[ESTIMATE_TOPIC] = 'sensor_msgs/msg/JointState'
        topics[WRENCH_TOPIC] = 'geometry_msgs/msg/WrenchStamped'
    return dict(topics=list(topics), types=[f'{t}={m}' for t, m in topics.items()],
                bag_path=bag_path, storage=storage, use_sim_time=True, nice=0)
