"""The fault campaign's harness: the controller in its own process, fed and probed from this
one, every command recorded with its monotonic receipt time, and the invariants checked.

A case (see cases.py) starts the controller with its parameters, runs a script against it
(states, trajectories, action goals, parameter sets, lifecycle transitions, signals) and
names what it expects; :func:`run_case` returns a :class:`Result` with every invariant's
verdict and the figures of the summary (worst step, longest silence, exit time).
"""

from dataclasses import dataclass, field
import gc
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import rclpy
from rclpy.qos import QoSProfile, ReliabilityPolicy

from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.io.cdr import encode_joint_state, float64_multi_array, parse_joint_state
from robodyn_ros.model import load_urdf
from robodyn_ros.model.registry import PANDA_HOME, robot_path

__all__ = ['Harness', 'Result', 'run_case', 'PANDA_Q0', 'STEP_TOLERANCE']

PANDA_Q0 = np.array(PANDA_HOME)
NAMES = [f'panda_joint{i}' for i in range(1, 8)]
#: Torque steps and the safe command are compared with this tolerance [N m].
STEP_TOLERANCE = 1e-6
#: The fake arm (a sinusoid that ignores the commands) would trip the tracking guard in
#: every case: it is off here, on in the cases that test it.
BASE_PARAMETERS = {'robot': 'panda', 'tip_link': 'panda_hand', 'autostart': True,
                   'kp': [400.0], 'kd': [40.0], 'max_tracking_error': 0.0}
_MODEL = None


def model():
    """The Panda chain the controller loads (for the hold torque g(q))."""
    global _MODEL
    if _MODEL is None:
        _MODEL = load_urdf(robot_path('panda')[0], tip_link='panda_hand')
    return _MODEL


def trajectory(points, duration, delta=0.05):
    """A Panda JointTrajectory of ``points`` points over ``duration`` [s] from Q0 to Q0 +
    ``delta`` on every joint."""
    from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
    msg = JointTrajectory()
    msg.joint_names = list(NAMES)
    base = PANDA_Q0.tolist()
    for k in range(points):
        t = duration * (k + 1) / points
        p = JointTrajectoryPoint()
        p.positions = [v + delta * (k + 1) / points for v in base]
        p.time_from_start.sec = int(t)
        p.time_from_start.nanosec = int(round((t - int(t)) * 1e9)) % 1_000_000_000
        msg.points.append(p)
    return msg


def hostile_trajectory(kind, duration=1.0, delta=0.1):
    """One point at ``duration`` [s], Q0 + ``delta``, made hostile: 'velocities' (1e6
    rad/s at the point: the interpolation leaves the limits), 'velocities_10' (10 rad/s,
    the Panda's limit is 2.175), 'names' (a million joint names), 'negative_time'
    (time_from_start -1 s)."""
    from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
    point = JointTrajectoryPoint(positions=(PANDA_Q0 + delta).tolist())
    point.time_from_start.sec = int(duration)
    point.time_from_start.nanosec = int(round((duration % 1) * 1e9))
    names = list(NAMES)
    if kind.startswith('velocities'):
        point.velocities = [10.0 if kind == 'velocities_10' else 1e6] * 7
        point.accelerations = [0.0] * 7
    elif kind == 'names':
        names = names + [f'joint_{k}' for k in range(1_000_000 - 7)]
        point.positions = [0.0] * len(names)
    elif kind == 'negative_time':
        point.time_from_start.sec, point.time_from_start.nanosec = -1, 0
    return JointTrajectory(joint_names=names, points=[point])


def _ros_value(value):
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, (list, tuple)):
        return '[' + ','.join(_ros_value(v) for v in value) + ']'
    return str(value)


