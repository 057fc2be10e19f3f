"""The fault campaign's probe: the controller in its own process, fed and watched from this
one, every command recorded with its monotonic receipt time (and its publication sequence
number, so that a message the probe's reader lost is not read as a step)."""

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

import numpy as np
import rclpy
from rclpy.qos import QoSProfile, ReliabilityPolicy

from robodyn_ros.defaults import CONTROLLER_NAME, REFERENCE_TOPIC
from robodyn_ros.io import console_log
from robodyn_ros.io.cdr import encode_joint_state, float64_multi_array, parse_joint_state
from robodyn_testing import environment

from .fixtures import NAMES, PANDA_Q0, trajectory
from .stall_witness import StallWitness

__all__ = ['Harness', 'BASE_PARAMETERS']

#: The fake arm (a sinusoid that ignores the commands) would trip the tracking guard in
#: every case: it is off here, on in the cases that test it.
BASE_PARAMETERS = {'robot': 'panda', 'tip_link': 'panda_hand', 'autostart': True,
                   'kp': [400.0], 'kd': [40.0], 'max_tracking_error': 0.0}


def _ros_value(value):
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, (list, tuple)):
        return '[' + ','.join(_ros_value(v) for v in value) + ']'
    return str(value)


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
        self.witness = StallWitness()  # machine-wide stalls, told from the controller's own
        environment = dict(os.environ, PYTHONUNBUFFERED='1', **(env or {}))
        self.t_start, self.wall_start = time.monotonic(), time.time()
        self.proc = subprocess.Popen(
            [sys.executable, '-m', 'robodyn_ros.nodes.controller_main', '--ros-args', *args,
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
        # {watchdog expiry: how late the machine woke it} [s], CLOCK_MONOTONIC, as the
        # controller reports them (nodes/scheduler_latency.py)
        self.wakeups: dict[float, float] = {}
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
            node.create_subscription(JointState, REFERENCE_TOPIC,
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
            if status.name == CONTROLLER_NAME:
                self.diagnostics.append((time.monotonic(), status.level[0]
                                         if isinstance(status.level, bytes) else status.level,
                                         status.message))
                values = {kv.key: kv.value for kv in status.values}
                if 'watchdog_expiry' in values:
                    self.wakeups[float(values['watchdog_expiry'])] = \
                        float(values['watchdog_wakeup_ms']) * 1e-3

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
                second = self.second_pub if self.feed_mode == 'two_sources' and k % 2 \
                    else None
                (second or self.state_pub).publish(msg)
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

    def answered(self, n0, t0, t1):
        """(commands published, states sent) between monotonic t0 and t1; commands counted
        by publication sequence number from command index n0 (none lost to our reader)."""
        states = sum(1 for t, _ in self.state_log if t0 <= t <= t1)
        numbers = [s[1] for s in self.sequence[n0:] if s[1] is not None]
        published = numbers[-1] - numbers[0] + 1 if numbers else len(self.commands) - n0
        return published, states

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
    def trajectory(points, duration, delta=0.05, lead=0.0):
        """A JointTrajectory of ``points`` points over (lead, ``duration``] [s] from Q0
        (+ delta): fixtures.trajectory."""
        return trajectory(points, duration, delta, lead)

    def goal_process(self, points, duration, delta, kind='plain', where='goal'):
        """A FollowJointTrajectory goal (``where`` 'topic': a JointTrajectory on
        ~/joint_trajectory) sent from a process of its own (its serializer holds that
        process's interpreter lock, not the probe's): the Popen; it prints 'refused' or
        'result CODE TEXT' ('published'). ``kind``: see goal_client.py."""
        return subprocess.Popen([sys.executable, '-m', 'robodyn_testing.faults.goal_client',
                                 str(points), str(duration), str(delta), kind, where],
                                stdout=subprocess.PIPE, text=True, env=environment())

    def publish_trajectory(self, msg):
        """Publish on the controller's ~/joint_trajectory (reliable)."""
        from trajectory_msgs.msg import JointTrajectory
        pub = self.node.create_publisher(JointTrajectory, f'/{CONTROLLER_NAME}/joint_trajectory',
                                         10)
        deadline = time.monotonic() + 5.0
        while pub.get_subscription_count() == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        pub.publish(msg)

    def transition(self, label, timeout=5.0):
        """A lifecycle transition by label (configure, activate, deactivate, cleanup,
        shutdown): (succeeded, why not: no service, no answer, or a refusal, each with the
        seconds waited). One client serves every call (a new one per call is rediscovered
        each time, under load in seconds)."""
        from lifecycle_msgs.msg import Transition
        from lifecycle_msgs.srv import ChangeState
        ids = {'configure': Transition.TRANSITION_CONFIGURE,
               'activate': Transition.TRANSITION_ACTIVATE,
               'deactivate': Transition.TRANSITION_DEACTIVATE,
               'cleanup': Transition.TRANSITION_CLEANUP,
               'shutdown': Transition.TRANSITION_ACTIVE_SHUTDOWN}
        client, t0 = self._lifecycle_client(), time.monotonic()
        if not client.wait_for_service(timeout_sec=timeout):
            return False, f'{label}: no change_state service within {timeout:g} s'
        future = client.call_async(ChangeState.Request(transition=Transition(id=ids[label])))
        if not self.wait_future(future, timeout):
            return False, f'{label}: no answer within {timeout:g} s'
        waited = time.monotonic() - t0
        if not future.result().success:
            return False, f'{label}: answered failure after {waited:.2f} s'
        return True, f'{label}: succeeded after {waited:.2f} s'

    def set_parameter(self, name, value, timeout=5.0):
        """Set one parameter at runtime; (successful, reason)."""
        from rcl_interfaces.srv import SetParameters
        from rclpy.parameter import Parameter
        if getattr(self, 'parameter_client', None) is None:  # one client: a new one per call
            self.parameter_client: Any = self.node.create_client(  # is a discovery storm
                SetParameters, f'/{CONTROLLER_NAME}/set_parameters')
        client = self.parameter_client
        if not client.wait_for_service(timeout_sec=timeout):
            return False, 'no service'
        message = Parameter(name, value=value).to_parameter_msg()
        request = SetParameters.Request(parameters=[message])
        future = client.call_async(request)
        response = future.result() if self.wait_future(future, timeout) else None
        if response is None:
            return False, 'timeout'
        result = response.results[0]
        return result.successful, result.reason

    @staticmethod
    def wait_future(future, timeout):
        """Wait up to ``timeout`` [s] for an rclpy future; True when done."""
        deadline = time.monotonic() + timeout
        while not future.done() and time.monotonic() < deadline:
            time.sleep(0.005)
        return future.done()

    def action_client(self):
        """The FollowJointTrajectory client of the controller's action, made once (see
        :meth:`prepare_clients`), once its server is seen (10 s at most)."""
        client = self._action_client()
        client.wait_for_server(timeout_sec=10.0)
        return client

    def prepare_clients(self):
        """Make the lifecycle and action clients now, before the case needs them, so that
        the controller's process discovers their endpoints while the case starts, as a
        supervisor holds its clients from its start. Every new client's endpoints must be
        discovered by the controller's process, each service's apart: beside two hogs a
        deactivate request made by a client created just before reached the controller
        10 s late, and the result of a goal sent by a client 0.5 s old never arrived,
        while the goal itself was accepted at once."""
        self._lifecycle_client()
        self._action_client()

    def _lifecycle_client(self):
        """The one change_state client (a new one per call is rediscovered each time)."""
        from lifecycle_msgs.srv import ChangeState
        if getattr(self, 'lifecycle_client', None) is None:
            self.lifecycle_client: Any = self.node.create_client(
                ChangeState, f'/{CONTROLLER_NAME}/change_state')
        return self.lifecycle_client

    def _action_client(self):
        """The one FollowJointTrajectory client, not waited for."""
        from control_msgs.action import FollowJointTrajectory
        from rclpy.action import ActionClient
        if getattr(self, 'follow_client', None) is None:
            self.follow_client: Any = ActionClient(
                self.node, FollowJointTrajectory, f'/{CONTROLLER_NAME}/follow_joint_trajectory')
        return self.follow_client

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

    def logged(self, text):
        """(the message of the last line the controller printed that contains ``text``, its
        log stamp [s], wall clock), or (None, None) when there is no such line."""
        found = console_log.logged(self.output(), text)
        return (found[-1].message, found[-1].stamp) if found else (None, None)

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
        self.witness.close()
        self.log.close()
        os.unlink(self.log.name)
