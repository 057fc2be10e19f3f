"""In-process bringup for ``robodyn demo``: sim + controller + recorder on one executor.

The simulator runs in lock step with simulated time (/clock): it publishes the state at
t, the controller (trigger 'state', use_sim_time) answers with a command, the simulator
holds it for one step. The recorder writes everything to a rosbag2 directory, which is
then validated.
"""

from collections.abc import Callable, Sequence
import os
import time
from typing import Any

from ..errors import ConfigError, SimulationError
from ..model.registry import robot_path
from .config import config_dir, demo_parameters, load_config, recorder_parameters

__all__ = ['closed_loop', 'demo', 'jtc_demo']


def _params(values):
    from rclpy.parameter import Parameter
    return [Parameter(k, value=v) for k, v in values.items()]


def closed_loop(robot, mode='computed_torque', reference=None, duration=1.0, rate=1000.0,
                bag_path=None, storage='mcap', tip=None, hook=None, controller_overrides=None,
                base=None, xacro_args=(), log=print):
    """Run sim + controller (+ recorder) in lock step on one executor.

    Args:
        robot: robot name or URDF path (config/<robot>.yaml supplies gains and q0).
        base, xacro_args: chain base link and xacro arguments ('name:=value') of a
            description path.
        hook: optional ``hook(step, nodes, executor)`` called before each step (tests
            publish trajectories from it).

    Returns:
        dict with steps, wall time, timeouts, the controller's command count (``answered``:
        before the final ramp of deactivation) and, when recording, the number of
        messages written.
    """
    if duration <= 0:
        raise ConfigError(f'duration must be > 0, got {duration}')
    ctrl, sim_cfg, notes = demo_parameters(robot, mode, reference, rate, tip,
                                           controller_overrides, base, xacro_args)
    for text in notes:
        log(f'demo: {text}')
    import rclpy
    context = rclpy.Context()
    rclpy.init(context=context)
    nodes: dict[str, Any] = {}
    try:
        executor = _create_nodes(context, nodes, ctrl, sim_cfg, bag_path, storage)
        _first_command(nodes, executor)
        result = _lock_step(nodes, executor, int(round(duration * rate)), hook)
        if 'recorder' in nodes:
            result['recorded'] = _drain(nodes['recorder'], executor)
    finally:
        for node in nodes.values():
            node.destroy_node()
        rclpy.shutdown(context=context)
    return result


def _create_nodes(context, nodes, ctrl, sim_cfg, bag_path, storage):
    from rclpy.executors import SingleThreadedExecutor

    from ..nodes.controller import ControllerNode
    from ..nodes.recorder import RecorderNode
    from ..nodes.sim_node import SimNode
    nodes['sim'] = SimNode(context=context, parameter_overrides=_params(sim_cfg))
    nodes['controller'] = ControllerNode(context=context, parameter_overrides=_params(ctrl))
    if nodes['controller'].core is None:
        raise ConfigError(f'controller: {nodes["controller"].status}')
    if bag_path:
        nodes['recorder'] = RecorderNode(context=context, parameter_overrides=_params(
            recorder_parameters(ctrl, bag_path, storage)))
    executor = SingleThreadedExecutor(context=context)
    for node in nodes.values():
        executor.add_node(node)
    return executor


def _first_command(nodes, executor):
    """Publish the start state until the controller answers (DDS discovery settles)."""
    sim, controller = nodes['sim'], nodes['controller']
    deadline = time.perf_counter() + 10.0
    next_publish = 0.0
    while sim.commands == 0 and time.perf_counter() < deadline:
        if controller.core.q is None and time.perf_counter() >= next_publish:
            sim.publish_state()
            next_publish = time.perf_counter() + 0.1
        executor.spin_once(timeout_sec=0.01)
    if sim.commands == 0:
        raise SimulationError('no command from the controller within 10 s (DDS discovery?)')
    # Repeated start-up states carry the same stamp: the controller answers only the
    # first, so commands and states pair up 1:1 from here.
    if sim.commands != controller.command_count:
        raise SimulationError(f'lock step lost: {controller.command_count} commands sent, '
                           f'{sim.commands} received')