@dataclass
class Result:
    """One case's verdicts: invariant -> (passed, detail) and the summary figures."""

    name: str
    checks: dict = field(default_factory=dict)
    worst_step: float = 0.0  # largest |change| of a torque between messages [N m]
    # Longest gap between commands while commanding [s]; None: the case does not check it.
    longest_silence: float | None = 0.0
    exit_time: float | None = None  # signal or shutdown to process exit [s]
    commands: int = 0
    lost: int = 0  # commands the probe's reader lost (publication sequence numbers)
    output: str = ''

    def check(self, invariant, passed, detail=''):
        """Record an invariant's verdict."""
        self.checks[invariant] = (bool(passed), detail)

    @property
    def passed(self):
        """True when every invariant held."""
        return all(ok for ok, _ in self.checks.values())

    def failures(self):
        """'invariant: detail' of each failed invariant."""
        return [f'{k}: {d}' for k, (ok, d) in self.checks.items() if not ok]


class Harness:
    """The controller process and the probe node of one case.

    Args:
        parameters: controller parameters over BASE_PARAMETERS (None drops one).
        env: extra environment of the controller process.
        stamp_start: the fake states' first stamp [s] (0: simulated time from its start).
    """

    def __init__(self, parameters=None, env=None, stamp_start=1000.0, raw_args=(),
                 references=False):
        params = dict(BASE_PARAMETERS)
        for key, value in (parameters or {}).items():
            if value is None:
                params.pop(key, None)
            else:
                params[key] = value
        self.parameters = params
        args = [a for k, v in params.items() for a in ('-p', f'{k}:={_ros_value(v)}')]
        self.log = tempfile.NamedTemporaryFile('w+b', suffix='.log', delete=False)
        environment = dict(os.environ, PYTHONUNBUFFERED='1', **(env or {}))
        self.t_start = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, '-m', 'robodyn_ros.nodes.controller', '--ros-args', *args,
             *raw_args], env=environment, stdout=self.log, stderr=subprocess.STDOUT)
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node('fault_probe', context=self.context)
        self.commands = []  # (monotonic receipt time, effort), reliable
        # (publisher gid, publication sequence number) of each command: a reader that falls
        # behind the writer's keep-last history loses messages, and the step across a lost
        # one is several messages' worth; the step check allows exactly that many
        self.sequence = []
        self.arrivals = []  # monotonic receipt times of the best-effort copy
        self.diagnostics = []  # (time, level, message)
        self.references = []  # (time, stamp [s], positions)
        self.state_log = []  # (time, q) of every state published
        self.stamp_start = stamp_start
        self.feeding = False
        self.feed_mode = 'normal'
        self._subscribe(references)
        from rclpy.executors import SingleThreadedExecutor
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.spin_thread = threading.Thread(target=self._spin, daemon=True)
        self.spin_thread.start()
        self.feeder = None
        self.exit_time = None
        self.stop_time = None  # when the script stopped commanding on purpose
        self.pauses = []  # [start, end] of intentional inactive spells

    def _spin(self):
        try:
            self.executor.spin()
        except Exception:  # noqa: BLE001 - context shut down at the end of the case
            pass

    def _subscribe(self, references):
        from diagnostic_msgs.msg import DiagnosticArray
        from sensor_msgs.msg import JointState
        from std_msgs.msg import Float64MultiArray
        node = self.node
        self.state_qos = QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT)
        self.state_pub = node.create_publisher(JointState, 'joint_states', self.state_qos)
        self.second_pub = None  # see second_source
        reliable = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
        topic = self.parameters.get('command_topic', 'effort_controller/commands')
        self.command_topic = '/' + topic.lstrip('/') if isinstance(topic, str) else ''
        if isinstance(topic, str) and re.match(r'^/?[A-Za-z_][A-Za-z0-9_/]*$', topic):
            node.create_subscription(Float64MultiArray, topic, self._on_command, reliable,
                                     raw=True)
            # Silences are timed on a best-effort copy of the stream: a reliable reader
            # holds every message behind a lost one until the writer repairs it, which
            # would show the transport's repair delay as a silence of the controller.
            node.create_subscription(Float64MultiArray, topic, self._on_arrival, QoSProfile(
                depth=1000, reliability=ReliabilityPolicy.BEST_EFFORT), raw=True)
        node.create_subscription(DiagnosticArray, '/diagnostics', self._on_diagnostics, 100)
        if references:  # 1 kHz: only where a case needs them (the probe must keep up)
            node.create_subscription(JointState, '/robodyn_controller/reference',
                                     self._on_reference, reliable, raw=True)

    def _on_command(self, raw, info):
        self.commands.append((time.monotonic(), float64_multi_array(raw)))
        gid = info.get('publisher_gid') or {}
        self.sequence.append((bytes(gid.get('data', b'')),
                              info.get('publication_sequence_number'),
                              info.get('source_timestamp')))

    def _on_arrival(self, _raw):
        self.arrivals.append(time.monotonic())

    def _on_diagnostics(self, msg):
        for status in msg.status:
            if status.name == 'robodyn_controller':
                self.diagnostics.append((time.monotonic(), status.level[0]
                                         if isinstance(status.level, bytes) else status.level,
                                         status.message))

    def _on_reference(self, raw):  # CDR bytes: no message objects at 1 kHz in the probe
        stamp, _, position, _, _ = parse_joint_state(raw)
        self.references.append((time.monotonic(), stamp, position))

    # -- inputs -----------------------------------------------------------------------
    def q_at(self, t):
        """The fake arm's position at harness time t [s]: 0.2 rad sinusoid around Q0."""
        return PANDA_Q0 + 0.2 * np.sin(2 * np.pi * 0.25 * t)

    def state(self, t, q=None, stamp=None, names=NAMES, velocity=None):
        """A JointState of the fake arm at time t, as CDR bytes (published as they are:
        the probe must keep 1 kHz beside the controller on 2 cores)."""
        q = self.q_at(t) if q is None else q
        if velocity is None:
            velocity = 0.2 * 2 * np.pi * 0.25 * np.cos(2 * np.pi * 0.25 * t) * np.ones(7)
        stamp = self.stamp_start + t if stamp is None else stamp
        return encode_joint_state(stamp, list(names), q[:len(names)],
                                  velocity[:len(names)])

    def wait_command_publisher(self, timeout=60.0, settle=1.0):
        """Wait until the controller's command publisher is in the graph, then ``settle``
        [s] for the reliable match: a command sent before would never reach this probe, and
        the first command is checked. False on timeout or exit."""
        deadline = time.monotonic() + timeout
        while self.node.count_publishers(self.command_topic) == 0:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        time.sleep(settle)
        return True

    def second_source(self):
        """A second joint_states publisher ('two_sources' is two publishers, as in a real
        cell), created once."""
        from sensor_msgs.msg import JointState
        if self.second_pub is None:
            self.second_pub = self.node.create_publisher(JointState, 'joint_states',
                                                         self.state_qos)

    def feed(self, on=True):
        """Start (stop) the 1 kHz state stream (its own thread, skipping late ticks)."""
        self.feeding = on
        if on and self.feeder is None:
            self.feeder = threading.Thread(target=self._feed, daemon=True)
            self.feeder.start()

    def _feed(self):
        t0 = time.monotonic()
        k = 0
        while self.feeder is not None:
            k += 1
            due = t0 + k * 1e-3
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            elif delay < -1e-3:
                k = int((time.monotonic() - t0) / 1e-3)
                continue
            if not self.feeding:
                continue
            t = (k - 1) * 1e-3  # the stream's first state is stamped stamp_start exactly
            try:
                q, msg = self._feed_message(t, k)
                self.state_log.append((time.monotonic(), q))
                second = self.feed_mode == 'two_sources' and k % 2 and self.second_pub
                (self.second_pub if second else self.state_pub).publish(msg)
            except Exception:  # noqa: BLE001 - context shut down at the end of the case
                return

    def _feed_message(self, t, k):
        """(q, CDR bytes) of tick k at time t under the current feed mode."""
        mode, q = self.feed_mode, self.q_at(t)
        if mode == 'two_sources' and k % 2:
            return q + 0.3, self.state(t, q + 0.3)
        if mode == 'alternating_clock':
            return q, self.state(t, stamp=self.stamp_start + t + (5.0 if k % 2 else 0.0))
        if mode == 'catching_up' and k % 200 < 5:
            # a starved driver catching up: five states 1 ms apart in stamps, each 19 mrad
            # ahead (the 2.2 rad/s guard allows 2.4 mrad per ms)
            ahead = q + 0.019 * (k % 200 + 1)
            return ahead, self.state(t, ahead)
        if mode == 'alternating_rejects':
            if k % 2:
                return q, self.state(t, names=NAMES[:-1])
            return q, self.state(t, velocity=np.full(7, np.nan))
        return q, self.state(t)

    def wait_commands(self, count, timeout=60.0):
        """Wait until ``count`` commands arrived; False on timeout or process exit."""
        deadline = time.monotonic() + timeout
        while len(self.commands) < count and time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            time.sleep(0.01)
        return len(self.commands) >= count

    def wait_output(self, text, timeout=60.0):
        """Wait until the controller printed ``text``; False on timeout or exit."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.output():
                return True
            if self.proc.poll() is not None:
                return text in self.output()
            time.sleep(0.02)
        return False

    @staticmethod
    def trajectory(points, duration, delta=0.05):
        """A JointTrajectory of ``points`` points over ``duration`` [s] from Q0 (+ delta)."""
        return trajectory(points, duration, delta)

    def goal_process(self, points, duration, delta, kind='plain'):
        """A FollowJointTrajectory goal sent from a process of its own (its serializer
        holds that process's interpreter lock, not the probe's): the Popen; it prints
        'refused' or 'result CODE TEXT'. ``kind``: see goal_client.py."""
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'goal_client.py')
        return subprocess.Popen([sys.executable, script, str(points), str(duration),
                                 str(delta), kind], stdout=subprocess.PIPE, text=True)

    def publish_trajectory(self, msg):
        """Publish on the controller's ~/joint_trajectory (reliable)."""
        from trajectory_msgs.msg import JointTrajectory
        pub = self.node.create_publisher(JointTrajectory, '/robodyn_controller/joint_trajectory',
                                         10)
        deadline = time.monotonic() + 5.0
        while pub.get_subscription_count() == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        pub.publish(msg)

    def transition(self, label, timeout=5.0):
        """A lifecycle transition by label (configure, activate, deactivate, cleanup,
        shutdown); True when it succeeded."""
        from lifecycle_msgs.msg import Transition
        from lifecycle_msgs.srv import ChangeState
        ids = {'configure': Transition.TRANSITION_CONFIGURE,
               'activate': Transition.TRANSITION_ACTIVATE,
               'deactivate': Transition.TRANSITION_DEACTIVATE,
               'cleanup': Transition.TRANSITION_CLEANUP,
               'shutdown': Transition.TRANSITION_ACTIVE_SHUTDOWN}
        client = self.node.create_client(ChangeState, '/robodyn_controller/change_state')
        if not client.wait_for_service(timeout_sec=timeout):
            return False
        future = client.call_async(ChangeState.Request(transition=Transition(id=ids[label])))
        return self.wait_future(future, timeout) and future.result().success

    def set_parameter(self, name, value, timeout=5.0):
        """Set one parameter at runtime; (successful, reason)."""
        from rcl_interfaces.srv import SetParameters
        from rclpy.parameter import Parameter
        if getattr(self, 'parameter_client', None) is None:  # one client: a new one per call
            self.parameter_client = self.node.create_client(  # is a discovery storm
                SetParameters, '/robodyn_controller/set_parameters')
        client = self.parameter_client
        if not client.wait_for_service(timeout_sec=timeout):
            return False, 'no service'
        message = Parameter(name, value=value).to_parameter_msg()
        request = SetParameters.Request(parameters=[message])
        future = client.call_async(request)
        if not self.wait_future(future, timeout):
            return False, 'timeout'
        result = future.result().results[0]
        return result.successful, result.reason

    @staticmethod
    def wait_future(future, timeout):
        """Wait up to ``timeout`` [s] for an rclpy future; True when done."""
        deadline = time.monotonic() + timeout
        while not future.done() and time.monotonic() < deadline:
            time.sleep(0.005)
        return future.done()

    def action_client(self):
        """A FollowJointTrajectory client of the controller's action."""
        from control_msgs.action import FollowJointTrajectory
        from rclpy.action import ActionClient
        client = ActionClient(self.node, FollowJointTrajectory,
                              '/robodyn_controller/follow_joint_trajectory')
        client.wait_for_server(timeout_sec=10.0)
        return client

    def send_goal(self, client, trajectory, timeout=10.0):
        """Send a goal; (goal handle or None, result future or None)."""
        from control_msgs.action import FollowJointTrajectory
        goal = FollowJointTrajectory.Goal(trajectory=trajectory)
        future = client.send_goal_async(goal)
        if not self.wait_future(future, timeout):
            return None, None
        handle = future.result()
        if not handle.accepted:
            return handle, None
        return handle, handle.get_result_async()

    def signal(self, signum=signal.SIGINT, timeout=5.0):
        """Send a signal; the time until the process exited [s] (None: still alive after
        ``timeout``, then killed)."""
        if self.stop_time is None:
            self.stop_time = time.monotonic()
        t0 = time.monotonic()
        self.proc.send_signal(signum)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        self.exit_time = time.monotonic() - t0
        return self.exit_time

    def pause(self):
        """The controller stops commanding on purpose (inactive) until :meth:`resume`."""
        self.pauses.append([time.monotonic(), None])

    def resume(self):
        """Commanding again (see :meth:`pause`)."""
        self.pauses[-1][1] = time.monotonic()

    def mark_stop(self):
        """The script stops commanding on purpose from now (gaps after it are not
        silences)."""
        self.stop_time = time.monotonic()

    def output(self):
        """What the controller printed so far."""
        self.log.flush()
        with open(self.log.name, 'rb') as handle:
            return handle.read().decode(errors='replace')

    def close(self):
        """Stop the stream, end the process (SIGKILL if it hangs), shut the probe down."""
        feeder, self.feeder = self.feeder, None
        if feeder is not None:
            feeder.join(timeout=1.0)
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        time.sleep(0.2)
        self.executor.shutdown(timeout_sec=1.0)
        self.spin_thread.join(timeout=2.0)
        self.node.destroy_node()
        rclpy.try_shutdown(context=self.context)
        self.log.close()
        os.unlink(self.log.name)


