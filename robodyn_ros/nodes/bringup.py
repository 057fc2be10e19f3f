"""In-process bringup for ``robodyn demo``: sim + controller + recorder on one executor.

The simulator runs in lock step with simulated time (/clock): it publishes the state at
t, the controller (trigger 'state', use_sim_time) answers with a command, the simulator
holds it for one step. The recorder writes everything to a rosbag2 directory, which is
then validated.
"""

import os
import time

import yaml

from ..errors import ConfigError, RobodynError
from ..robots import bundled_urdf_dir, robot_path

__all__ = ['run_demo', 'load_config', 'config_dir']


def config_dir():
    """config/ in the source tree, or share/robodyn_ros/config when installed."""
    here = os.path.dirname(bundled_urdf_dir())
    return os.path.join(here, 'config')


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


def _params(values):
    from rclpy.parameter import Parameter
    return [Parameter(k, value=v) for k, v in values.items()]


def run_demo(args):
    """CLI body of ``robodyn demo``."""
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    os.environ.setdefault('ROS_DOMAIN_ID', '42')
    import rclpy
    from rclpy.executors import SingleThreadedExecutor

    from ..validation.validate import validate_bag
    from .controller import ControllerNode
    from .recorder import RecorderNode
    from .sim_node import SimNode

    name = args.robot
    config = load_config(name) if not name.endswith('.urdf') else {}
    path, base, tip = robot_path(name)
    robot = {'urdf_file': path, 'base_link': base or '', 'tip_link': args.tip or tip or ''}
    ctrl = dict(config.get('robodyn_controller', {}))
    sim_cfg = dict(config.get('robodyn_sim', {}))
    for cfg in (ctrl, sim_cfg):
        cfg.pop('robot', None)
        cfg.update({k: v for k, v in robot.items() if v or k not in cfg})
    ctrl.update(mode=args.mode, trigger='state', rate=float(args.rate), use_sim_time=True,
                reference=args.reference if args.reference != 'sum_of_sines'
                or 'reference' not in ctrl else ctrl['reference'])
    if args.mode != 'computed_torque' and 'kp' in ctrl and ctrl.get('mode') != args.mode:
        # Torque-level PD gains for feedforward / gravity modes (N m/rad, N m s/rad).
        ctrl['kp'] = [100.0] * len(ctrl['kp'])
        ctrl['kd'] = [10.0] * len(ctrl['kd'])
    ctrl['mode'] = args.mode
    sim_cfg.update(lockstep=True, rate=float(args.rate), use_sim_time=True,
                   publish_clock=True)
    if args.duration <= 0:
        raise ConfigError(f'--duration must be > 0, got {args.duration}')
    os.makedirs(args.out, exist_ok=True)
    bag_path = os.path.join(args.out, 'bag')
    if os.path.exists(bag_path):
        import shutil
        shutil.rmtree(bag_path)
    context = rclpy.Context()
    rclpy.init(context=context)
    nodes = []
    try:
        sim = SimNode(context=context, parameter_overrides=_params(sim_cfg))
        nodes.append(sim)
        controller = ControllerNode(context=context, parameter_overrides=_params(ctrl))
        nodes.append(controller)
        if controller.dyn is None:
            raise RobodynError('controller could not load the robot model')
        topics = ['/joint_states', ctrl.get('command_topic', '/effort_controller/commands'),
                  '/robodyn_controller/reference', '/diagnostics']
        types = [f'{topics[0]}=sensor_msgs/msg/JointState',
                 f'{topics[1]}=std_msgs/msg/Float64MultiArray',
                 f'{topics[2]}=sensor_msgs/msg/JointState',
                 f'{topics[3]}=diagnostic_msgs/msg/DiagnosticArray']
        recorder = RecorderNode(context=context, parameter_overrides=_params(dict(
            topics=topics, types=types, bag_path=bag_path, storage=args.storage,
            use_sim_time=True)))
        nodes.append(recorder)
        executor = SingleThreadedExecutor(context=context)
        for node in nodes:
            executor.add_node(node)
        steps = int(round(args.duration * args.rate))
        wall0 = time.perf_counter()
        timeouts = 0
        # Let discovery settle: the first state must reach the controller.
        deadline = time.perf_counter() + 10.0
        next_publish = 0.0
        while sim.commands == 0 and time.perf_counter() < deadline:
            if controller.state is None and time.perf_counter() >= next_publish:
                sim.publish_state()
                next_publish = time.perf_counter() + 0.1
            executor.spin_once(timeout_sec=0.01)
        if sim.commands == 0:
            raise RobodynError('no command from the controller within 10 s (DDS discovery?)')
        # Drain answers to repeated start-up states so commands and states pair up 1:1.
        settle = time.perf_counter() + 0.3
        while time.perf_counter() < settle:
            executor.spin_once(timeout_sec=0.01)
        if sim.commands != controller.command_count:
            raise RobodynError(f'lock step lost: {controller.command_count} commands sent, '
                               f'{sim.commands} received')
        for k in range(steps):
            sim.step()
            expected = sim.commands + 1
            sim.publish_state()
            wait_until = time.perf_counter() + 0.5
            while sim.commands < expected:
                executor.spin_once(timeout_sec=0.05)
                if time.perf_counter() > wait_until:
                    timeouts += 1
                    break
        wall = time.perf_counter() - wall0
        drain_until = time.perf_counter() + 2.0
        last = -1
        while time.perf_counter() < drain_until and recorder.bag.count != last:
            last = recorder.bag.count
            for _ in range(200):
                executor.spin_once(timeout_sec=0.01)
        recorder.close()
    finally:
        for node in nodes:
            node.destroy_node()
        rclpy.shutdown(context=context)
    print(f'demo: {name}, mode {args.mode}, {steps} steps of {1e3 / args.rate:.3f} ms '
          f'(simulated {args.duration:.1f} s in {wall:.1f} s wall), {timeouts} step timeouts, '
          f'bag {bag_path}')
    report = validate_bag(bag_path, out_dir=args.out, plots=True)
    from ..validation.report import print_summary
    print_summary(report)
    return 0