def _lock_step(nodes, executor, steps, hook):
    """``steps`` cycles: state out, command back, one simulator step; then deactivate
    (the final hold goes out within the rate limit) before the states stop."""
    sim, controller = nodes['sim'], nodes['controller']
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
    answered = controller.command_count
    controller.trigger_deactivate()
    return dict(answered=answered, steps=steps, wall=time.perf_counter() - wall0,
                timeouts=timeouts, commands=controller.command_count, q=sim.sim.state()[0],
                reference=controller.core.reference(sim.sim.time),
                faults=controller.core.supervisor.faults)


def _drain(recorder, executor):
    """Spin until the recorder has written everything in flight; close the bag."""
    drain_until = time.perf_counter() + 2.0
    last = -1
    while time.perf_counter() < drain_until and recorder.bag.count != last:
        last = recorder.bag.count
        for _ in range(200):
            executor.spin_once(timeout_sec=0.01)
    recorder.close()
    return recorder.bag.count


def jtc_demo(duration: float = 10.0) -> dict:
    """``robodyn demo --mode jtc_feedforward``: the Panda sum-of-sines tracked by a JTC-like
    PD with and without robodyn's effort feed-forward; worst-joint RMS of each [rad]."""
    from ..experiments.jtc_feedforward import (
        PANDA_JTC_KD,
        PANDA_JTC_KP,
        jtc_feedforward_experiment,
    )
    from ..model import load_robot
    config = load_config('panda')
    ctrl, sim = config['robodyn_controller'], config['robodyn_sim']
    model = load_robot('panda', tip_link=ctrl.get('tip_link'))
    result = jtc_feedforward_experiment(model, sim['q0'], ctrl['amplitudes'], ctrl['periods'],
                                        PANDA_JTC_KP, PANDA_JTC_KD, duration)
    result.update(kp=list(PANDA_JTC_KP), kd=list(PANDA_JTC_KD), duration=duration)
    return result


def demo(robot: str = 'panda', mode: str = 'computed_torque',
         reference: str = 'sum_of_sines', duration: float = 10.0, rate: float = 1000.0,
         out: str = 'out/demo', storage: str = 'mcap', tip: str | None = None,
         max_rms: float | None = None, max_abs: float | None = None,
         log: Callable[[str], None] = print, base: str | None = None,
         xacro_args: Sequence[str] = ()) -> dict:
    """``robodyn demo``: closed loop in lock step, recorded to ``out``/bag, then validated
    (computed torque: within 1e-3 rad RMS and 5e-3 rad max unless given). Returns the
    run's figures and the validation report; ``log`` receives progress lines."""
    from ..validation.validate import validate_bag
    os.makedirs(out, exist_ok=True)
    bag_path = os.path.join(out, 'bag')
    if os.path.exists(bag_path):
        import shutil
        shutil.rmtree(bag_path)
    plain = robot.endswith(('.urdf', '.xacro'))
    config = os.path.join(config_dir(), f'{robot}.yaml')
    log(f'demo: URDF {robot_path(robot)[0]}, config '
        f'{config if os.path.isfile(config) else "none (generic gains, mid-range start)"}')
    run = closed_loop(robot, mode, None if reference == 'sum_of_sines' and not plain
                      else reference, duration, rate, bag_path, storage, tip,
                      base=base, xacro_args=xacro_args, log=log)
    log(f'demo: {robot}, mode {mode}, {run["steps"]} steps of {1e3 / rate:.3f} ms (simulated '
        f'{duration:.1f} s in {run["wall"]:.1f} s wall), {run["timeouts"]} step timeouts, '
        f'{run["recorded"]} messages in {bag_path}')
    if mode == 'computed_torque':
        max_rms = 1e-3 if max_rms is None else max_rms
        max_abs = 5e-3 if max_abs is None else max_abs
    report = validate_bag(bag_path, out_dir=out, plots=True, max_rms=max_rms, max_abs=max_abs)
    return dict(run=run, bag=bag_path, report=report)