def run_case(case):
    """Run one case (cases.Case); its Result.

    The probe's garbage collector is off while a case runs (collected before): a full
    collection over everything a campaign has imported and kept stalled the probe's stream
    and receipt for about 100 ms, which read as a silence of the controller.
    """
    if case.cli is not None:
        return _run_cli_case(case)
    gc.collect()
    gc.disable()
    try:
        return _run_controller_case(case)
    finally:
        gc.enable()


def _run_controller_case(case):
    harness = Harness(case.parameters, case.env, case.stamp_start, case.raw_args,
                      case.references)
    result = Result(case.name)
    try:
        case.script(harness, result)
    except Exception as exc:  # noqa: BLE001 - a script failure is a failed case, said why
        result.check('script', False, f'{type(exc).__name__}: {exc}')
    finally:
        output = harness.output()
        alive = harness.proc.poll() is None
        harness.close()
    result.output = output
    result.commands = len(harness.commands)
    if harness.exit_time is not None:
        result.exit_time = harness.exit_time
    _check_common(case, harness, result, output, alive)
    return result


def _run_cli_case(case):
    """A ``robodyn`` command on a bad input made by ``case.cli(folder)``: exit 2 within 60 s
    with one line on stderr naming ``case.words``, no traceback."""
    result = Result(case.name)
    with tempfile.TemporaryDirectory() as folder:
        argv = case.cli(folder)
        try:
            out = subprocess.run([sys.executable, '-m', 'robodyn_ros.cli', *argv],
                                 capture_output=True, text=True, timeout=60, cwd=folder)
        except subprocess.TimeoutExpired:
            result.check('ends within 60 s', False, 'hung')
            return result
    err = out.stderr.strip()
    result.output = out.stdout + out.stderr
    if case.exit_code != 2:  # a verdict, not a refusal: it must say what it could not use
        result.check(f'exit {case.exit_code}', out.returncode == case.exit_code,
                     f'exit {out.returncode}: {result.output[-300:]}')
        result.check('names what it could not use',
                     all(w in result.output for w in case.words), result.output[-300:])
        result.check('no traceback', 'Traceback' not in result.output, err[-300:])
        return result
    result.check('exit 2', out.returncode == 2, f'exit {out.returncode}')
    result.check('one line naming the fault', len(err.splitlines()) == 1 and
                 all(w in err for w in case.words), err[-300:])
    result.check('no traceback', 'Traceback' not in result.output, err[-300:])
    return result


