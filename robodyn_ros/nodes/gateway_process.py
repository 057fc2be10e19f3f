"""The controller's side of its input gateway (:mod:`.input_gateway`, the process that
receives trajectories and goals): starting it, a spare started before the controller joins
DDS, waiting until it is up, stopping it."""

import json
import os
import signal
import subprocess
import sys
import time

from ..errors import ConfigError
from . import input_gateway
from .input_gateway import INTERNAL, JOIN

__all__ = ['GatewayProcess', 'SpareGateway', 'start_gateway']

#: How long configure waits for the gateway to be up [s] (a Python process importing rclpy
#: and control_msgs: about 1 s on a busy 2-core machine).
START_TIMEOUT = 15.0
#: How long the controller waits for the gateway to end before it is killed [s].
STOP_TIMEOUT = 0.8


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
                '--parent', str(os.getpid()),
                '--target', node.resolve_topic_name('~/target_pose'),
                '--wrench', node.resolve_topic_name('~/target_wrench')]
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

    def interrupt(self) -> None:
        """SIGINT without waiting: the gateway ends its goals and exits on its own (the
        controller's exit, which does not wait for it)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)

    def reap(self, timeout: float) -> None:
        """Wait up to ``timeout`` [s] for an interrupted gateway to end, so that the
        controller's exit leaves no orphan for the system's init to collect (a container's
        init has been seen to take 1.5 s); one still running is left to end on its own."""
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            pass

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
    return [sys.executable, '-m', input_gateway.__name__]


def _environment() -> dict[str, str]:
    """This process's environment, with this package importable by the gateway."""
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
    path = os.environ.get('PYTHONPATH', '')
    return dict(os.environ, PYTHONPATH=package_root + (os.pathsep + path if path else ''))


class SpareGateway:
    """A gateway process started with the controller's process, before its imports: it
    imports rclpy meanwhile, joins DDS when told (:meth:`join`), and waits for its
    arguments on stdin (:class:`GatewayProcess` gives them at configure).

    Why: DDS discovery between two processes on one host takes 0.2–0.6 s when the second
    participant appears while the first still sends its initial announcements (Fast DDS:
    5 in its first 0.5 s), and 3 s when it appears later, until the first one's next
    periodic announcement. A gateway that joined at configure came a second after the
    controller, too late (1 start in 10 configured after 4.5–5 s). So the spare's imports
    overlap the controller's, and it joins (a placeholder node: rclpy.init alone does not
    join) as soon as the controller's node exists (:meth:`join`, from the node's
    constructor), well within the controller's announcements. In that order, not the spare
    first: a spare that joined first took the lower participant id, and the controller's
    first command then reached a process that was in DDS before it 3 s late in about half
    of the starts (measured: 9 of 20, against 1 of 20 in this order; docs/benchmarks.md).

    Args:
        enabled: start one (the node's ``input_gateway`` parameter); False: none.
    """

    def __init__(self, enabled: bool) -> None:
        self.proc: subprocess.Popen | None = None
        self._told = False  # join() sent
        if enabled:
            self.proc = subprocess.Popen(_command() + ['--spare'], env=_environment(),
                                         stdin=subprocess.PIPE)

    def join(self) -> None:
        """Tell the spare to join DDS now (once; it may still be importing rclpy)."""
        proc = self.proc
        if proc is None or proc.stdin is None or self._told:
            return
        self._told = True
        try:
            proc.stdin.write(JOIN + b'\n')
            proc.stdin.flush()
        except OSError:  # it ended meanwhile: start_gateway starts a new one
            pass

    def take(self) -> 'subprocess.Popen | None':
        """The spare process, once, if it is still running; else None."""
        proc, self.proc = self.proc, None
        return proc if proc is not None and proc.poll() is None else None

    def close(self) -> None:
        """End an unused spare (it exits when its stdin closes; killed if it does not)."""
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
