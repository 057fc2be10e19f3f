"""Simulator, controller and recorder nodes on one executor, in lock step with simulated
time (``robodyn demo``, demo/runner.py): the simulator publishes the state at t, the
controller (trigger 'state', use_sim_time) answers with a command, the simulator holds it
for one step; the recorder writes everything to a rosbag2 directory.
"""

import time
from typing import Any

from ..errors import ConfigError, SimulationError

__all__ = ['run_lock_step']


def _params(values):
    from rclpy.parameter import Parameter
    return [Parameter(k, value=v) for k, v in values.items()]


def run_lock_step(controller: dict, sim: dict, steps: int, recorder: dict | None = None,
                  hook=None) -> dict:
    """Create the nodes from their parameters (``recorder``: the recorder's, or None: no
    recording), wait for the controller's first command, run ``steps`` lock-step cycles
    (``hook(step, nodes, executor)`` before each), then drain the recorder.

    Returns a dict with steps, wall time, timeouts, the controller's command count
    (``answered``: before the final ramp of cleanup) and, when recording, the number
    of messages written (``recorded``).
    """
    import rclpy
    context = rclpy.Context()
    rclpy.init(context=context)
    nodes: dict[str, Any] = {}
    try:
        executor = _create_nodes(context, nodes, controller, sim, recorder)
        _first_command(nodes, executor)
        result = _lock_step(nodes, executor, steps, hook)
        if 'recorder' in nodes:
            result['recorded'] = _drain(nodes['recorder'], executor)
    finally:
        for node in nodes.values():
            node.destroy_node()
        rclpy.shutdown(context=context)
    return result


def _create_nodes(context, nodes, ctrl, sim_cfg, recorder):
    from rclpy.executors import SingleThreadedExecutor

    from .controller import ControllerNode
    from .recorder import RecorderNode
    from .sim_node import SimNode
    nodes['sim'] = SimNode(context=context, parameter_overrides=_params(sim_cfg))
    nodes['controller'] = ControllerNode(context=context, parameter_overrides=_params(ctrl))
    if nodes['controller'].core is None:
        raise ConfigError(f'controller: {nodes["controller"].status}')
    if recorder:
        nodes['recorder'] = RecorderNode(context=context,
                                         parameter_overrides=_params(recorder))
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
        _spin(nodes, executor, 0.01)
    if sim.commands == 0:
        raise SimulationError('no command from the controller within 10 s (DDS discovery?)')
    # Repeated start-up states carry the same stamp: the controller answers only the
    # first, so commands and states pair up 1:1 from here.
    if sim.commands != controller.command_count:
        raise SimulationError(f'lock step lost: {controller.command_count} commands sent, '
                           f'{sim.commands} received')


def _lock_step(nodes, executor, steps, hook):
    """``steps`` cycles: state out, command back, one simulator step; then deactivate
    (the arm held where it is) and cleanup (the final hold goes out within the rate limit)
    before the states stop."""
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
            _spin(nodes, executor, 0.05)
            if time.perf_counter() > wait_until:
                timeouts += 1
                break
    answered = controller.command_count
    controller.trigger_deactivate()
    reference = controller.core.reference(sim.sim.time)
    faults = controller.core.safety.faults
    controller.trigger_cleanup()
    return dict(answered=answered, steps=steps, wall=time.perf_counter() - wall0,
                timeouts=timeouts, commands=controller.command_count, q=sim.sim.state()[0],
                reference=reference, faults=faults)


def _spin(nodes, executor, timeout):
    """One executor round, then the recorder's messages (it takes them itself)."""
    executor.spin_once(timeout_sec=timeout)
    if 'recorder' in nodes:
        nodes['recorder'].take_ready()


def _drain(recorder, executor):
    """Spin until the recorder has written everything in flight; close the bag."""
    drain_until = time.perf_counter() + 2.0
    last = -1
    while time.perf_counter() < drain_until and recorder.bag.count != last:
        last = recorder.bag.count
        for _ in range(200):
            _spin({'recorder': recorder}, executor, 0.01)
    recorder.close()
    return recorder.bag.count
