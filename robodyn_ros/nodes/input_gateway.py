"""The controller's input gateway: ~/joint_trajectory and FollowJointTrajectory goals are
received in a process of their own, checked for size there, and only then handed to the
controller.

Why a process: receiving a message costs its receiver in proportion to its size, before any
of robodyn's code runs. A 10.9 MB trajectory (a million joint names) is reassembled by the
receiving DDS participant, and a FollowJointTrajectory goal is decoded by rclpy in C while
the interpreter lock is held (0.3 s for a million names). In the controller's process either
stops the 1 kHz loop for tens to hundreds of milliseconds. Here they cost this process, and
the controller only ever receives inputs within its bounds.

The gateway, started by the configured controller node (:class:`GatewayProcess`), serves the
public names and forwards to the controller's private ones under ``<controller>/_inputs``:

* ``~/joint_trajectory``: the CDR bytes are counted (names and points, nothing decoded),
  forwarded unchanged when within bounds, otherwise the one-line refusal goes to
  ``_inputs/refused`` and the controller reports it (its log, /diagnostics).
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
import subprocess
import sys
import threading
import time
from typing import Any, cast

from ..errors import BagError, ConfigError

__all__ = ['GatewayProcess', 'INTERNAL', 'SpareGateway', 'main', 'start_gateway']

#: The controller's private namespace for what the gateway forwards (relative to its node).
INTERNAL = '_inputs'
#: How long configure waits for the gateway to be up [s] (a Python process importing rclpy
#: and control_msgs: about 1 s on a busy 2-core machine).
START_TIMEOUT = 15.0
#: How long the controller's process waits for a spare gateway to join DDS before it joins
#: itself [s] (the spare imports rclpy only: about 0.3 s).
JOIN_TIMEOUT = 1.5
#: How long the controller waits for the gateway to end before it is killed [s].
STOP_TIMEOUT = 0.8
#: How long a goal may wait for the controller's action server to be found [s].
ANSWER_TIMEOUT = 2.0


class GatewayProcess:
    """The gateway process of one configured controller (parent side).

    Args:
        node: the controller node (resolves the public and private names).
        max_points: the largest trajectory forwarded [points].
        max_names: the most joint names forwarded (the chain's joint count).
        action: serve FollowJointTrajectory too.
    """

    def __init__(self, node, max_points: int, max_names: int, action: bool,
                 spare: 'SpareGateway | None' = None):
        fqn = node.get_fully_qualified_name()
        args = ['--name', node.get_name() + '_inputs', '--namespace', node.get_namespace(),
                '--trajectory', node.resolve_topic_name('~/joint_trajectory'),
                '--internal', f'{fqn.rstrip("/")}/{INTERNAL}',
                '--max-points', str(max_points), '--max-names', str(max_names),
                '--parent', str(os.getpid())]
        if action:
            args += ['--action', f'{fqn.rstrip("/")}/follow_joint_trajectory']
        self.node = node
        proc = spare.take() if spare is not None else None
        if proc is not None and proc.stdin is not None:  # in DDS already: its arguments now
            try:
                proc.stdin.write((json.dumps(args) + '\n').encode())
                proc.stdin.close()
            except OSError:  # it ended meanwhile: a new one below
                proc = None
        self.proc = proc if proc is not None else subprocess.Popen(
            _command() + args, env=_environment(), stdin=subprocess.DEVNULL)

    def wait_ready(self, timeout: float = START_TIMEOUT):
        """Wait until the gateway's ``_inputs/ready`` publisher is seen here, so that an
        input sent once the controller is configured is not lost to a gateway still starting.

        The gateway creates that publisher only after its own writers and action client have
        matched the controller's endpoints (:meth:`_Gateway.matched`): discovery runs per
        side, and the controller seeing a gateway writer does not mean that writer has seen
        the controller's reader yet (its first message would go nowhere).

        Raises:
            ConfigError: the gateway exited, or was not up within ``timeout`` [s].
        """
        from std_msgs.msg import Empty
        ready = self.node.create_subscription(Empty, f'~/{INTERNAL}/ready', lambda _: None, 1)
        deadline = time.monotonic() + timeout
        try:
            while ready.get_publisher_count() == 0:
                code = self.proc.poll()
                if code is not None:
                    raise ConfigError(f'input_gateway: its process exited with code {code}; '
                                      'set input_gateway false to receive inputs in this '
                                      'process')
                if time.monotonic() > deadline:
                    self.close()
                    raise ConfigError(f'input_gateway: its process was not up within '
                                      f'{timeout:g} s; set input_gateway false to receive '
                                      'inputs in this process')
                time.sleep(0.01)
        finally:
            self.node.destroy_subscription(ready)

    def close(self):
        """Stop the gateway: SIGINT, then SIGKILL after STOP_TIMEOUT."""
        if self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(1.0)


def _command() -> list[str]:
    return [sys.executable, '-m', __name__]


def _environment() -> dict[str, str]:
    """This process's environment, with this package importable by the gateway."""
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
    path = os.environ.get('PYTHONPATH', '')
    return dict(os.environ, PYTHONPATH=package_root + (os.pathsep + path if path else ''))


class SpareGateway:
    """A gateway process started before the controller's own process joins DDS: it joins
    at once, says so, and waits for its arguments on stdin (:class:`GatewayProcess` gives
    them at configure).

    Why: DDS discovery between two processes on one host takes 0.2–0.6 s when the second
    participant appears while the first still sends its initial announcements (Fast DDS:
    5 in its first 0.5 s), and 2.5 s when it appears later, until the first one's next
    periodic announcement (measured: a parent 1 s old, half of the starts). A gateway
    started at configure came after the node's parameters and model, too late; the spare
    joins first and the controller right after it (:meth:`wait_joined`), so that each
    hears the other's first announcements.

    Args:
        enabled: start one (the node's ``input_gateway`` parameter); False: none.
    """

    def __init__(self, enabled: bool) -> None:
        self.proc: subprocess.Popen | None = None
        self._joined: int | None = None
        if enabled:
            read, write = os.pipe()
            try:
                self.proc = subprocess.Popen(
                    _command() + ['--spare', str(write)], env=_environment(),
                    stdin=subprocess.PIPE, pass_fds=(write,))
            finally:
                os.close(write)
            self._joined = read

    def wait_joined(self, timeout: float = JOIN_TIMEOUT) -> bool:
        """Wait until the spare has joined DDS (at most ``timeout`` [s]); True if it did."""
        import select
        read, self._joined = self._joined, None
        if read is None:
            return False
        try:
            ready, _, _ = select.select([read], [], [], timeout)
            return bool(ready) and os.read(read, 1) == b'1'
        finally:
            os.close(read)

    def take(self) -> 'subprocess.Popen | None':
        """The spare process, once, if it is still running; else None."""
        proc, self.proc = self.proc, None
        return proc if proc is not None and proc.poll() is None else None

    def close(self) -> None:
        """End an unused spare (it exits when its stdin closes; killed if it does not)."""
        if self._joined is not None:
            os.close(self._joined)
            self._joined = None
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(1.0)


def start_gateway(node, config, joints: int,
                  spare: SpareGateway | None = None) -> 'GatewayProcess | None':
    """The gateway process of a controller node being configured with ``config`` (a
    ControllerConfig) for ``joints`` joints, or None when ``input_gateway`` is off: the
    ``spare`` when one is running, else a new one. Started before the kernels warm up, so
    that its imports overlap them (GatewayProcess.wait_ready then waits less); it serves
    the action only where the node will (trajectory_interfaces.serves_action)."""
    if not config.input_gateway:
        return None
    from .trajectory_interfaces import serves_action
    return GatewayProcess(node, config.max_trajectory_points, joints, serves_action(config),
                          spare)


def _parse(argv):
    import argparse
    parser = argparse.ArgumentParser(prog='robodyn_input_gateway')
    parser.add_argument('--name', required=True)
    parser.add_argument('--namespace', default='/')
    parser.add_argument('--trajectory', required=True)
    parser.add_argument('--internal', required=True)
    parser.add_argument('--action', default='')
    parser.add_argument('--max-points', type=int, required=True)
    parser.add_argument('--max-names', type=int, required=True)
    parser.add_argument('--parent', type=int, required=True)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    """The gateway process: serve until SIGINT/SIGTERM or until the parent is gone. With
    ``--spare [FD]`` it joins DDS first, writes one byte to FD, and then reads its
    arguments, one JSON list, from stdin (SpareGateway); an end of stdin before them ends
    it."""
    argv = sys.argv[1:] if argv is None else argv
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    import rclpy
    from rclpy.executors import MultiThreadedExecutor
    from rclpy.signals import SignalHandlerOptions

    from .node_support import EXIT_DEADLINE, spin_in_thread
    rclpy.init(args=[], signal_handler_options=SignalHandlerOptions.NO)
    if argv[:1] == ['--spare']:
        if len(argv) > 1:  # joined: the controller's process may join now
            os.write(int(argv[1]), b'1')
            os.close(int(argv[1]))
        line = sys.stdin.readline()
        if not line.strip():
            rclpy.try_shutdown()
            return 0
        argv = json.loads(line)
    options = _parse(argv)
    gateway = _Gateway(options)
    executor = MultiThreadedExecutor(num_threads=3)
    executor.add_node(gateway.node)
    thread = spin_in_thread(executor, 'robodyn_inputs')
    # Every 10 ms until announced (the controller's configure waits for it), then every 0.1 s:
    # serve until a signal or until the controller is gone.
    while not stop.wait(0.1 if gateway.announced else 0.01):
        if os.getppid() != options.parent:  # the controller is gone
            break
        gateway.announce_when_matched()
    # Gone within EXIT_DEADLINE even if the shutdown below hangs (node_support._Stop).
    faulthandler.dump_traceback_later(EXIT_DEADLINE, exit=True)
    gateway.end_goals('controller stopped')
    executor.shutdown(timeout_sec=0.3)
    thread.join(timeout=0.3)
    rclpy.try_shutdown()
    return 0


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
        relayed.inner.get_result_async().add_done_callback(
            lambda future: relayed.finish(future.result()))
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
        self.public = self.inner = self.done = self.executor = None
        self.lock = threading.Lock()

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
    sys.exit(main())
