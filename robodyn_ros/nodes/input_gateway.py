"""The controller's input gateway: ~/joint_trajectory and FollowJointTrajectory goals are
received in a process of their own, checked for size there, and only then handed to the
controller.

Why a process: receiving a message costs its receiver in proportion to its size, before any
of robodyn's code runs. A 10.9 MB trajectory (a million joint names) is reassembled by the
receiving DDS participant, and a FollowJointTrajectory goal is decoded by rclpy in C while
the interpreter lock is held (0.3 s for a million names). In the controller's process either
stops the 1 kHz loop for tens to hundreds of milliseconds. Here they cost this process, and
the controller only ever receives inputs within its bounds.

The gateway, started by the configured controller node (:mod:`.gateway_process`), serves the
public names and forwards to the controller's private ones under ``<controller>/_inputs``:

* ``~/joint_trajectory``: the CDR bytes are counted (names and points, nothing decoded),
  forwarded unchanged when within bounds, otherwise the one-line refusal goes to
  ``_inputs/refused`` and the controller reports it (its log, /diagnostics).
* ``~/target_pose`` and ``~/target_wrench``: a PoseStamped or WrenchStamped whose bytes
  exceed MAX_TARGET_BYTES (a huge frame name) is refused the same way; the others are
  forwarded unchanged.
* ``~/follow_joint_trajectory``: a goal beyond the bounds is rejected here (refusal reported
  the same way); any other goal is sent to the controller's own action server, and its
  acceptance, feedback, cancel and final result are relayed, so a client sees exactly what
  the controller decides (one final result per accepted goal).

The gateway ends with its controller: at cleanup and shutdown the controller stops it, and
it stops by itself within 0.2 s when its parent process is gone. A goal still running then
is aborted ('controller stopped').
"""

import faulthandler
import json
import os
import signal
import sys
import threading
import time
from typing import Any, cast

from ..errors import BagError

__all__ = ['INTERNAL', 'JOIN', 'main']

#: The controller's private namespace for what the gateway forwards (relative to its node).
INTERNAL = '_inputs'
#: How long a goal may wait for the controller's action server to be found [s].
ANSWER_TIMEOUT = 2.0
#: A spare's first line on stdin: join DDS now (gateway_process.SpareGateway.join).
JOIN = b'join'
#: A relayed goal the controller's status says has ended, without its result this long
#: after, has its result asked for again, and again this often [s] (_Relayed.ask_if_late).
RESULT_RETRY = 1.0
#: The largest PoseStamped forwarded [bytes of CDR]: 7 doubles, a stamp and a frame name
#: (a name of up to ~900 characters).
MAX_TARGET_BYTES = 1024
#: The goal statuses that end a goal (action_msgs GoalStatus: succeeded, canceled, aborted).
ENDED = (4, 5, 6)


def _parse(argv):
    import argparse
    parser = argparse.ArgumentParser(prog='robodyn_input_gateway')
    parser.add_argument('--name', required=True)
    parser.add_argument('--namespace', default='/')
    parser.add_argument('--trajectory', required=True)
    parser.add_argument('--internal', required=True)
    parser.add_argument('--action', default='')
    parser.add_argument('--target', default='')
    parser.add_argument('--wrench', default='')
    parser.add_argument('--max-points', type=int, required=True)
    parser.add_argument('--max-names', type=int, required=True)
    parser.add_argument('--parent', type=int, required=True)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    """The gateway process: serve until SIGINT/SIGTERM or until the parent is gone. With
    ``--spare`` it waits for the word to join DDS on stdin, joins, and then reads its
    arguments, one JSON list, from stdin (gateway_process.SpareGateway); an end of stdin
    before either ends it."""
    argv = sys.argv[1:] if argv is None else argv
    # The handler only records the signal: it runs in the main thread between two of its
    # bytecodes, and one that took a lock (an Event's set()) could find the main thread
    # holding it inside that Event's wait(), and wait for ever: the gateway would outlive
    # its controller. time.sleep below returns to the loop at once.
    signals: list[int] = []
    # Until its node exists a signal ends the gateway at once (the default action): nothing
    # to save, and the node's creation joins DDS, a C call where a Python handler would
    # not run.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)
    import rclpy
    from rclpy.executors import MultiThreadedExecutor
    from rclpy.signals import SignalHandlerOptions

    from .node_runner import EXIT_DEADLINE, spin_in_thread
    spare = argv[:1] == ['--spare']
    first = _first_line() if spare else b''
    if first is None:
        return 0  # stdin closed before: the controller did not use the spare
    rclpy.init(args=[], signal_handler_options=SignalHandlerOptions.NO)
    placeholder = None
    if spare:
        placeholder = _join_dds()
        argv = _spare_arguments(None if first.strip() == JOIN else first)
        if argv is None:  # unused: leave DDS
            placeholder.destroy_node()
            rclpy.try_shutdown()
            return 0
    options = _parse(argv)
    gateway = _Gateway(options)
    if placeholder is not None:  # the gateway's node keeps the participant
        placeholder.destroy_node()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda number, _frame: signals.append(number))
    executor = MultiThreadedExecutor(num_threads=3)
    executor.add_node(gateway.node)
    thread = spin_in_thread(executor, 'robodyn_inputs')
    # Every 10 ms until announced (the controller's configure waits for it), then every 0.1 s:
    # serve until a signal or until the controller is gone.
    while not signals:
        time.sleep(0.1 if gateway.announced else 0.01)
        if signals or os.getppid() != options.parent:  # a signal, or the controller gone
            break
        gateway.announce_when_matched()
    # Gone within EXIT_DEADLINE even if the shutdown below hangs (node_runner._Stop).
    faulthandler.dump_traceback_later(EXIT_DEADLINE, exit=True)
    gateway.end_goals('controller stopped')
    executor.shutdown(timeout_sec=0.3)
    thread.join(timeout=0.3)
    rclpy.try_shutdown()
    return 0


