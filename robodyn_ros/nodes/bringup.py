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
from ..model.registry import robot_path
from ..share import share_dir

__all__ = ['closed_loop', 'run_demo', 'load_config', 'config_dir']


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


def _params(values):
    from rclpy.parameter import Parameter
    return [Parameter(k, value=v) for k, v in values.items()]


def closed_loop(robot, mode='computed_torque', reference=None, duration=1.0, rate=1000.0,
                bag_path=None, storage='mcap', tip=None, hook=None, controller_overrides=None):
    """Run sim + controller (+ recorder) in lock step on one executor.

    Args:
        robot: robot name or URDF path (config/<robot>.yaml supplies gains and q0).
        hook: optional ``hook(step, nodes)`` called before each step (tests publish
            trajectories from it).

    Returns:
        dict with steps, wall time, timeouts, the controller's command count (``answered``:
        before the final ramp of deactivation) and, when recording, the number of
        messages written.
    """
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    os.environ.setdefault('ROS_DOMAIN_ID', '42')
    import rclpy
    from rclpy.executors import SingleThreadedExecutor

    from .controller import ControllerNode
    from .recorder import RecorderNode
    from .sim_node import SimNode

    config = load_config(robot) if not robot.endswith('.urdf') else {}
    path, base, default_tip = robot_path(robot)
    names = {'urdf_file': path, 'base_link': base or '', 'tip_link': tip or default_tip or ''}
    ctrl = dict(config.get('robodyn_controller', {}))
    sim_cfg = dict(config.get('robodyn_sim', {}))
    for cfg in (ctrl, sim_cfg):
        cfg.pop('robot', None)
        cfg.update({k: v for k, v in names.items() if v or k not in cfg})
    if 'kp' not in ctrl:  # a URDF without a config file: generic gains, start mid-range
        ctrl['kp'], ctrl['kd'] = [400.0], [40.0]
    if 'q0' not in sim_cfg:
        import numpy as np

        from ..model import load_urdf
        model = load_urdf(path, base, names['tip_link'] or None)
        lower, upper = model.lower, model.upper
        finite = np.isfinite(lower) & np.isfinite(upper)
        sim_cfg['q0'] = np.where(finite, 0.5 * (np.nan_to_num(lower) + np.nan_to_num(upper)),
                                 0.0).tolist()
    if mode != 'computed_torque' and ctrl.get('mode', 'computed_torque') != mode:
        # Torque-level PD gains for feedforward / gravity modes [N m/rad, N m s/rad].
        n = len(ctrl.get('kp', [0.0]))
        ctrl['kp'], ctrl['kd'] = [100.0] * n, [10.0] * n
    # Lock step: simulated time stops while the loop stalls (GC, bag writes), so the
    # watchdog (wall clock) gets a lenient timeout; separate processes keep the default.
    ctrl.update(mode=mode, trigger='state', rate=float(rate), use_sim_time=True,
                autostart=True, state_timeout=1.0)
    if reference:
        ctrl['reference'] = reference
    ctrl.update(controller_overrides or {})
    sim_cfg.update(lockstep=True, rate=float(rate), use_sim_time=True, publish_clock=True)
    if duration <= 0:
        raise ConfigError(f'duration must be > 0, got {duration}')
    context = rclpy.Context()
    rclpy.init(context=context)
    nodes = {}
    result = {}
    try:
        nodes['sim'] = sim = SimNode(context=context, parameter_overrides=_params(sim_cfg))
        nodes['controller'] = controller = ControllerNode(context=context,
                                                          parameter_overrides=_params(ctrl))
        if controller.core is None:
            raise RobodynError(f'controller: {controller.status}')
        recorder = None
        if bag_path:
            topics = ['/joint_states',
                      '/' + ctrl.get('command_topic', 'effort_controller/commands').lstrip('/'),
                      '/robodyn_controller/reference', '/diagnostics']
            types = ['sensor_msgs/msg/JointState', 'std_msgs/msg/Float64MultiArray',
                     'sensor_msgs/msg/JointState', 'diagnostic_msgs/msg/DiagnosticArray']
            nodes['recorder'] = recorder = RecorderNode(
                context=context, parameter_overrides=_params(dict(
                    topics=topics, types=[f'{t}={m}' for t, m in zip(topics, types)],
                    bag_path=bag_path, storage=storage, use_sim_time=True)))
        executor = SingleThreadedExecutor(context=context)
        for node in nodes.values():
            executor.add_node(node)
        steps = int(round(duration * rate))
        # Let discovery settle: the first state must reach the controller.
        deadline = time.perf_counter() + 10.0
        next_publish = 0.0
        while sim.commands == 0 and time.perf_counter() < deadline:
            if controller.core.q is None and time.perf_counter() >= next_publish:
                sim.publish_state()
                next_publish = time.perf_counter() + 0.1
            executor.spin_once(timeout_sec=0.01)
        if sim.commands == 0:
            raise RobodynError('no command from the controller within 10 s (DDS discovery?)')
        # Repeated start-up states carry the same stamp: the controller answers only the
        # first, so commands and states pair up 1:1 from here.
        if sim.commands != controller.command_count:
            raise RobodynError(f'lock step lost: {controller.command_count} commands sent, '
                               f'{sim.commands} received')
        wall0 = time.perf_counter()
        timeouts = 0
        for k in range(steps):
            if hook is not None:
                hook(k, nodes, executor)
            sim.step()
            expected = sim.commands + 1
            sim.publish_state()
            wait_until = time.perf_counter() + 0.5
            while sim.commands < expected:
                executor.spin_once(timeout_sec=0.05)
                if time.perf_counter() > wait_until:
                    timeouts += 1
                    break
        # End as a real run ends: deactivate (the final hold goes out within the rate
        # limit) before the states stop, so the watchdog has nothing to report.
        answered = controller.command_count
        controller.trigger_deactivate()
        result.update(answered=answered, steps=steps, wall=time.perf_counter() - wall0,
                      timeouts=timeouts,
                      commands=controller.command_count, q=sim.sim.state()[0],
                      reference=controller.core.reference(sim.sim.time),
                      faults=controller.core.supervisor.faults)
        if recorder is not None:
            drain_until = time.perf_counter() + 2.0
            last = -1
            while time.perf_counter() < drain_until and recorder.bag.count != last:
                last = recorder.bag.count
                for _ in range(200):
                    executor.spin_once(timeout_sec=0.01)
            recorder.close()
            result['recorded'] = recorder.bag.count
    finally:
        for node in nodes.values():
            node.destroy_node()
        rclpy.shutdown(context=context)
    return result


