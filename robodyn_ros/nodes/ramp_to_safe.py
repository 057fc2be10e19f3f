"""The controller node's last commands: from its output to the safe command within the
torque-rate limit, one per period, the safe command last (deactivate's end, cleanup,
shutdown, SIGINT / SIGTERM).

Why paced and bounded: two commands within one hardware cycle are applied as one step of
both (the forward controller takes the latest), so the ramp waits a period between
messages; and the process must be gone 2 s after a signal, so the ramp has a wall-time
budget (FINAL_RAMP_BUDGET: every effort range fits in it, controller_config checks that
at configure) and is cut, said in one line, when its reader does not take the messages.
"""

import time

from rclpy.duration import Duration

from ..control.controller_config import FINAL_RAMP_BUDGET

#: How long the exit waits for the input gateway it interrupted before the final ramp (it
#: has ended by then in all but a stall) [s]; the process's exit deadline bounds it too.
GATEWAY_REAP = 0.3

__all__ = ['publish_final', 'close_at_exit']


def publish_final(node, reason: str) -> None:
    """Ramp ``node``'s (a ControllerNode) output to the final safe command at the nominal
    rate and publish it last; ``reason`` goes into the supervisor's state and the log. A
    node that publishes nothing (unconfigured, inactive) only deactivates its core."""
    run = node.configured
    if run is None or not run.core.safety.publishing:
        if run is not None:
            run.core.safety.deactivate(node.now(), reason)
        return
    core, effort = run.core, None
    period = core.safety.period
    # One period after the last command at least (module docstring).
    time.sleep(min(max((core.safety.output_time or 0.0) + period - node.now(), 0.0),
                   period))
    start = time.monotonic()  # the budget is the wall's: exit within 2 s of a signal
    ramp = core.final_commands(node.now(), reason)
    for k, effort in enumerate(ramp):
        # a publish blocks while a reader that died unannounced is still listed (its
        # controller_manager, stopping too): the budget bounds the whole ramp
        if time.monotonic() - start > FINAL_RAMP_BUDGET:
            node.get_logger().error(
                f'{reason}: final ramp cut after {k} of {len(ramp)} commands '
                f'({FINAL_RAMP_BUDGET} s): the command subscriber does not take them')
            break
        run.cmd_pub.send(run.cmd_wire(effort))
        node.command_count += 1
        time.sleep(period)
    if effort is not None:
        node.last_output = (core.model.joint_names, core.chain_order(effort), node.now())
    # Let reliable delivery finish before the process may exit (bounded: exit within 2 s
    # of a signal, the final ramp included).
    left = FINAL_RAMP_BUDGET + 0.3 - (time.monotonic() - start)
    if left > 0.0:
        run.cmd_pub.publisher.wait_for_all_acked(Duration(seconds=min(0.3, left)))
    node.log_core_events()
    node.get_logger().info(f'{reason}: safe command published')


def close_at_exit(node) -> None:
    """SIGINT/SIGTERM on ``node`` (a ControllerNode): the input gateway told to stop (it
    ends its goals and exits on its own), the final ramp out, the running goal ended; then
    the gateway reaped (no orphan left) and the process ends without a teardown
    (``exit_after_close``): destroying a helper node's
    service waits until its executor's thread lets go of it, which a loaded machine has
    been seen to delay past the 2 s the exit has, and nothing is commanded after the ramp.
    Once per process (the shutdown transition, then run_node's exit). The process's exit
    deadline is armed first (``node.exit_deadline``, node_runner.arm_exit_deadline, as a
    signal arms it): a shutdown transition whose work hangs still ends within 2 s."""
    if getattr(node, 'closed_at_exit', False):
        return
    node.closed_at_exit = True
    if getattr(node, 'exit_deadline', None) is not None:
        node.exit_deadline()
    run = node.configured
    if run is not None and run.gateway is not None:
        run.gateway.interrupt()
    publish_final(node, 'shutdown')
    bridge = run.interfaces.bridge if run is not None and run.interfaces else None
    if bridge is not None:
        bridge.end_goals('controller shutting down', timeout=0.3)
    if run is not None and run.gateway is not None:
        run.gateway.reap(GATEWAY_REAP)
    node.exit_after_close = True