def _join_dds():
    """Join DDS now: a hidden placeholder node, destroyed once the gateway's own node exists.

    Why: rclpy.init does not join DDS; the middleware creates the process's participant with
    its first node. A spare that stopped at rclpy.init joined only at configure, a second
    after the controller, when the controller's first announcements (Fast DDS: 5 in 0.5 s)
    were over: the two then found each other at the controller's next periodic announcement,
    3 s later, in about 1 start in 10. The placeholder's name, ``_robodyn_spare_<pid>``, is
    how a test sees that the spare joined."""
    from rclpy.node import Node
    return Node(f'_robodyn_spare_{os.getpid()}', use_global_arguments=False,
                start_parameter_services=False, enable_rosout=False)


def _first_line() -> bytes | None:
    """A spare's first line on stdin, the word to join DDS (gateway_process.SpareGateway.
    join) or already its arguments; None when stdin closes first."""
    try:
        line = sys.stdin.buffer.readline()
    except OSError:
        return None
    return line or None


def _spare_arguments(line: bytes | None = None) -> list[str] | None:
    """A spare's arguments: one JSON list from stdin (``line``: read already); None when
    none come (stdin closed: the controller did not use it, or ended)."""
    try:
        line = sys.stdin.buffer.readline() if line is None else line
        argv = json.loads(line) if line.strip() else None
    except (OSError, ValueError):
        return None
    return argv if isinstance(argv, list) else None