def _check_common(case, h, result, output, alive):
    """The invariants every case checks."""
    effort = model().effort_limits
    commands = h.commands
    values = np.array([c for _, c in commands]) if commands else np.zeros((0, 7))
    finite = bool(np.all(np.isfinite(values)))
    result.check('finite and within effort limits',
                 finite and bool(np.all(np.abs(values) <= effort + 1e-9)),
                 f'{len(commands)} commands')
    rate = float(h.parameters.get('max_torque_rate', 1000.0))
    period = 1.0 / float(h.parameters.get('rate', 1000.0))
    step = rate * period
    if len(values) > 1 and finite:
        messages = _messages_between(h.sequence, len(values))
        steps = np.abs(np.diff(values, axis=0)).max(axis=1) / messages
        result.worst_step = float(steps.max())
        result.lost = int((messages - 1).sum())
        k = int(np.argmax(steps))
        result.check('no step above max_torque_rate x period', steps.max() <= step +
                     STEP_TOLERANCE, f'worst {steps.max():.4g} N m per message at message '
                     f'{k + 1} (limit {step:.4g}; {result.lost} messages lost to the probe)')
    _check_references(case, h, result)
    if commands:
        _check_first(h, result, commands[0], step)
        _check_silence(case, h, result, commands)
    if 'Traceback' in output:
        result.check('no traceback', False, output[output.index('Traceback'):][:300])
    else:
        result.check('no traceback', True)
    _check_log_rate(result, output)
    if case.expect_exit:
        result.check('exits within 2 s', result.exit_time is not None and
                     result.exit_time <= 2.0, f'exit after {result.exit_time} s')
    elif alive is False and not case.may_exit:
        result.check('process alive', False, 'the controller exited on its own')