def run_jtc_demo(args):
    """``robodyn demo --mode jtc_feedforward``: worst-joint RMS with vs without feed-forward
    (exit 1 if feed-forward does not cut it to 1/10)."""
    from ..model import load_robot
    from ..validation.jtc_feedforward import (
        PANDA_JTC_KD,
        PANDA_JTC_KP,
        jtc_feedforward_experiment,
    )
    if args.robot != 'panda':
        raise ConfigError(f'--mode jtc_feedforward: only the panda has JTC gains here, got '
                          f'{args.robot!r}')
    config = load_config('panda')
    ctrl, sim = config['robodyn_controller'], config['robodyn_sim']
    model = load_robot('panda', tip_link=ctrl.get('tip_link'))
    res = jtc_feedforward_experiment(model, sim['q0'], ctrl['amplitudes'], ctrl['periods'],
                                     PANDA_JTC_KP, PANDA_JTC_KD, args.duration)
    print(f'JTC-like PD (kp {list(PANDA_JTC_KP)}, kd {list(PANDA_JTC_KD)}) on the simulated '
          f'Panda, sum-of-sines over {args.duration:.1f} s, trajectory points every 10 ms:')
    print(f'  worst-joint RMS with feed-forward    {res["with_feedforward"]:.3e} rad')
    print(f'  worst-joint RMS without feed-forward {res["without_feedforward"]:.3e} rad')
    print(f'  ratio {res["ratio"]:.4f} ({"PASS" if res["ratio"] <= 0.1 else "FAIL"}: <= 0.1)')
    return 0 if res['ratio'] <= 0.1 else 1


def run_demo(args):
    """CLI body of ``robodyn demo``: closed loop, bag, then validation."""
    if args.mode == 'jtc_feedforward':
        return run_jtc_demo(args)
    from ..validation.report import print_summary
    from ..validation.validate import validate_bag
    os.makedirs(args.out, exist_ok=True)
    bag_path = os.path.join(args.out, 'bag')
    if os.path.exists(bag_path):
        import shutil
        shutil.rmtree(bag_path)
    reference = None if args.reference == 'sum_of_sines' and not args.robot.endswith('.urdf') \
        else args.reference
    config = os.path.join(config_dir(), f'{args.robot}.yaml')
    print(f'demo: URDF {robot_path(args.robot)[0]}, config '
          f'{config if os.path.isfile(config) else "none (generic gains, mid-range start)"}')
    res = closed_loop(args.robot, args.mode, reference, args.duration, args.rate, bag_path,
                      args.storage, args.tip)
    print(f'demo: {args.robot}, mode {args.mode}, {res["steps"]} steps of '
          f'{1e3 / args.rate:.3f} ms (simulated {args.duration:.1f} s in {res["wall"]:.1f} s '
          f'wall), {res["timeouts"]} step timeouts, {res["recorded"]} messages in {bag_path}')
    max_rms, max_abs = args.max_rms, args.max_abs
    if args.mode == 'computed_torque':
        max_rms = 1e-3 if max_rms is None else max_rms
        max_abs = 5e-3 if max_abs is None else max_abs
    report = validate_bag(bag_path, out_dir=args.out, plots=True, max_rms=max_rms,
                          max_abs=max_abs)
    print_summary(report)
    return 0 if report['passed'] else 1