class _Gateway:
    """The gateway's node: the trajectory relay and, if asked, the action relay."""

    def __init__(self, options):
        from rclpy.node import Node
        from std_msgs.msg import String
        from trajectory_msgs.msg import JointTrajectory
        self.options = options
        self.node = Node(options.name, namespace=options.namespace,
                         use_global_arguments=False)
        self.forward = self.node.create_publisher(
            JointTrajectory, f'{options.internal}/joint_trajectory', 10)
        self.node.create_subscription(JointTrajectory, options.trajectory,
                                      self.on_trajectory, 10, raw=True)
        self.action = _ActionRelay(self, options) if options.action else None
        self.target: Any = None
        if options.target:  # pose targets: fixed-size but for frame_id, forwarded raw
            from geometry_msgs.msg import PoseStamped
            self.target = self.node.create_publisher(
                PoseStamped, f'{options.internal}/target_pose', 10)
            self.node.create_subscription(PoseStamped, options.target, self.on_target, 10,
                                          raw=True)
        self.wrench: Any = None
        if options.wrench:  # target wrenches: the same
            from geometry_msgs.msg import WrenchStamped
            self.wrench = self.node.create_publisher(
                WrenchStamped, f'{options.internal}/target_wrench', 10)
            self.node.create_subscription(WrenchStamped, options.wrench, self.on_wrench, 10,
                                          raw=True)
        self.refused = self.node.create_publisher(String, f'{options.internal}/refused', 10)
        self.announced = False

    def matched(self) -> bool:
        """True once this side has found the controller's endpoints: both readers of what
        is forwarded, and the action server goals are relayed to."""
        return (self.forward.get_subscription_count() > 0
                and self.refused.get_subscription_count() > 0
                and (self.action is None or self.action.client.server_is_ready()))

    def announce_when_matched(self):
        """Once :meth:`matched`, create ``_inputs/ready``, the publisher whose match the
        controller waits for (GatewayProcess.wait_ready): every endpoint is up both ways."""
        from std_msgs.msg import Empty
        if not self.announced and self.matched():
            self.node.create_publisher(Empty, f'{self.options.internal}/ready', 1)
            self.announced = True

    def refuse(self, text):
        """Tell the controller why an input was refused (it logs and reports it)."""
        from std_msgs.msg import String
        self.refused.publish(String(data=text[:500]))

    def check(self, raw):
        """None if a JointTrajectory's bytes are within bounds, else why not."""
        try:
            from ..io.cdr import check_joint_trajectory_size  # numpy: after DDS is joined
            check_joint_trajectory_size(raw, self.options.max_points, self.options.max_names)
        except BagError as exc:
            return str(exc)
        return None

    def on_trajectory(self, raw):
        try:
            problem = self.check(raw)
            if problem is None:
                self.forward.publish(raw)
            else:
                self.refuse(f'trajectory rejected: {problem}')
        except Exception as exc:  # noqa: BLE001 - a callback never raises (shutting down)
            print(f'input gateway: trajectory dropped: {type(exc).__name__}: {exc}',
                  file=sys.stderr, flush=True)

    def on_target(self, raw):
        self.forward_small(raw, self.target, 'pose target', 'PoseStamped')

    def on_wrench(self, raw):
        self.forward_small(raw, self.wrench, 'target wrench', 'WrenchStamped')

    def forward_small(self, raw, publisher, what, kind):
        """Forward a fixed-size message's bytes, or refuse it when a huge frame name makes
        it larger than MAX_TARGET_BYTES."""
        try:
            if len(raw) <= MAX_TARGET_BYTES:
                publisher.publish(raw)
            else:
                self.refuse(f'{what} refused: {len(raw)} bytes, more than a {kind} with a '
                            f'frame name needs ({MAX_TARGET_BYTES})')
        except Exception as exc:  # noqa: BLE001 - a callback never raises (shutting down)
            print(f'input gateway: {what} dropped: {type(exc).__name__}: {exc}',
                  file=sys.stderr, flush=True)

    def end_goals(self, reason):
        if self.action is not None:
            self.action.end_goals(reason)