def _messages_between(sequence, count):
    """(count - 1,) the controller's messages between consecutive received commands: the
    difference of their publication sequence numbers from the same publisher (1 across a
    new publisher, or when the numbers are unknown)."""
    out = np.ones(count - 1)
    if len(sequence) != count:
        return out
    for k in range(1, count):
        (gid0, seq0, _), (gid1, seq1, _) = sequence[k - 1], sequence[k]
        if gid0 == gid1 and seq0 is not None and seq1 is not None and seq1 > seq0:
            out[k - 1] = seq1 - seq0
    return out


def _check_references(case, h, result):
    """Every recorded reference sample inside the joint limits shrunk by
    reference_margin (or where the arm was held: a hold is the arm's own position)."""
    if not h.references:
        return
    margin = float(h.parameters.get('reference_margin', 0.05))
    lower, upper = model().lower + margin, model().upper - margin
    q = np.array([r[2] for r in h.references])
    outside = (q < lower - 1e-9) | (q > upper + 1e-9)
    result.check('reference inside the limits minus reference_margin', not outside.any(),
                 f'{int(outside.any(axis=1).sum())} samples outside, e.g. '
                 f'{q[outside.any(axis=1)][0].round(3).tolist()}' if outside.any() else
                 f'{len(q)} samples')