class _ActionRelay:
    """FollowJointTrajectory served publicly, decided by the controller's own server."""

    def __init__(self, gateway, options):
        from control_msgs.action import FollowJointTrajectory
        from rclpy.action import ActionClient, ActionServer, CancelResponse
        from rclpy.callback_groups import ReentrantCallbackGroup
        self.gateway = gateway
        self.pending = {}  # id(goal message) -> the controller's goal handle
        self.running = {}  # public goal id bytes -> _Relayed
        group = ReentrantCallbackGroup()
        self.client: Any = ActionClient(gateway.node, FollowJointTrajectory,
                                   f'{options.internal}/follow_joint_trajectory',
                                   callback_group=group)
        self.server = ActionServer(
            gateway.node, FollowJointTrajectory, options.action,
            # rclpy awaits a coroutine goal callback (await_or_execute); its hint says sync
            execute_callback=self.execute, goal_callback=cast(Any, self.on_goal),
            handle_accepted_callback=self.on_accepted,
            cancel_callback=lambda public: self.on_cancel(public) or CancelResponse.ACCEPT,
            callback_group=group)
        self.retry = gateway.node.create_timer(RESULT_RETRY, self.ask_again,
                                               callback_group=group)

    async def on_goal(self, goal):
        """Refuse a goal beyond the bounds; otherwise the controller decides (an unexpected
        exception: rejected, said why, never escaping)."""
        try:
            return await self._decide(goal)
        except Exception as exc:  # noqa: BLE001 - a callback never raises
            return self._refuse(f'internal error {type(exc).__name__}: {exc}')

    async def _decide(self, goal):
        from rclpy.action import GoalResponse
        options = self.gateway.options
        names, points = len(goal.trajectory.joint_names), len(goal.trajectory.points)
        if names > options.max_names:
            return self._refuse(f"{names} joint names, more than the chain's "
                                f'{options.max_names} joints')
        if points > options.max_points:
            return self._refuse(f'{points} points, more than max_trajectory_points '
                                f'({options.max_points})')
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while not self.client.server_is_ready():
            if time.monotonic() > deadline:
                return self._refuse('the controller serves no goals (not configured)')
            time.sleep(0.02)
        relayed = _Relayed()
        inner = await self.client.send_goal_async(goal, feedback_callback=relayed.feedback)
        if inner is None or not inner.accepted:
            return GoalResponse.REJECT  # the controller has said why (its log)
        relayed.inner = inner
        self.pending[id(goal)] = relayed
        return GoalResponse.ACCEPT

    def _refuse(self, text):
        from rclpy.action import GoalResponse
        self.gateway.refuse(f'FollowJointTrajectory goal rejected: {text}')
        return GoalResponse.REJECT

    def on_accepted(self, public):
        relayed = self.pending.pop(id(public.request))
        relayed.public = public
        self.running[bytes(public.goal_id.uuid)] = relayed
        public.execute()

    def on_cancel(self, public):
        relayed = self.running.get(bytes(public.goal_id.uuid))
        if relayed is not None:
            relayed.inner.cancel_goal_async()

    async def execute(self, public):
        """Wait for the controller's result and end the public goal the same way."""
        from action_msgs.msg import GoalStatus
        from control_msgs.action import FollowJointTrajectory
        from rclpy.task import Future
        key = bytes(public.goal_id.uuid)
        relayed = self.running[key]
        relayed.done, relayed.executor = Future(), self.gateway.node.executor
        relayed.ask(time.monotonic())
        answer = await relayed.done
        self.running.pop(key, None)
        if isinstance(answer, str):  # the controller is gone
            result = FollowJointTrajectory.Result()
            from ..control.reference.trajectory_goal import INVALID_GOAL
            result.error_code, result.error_string = INVALID_GOAL, answer
            public.abort()
            return result
        if answer.status == GoalStatus.STATUS_SUCCEEDED:
            public.succeed()
        elif answer.status == GoalStatus.STATUS_CANCELED and public.is_cancel_requested:
            public.canceled()
        else:
            public.abort()
        return answer.result

    def ask_again(self):
        """Ask the controller again for each relayed goal's result that is late
        (_Relayed.ask_if_late): Fast DDS drops a service's answer whose reader it has not
        matched within 100 ms ('failed to send response (timeout)'), and a result lost so
        would leave the public goal without its one final result."""
        try:
            now = time.monotonic()
            for relayed in list(self.running.values()):
                relayed.ask_if_late(now)
        except Exception as exc:  # noqa: BLE001 - a callback never raises (shutting down)
            print(f'input gateway: result not asked again: {type(exc).__name__}: {exc}',
                  file=sys.stderr, flush=True)

    def end_goals(self, reason):
        """End every goal still running with ``reason`` (the controller is gone), then let
        the results go out."""
        entries = list(self.running.values())
        for relayed in entries:
            relayed.finish(reason)
        if entries:
            time.sleep(0.2)


class _Relayed:
    """One goal relayed: the public handle, the controller's handle, the pending end."""

    def __init__(self):
        self.public: Any = None
        self.inner: Any = None  # the controller's ClientGoalHandle
        self.done: Any = None
        self.executor: Any = None
        self.lock = threading.Lock()
        self.asked = 0.0  # [s] time.monotonic() of the last result request
        self.ended: float | None = None  # [s] when the status first said the goal ended

    def ask(self, now):
        """Ask the controller for the goal's result (answered when the goal ends)."""
        self.asked = now
        self.inner.get_result_async().add_done_callback(
            lambda future: self.finish(future.result()))

    def ask_if_late(self, now):
        """Ask again when the controller's status has said for RESULT_RETRY that the goal
        ended, and no result has come in the RESULT_RETRY since the last ask."""
        if self.inner is None or self.done is None or self.done.done():
            return
        if self.inner.status not in ENDED:
            return
        if self.ended is None:
            self.ended = now
        if now - self.ended >= RESULT_RETRY and now - self.asked >= RESULT_RETRY:
            self.ask(now)

    def feedback(self, message):
        public = self.public
        if public is not None and public.is_active:
            public.publish_feedback(message.feedback)

    def finish(self, answer):
        """The controller's result message, or why the goal ends without one (str)."""
        with self.lock:
            if self.done is None or self.done.done():
                return
            self.done.set_result(answer)
        # The executor resumes the waiting execute() only when it wakes: wake it.
        if self.executor is not None:
            self.executor.wake()


if __name__ == '__main__':
    # Out of DDS once main returns: the process ends without the interpreter's teardown
    # (its modules and threads took 0.3 s beside two CPU hogs, and in a whole suite past the
    # controller's STOP_TIMEOUT, after which it kills the gateway).
    _code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(_code)