def _check_first(h, result, first, step):
    """The first command starts from the hold torque at the state it answers (g(q) from an
    independent evaluation) within one rate-limit step, or from zero."""
    t, effort = first
    if h.parameters.get('include_gravity', True) is False or \
            h.parameters.get('initial_output', 'hold') == 'zero':
        hold = np.zeros(7)
    else:
        q = min(h.state_log, key=lambda s: abs(s[0] - t))[1] if h.state_log else PANDA_Q0
        hold = RigidBodyDynamics(model()).gravity_vector(q)
    gap = float(np.max(np.abs(effort - hold)))
    result.check('first command within a step of the hold torque', gap <= step + 0.5,
                 f'{gap:.4g} N m from g(q) (step {step:.4g}, + 0.5 N m for the state it '
                 'answered)')


def _check_silence(case, h, result, commands):
    """No gap above state_timeout + 2 periods between commands from the first command to
    the script's stop (or the end)."""
    timeout = float(h.parameters.get('state_timeout', 0.05))
    period = 1.0 / float(h.parameters.get('rate', 1000.0))
    end = h.stop_time if h.stop_time is not None else commands[-1][0]
    wire = _wire_gaps(h, commands, end)
    if wire is not None:  # the controller's own gaps, from its publisher's stamps
        times, gaps = wire
    else:
        times = np.array([t for t in h.arrivals or [t for t, _ in commands]
                          if commands[0][0] <= t <= end])
        if len(times) < 2:
            return
        gaps = np.diff(times)
    for start, stop in h.pauses:  # inactive on purpose: not a silence
        stop = stop if stop is not None else np.inf
        gaps[(times[1:] >= start) & (times[:-1] <= stop)] = 0.0
    result.longest_silence = float(gaps.max()) if case.check_silence else None
    k = int(np.argmax(gaps))
    if case.check_silence:
        result.check('no silence above state_timeout + 2 periods',
                     gaps.max() <= timeout + 2 * period + case.silence_slack,
                     f'longest {gaps.max() * 1e3:.1f} ms (limit '
                     f'{(timeout + 2 * period + case.silence_slack) * 1e3:.1f} ms), '
                     f"{times[k] - times[0]:.3f} s after the first command; the probe's own "
                     f'state stream paused {_probe_pause(h, times[k], times[k + 1]) * 1e3:.1f} '
                     'ms across it')


def _wire_gaps(h, commands, end):
    """(receipt times, gaps [s]) of the commands up to ``end``, the gaps taken from the
    controller's publication stamps (source_timestamp): the time between two messages on
    the wire, not the probe's receipt (whose executor can stall on its own). Across
    messages the probe lost (publication sequence numbers), the gap is the span divided by
    the messages in it. None when the stamps are unknown."""
    seq = h.sequence
    if len(seq) != len(commands) or any(s[2] is None or s[1] is None for s in seq):
        return None
    keep = [k for k, (t, _) in enumerate(commands) if t <= end]
    if len(keep) < 2:
        return None
    times = np.array([commands[k][0] for k in keep])
    stamps = np.array([seq[k][2] for k in keep], dtype=float) * 1e-9
    numbers = np.array([seq[k][1] for k in keep], dtype=float)
    same = np.array([seq[k][0] == seq[k - 1][0] for k in keep[1:]])
    steps = np.where(same & (np.diff(numbers) >= 1), np.diff(numbers), 1.0)
    gaps = np.diff(stamps) / steps
    gaps[~same] = np.diff(times)[~same]  # a new publisher (reconfigured): as received
    return times, np.maximum(gaps, 0.0)


def _probe_pause(h, start, stop):
    """Longest pause [s] of the probe's own state stream overlapping [start, stop]: a
    silence the probe shares was not (only) the controller's."""
    sent = np.array([t for t, _ in h.state_log])
    inside = sent[(sent >= start) & (sent <= stop)]
    before, after = sent[sent < start], sent[sent > stop]
    edges = np.concatenate([before[-1:], inside, after[:1]])
    return float(np.diff(edges).max()) if len(edges) > 1 else float(stop - start)


_LOG = re.compile(r'^\[(INFO|WARN|ERROR)\] \[(\d+)\.\d+\] \[robodyn_controller\]: (.*)$')


def _check_log_rate(result, output):
    """At most one log line per kind of event (numbers blanked) per second (+1 at a second's
    edge)."""
    seen = {}
    for line in output.splitlines():
        match = _LOG.match(line.strip())
        if not match:
            continue
        kind = re.sub(r'[-+]?\d[\d.e+-]*', '#', match.group(3))
        key = (kind, int(match.group(2)))
        seen[key] = seen.get(key, 0) + 1
    worst = max(seen.values(), default=0)
    kind = max(seen, key=seen.get)[0][:80] if seen else ''
    result.check('at most one log line per event kind per second', worst <= 2,
                 f'{worst} lines of {kind!r} in one second' if worst > 2 else '')
