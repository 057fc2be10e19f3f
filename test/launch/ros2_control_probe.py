"""A probe on a launched ros2_control stack: records commands and states, switches
controllers and sends FollowJointTrajectory goals, from its own rclpy context."""

from collections.abc import Mapping
import copy
import time

import numpy as np

from robodyn_ros.io.cdr_messages import header_stamp, read_controller_state, read_joint_state

__all__ = ['Probe', 'manager_said', 'moveit_like_goal', 'stretched']

#: A goal to be preempted runs this many times slower than the goal given: a loaded machine
#: delivered the second of two 4 s goals sent 0.5 s apart more than 3.5 s late, once, and
#: the JTC ended the first SUCCEEDED before the second came: no preemption to judge.
PREEMPT_STRETCH = 5.0

#: How long [s] before a goal's result, answered STATUS_UNKNOWN, is asked for once more.
UNKNOWN_RETRY = 0.5

#: How long [s] a preempted goal's result is waited for (Probe.preempt).
PREEMPT_WAIT = 10.0


def _answer(handle):
    """What a goal's sending got: 'not answered', 'accepted' or 'refused'."""
    return 'not answered' if handle is None else 'accepted' if handle.accepted else 'refused'


def moveit_like_goal(names, q0, tolerance=-1.0):
    """A goal as MoveIt sends one: 3 waypoints with positions and velocities over 4 s (the
    last at rest); tolerances < 0: not checked (mock hardware does not move)."""
    from control_msgs.action import FollowJointTrajectory
    from control_msgs.msg import JointTolerance
    from trajectory_msgs.msg import JointTrajectoryPoint
    goal = FollowJointTrajectory.Goal()
    goal.trajectory.joint_names = list(names)
    offsets = np.array([0.15, -0.1, 0.2, 0.1, -0.15, 0.1, 0.2])[:len(names)]
    for t, scale, moving in ((1.5, 0.5, 1.0), (3.0, 1.0, 0.6), (4.0, 0.8, 0.0)):
        point = JointTrajectoryPoint()
        point.positions = list(np.asarray(q0) + scale * offsets)
        point.velocities = list(moving * 0.1 * offsets)
        point.time_from_start.sec, point.time_from_start.nanosec = int(t), int(t % 1 * 1e9)
        goal.trajectory.points.append(point)
    for field in ('path_tolerance', 'goal_tolerance'):
        setattr(goal, field, [JointTolerance(name=n, position=tolerance, velocity=tolerance)
                              for n in names])
    return goal


def stretched(goal, factor):
    """A copy of a FollowJointTrajectory goal run ``factor`` times slower: the same path,
    times multiplied, velocities divided by it and accelerations by its square."""
    out = copy.deepcopy(goal)
    for point in out.trajectory.points:
        t = point.time_from_start.sec + 1e-9 * point.time_from_start.nanosec
        point.time_from_start.sec, point.time_from_start.nanosec = \
            divmod(int(round(t * factor * 1e9)), 10 ** 9)
        point.velocities = [v / factor for v in point.velocities]
        point.accelerations = [a / factor ** 2 for a in point.accelerations]
    return out


def stamp(msg):
    """A stamped message's header stamp [s]."""
    return msg.header.stamp.sec + 1e-9 * msg.header.stamp.nanosec


def manager_said(text):
    """controller_manager's warnings and errors and its switches in a launch's output (why
    a switch failed), the last 20 lines, each cut to its last 300 characters."""
    lines = [line[-300:] for line in text.splitlines()
             if '[controller_manager' in line and ('WARN' in line or 'ERROR' in line or
                                                   'ctivat' in line)]
    return '\n'.join(lines[-20:])


def launch_said(text, last=40):
    """A launch's output without controller_manager's overrun warnings (a loaded machine
    prints them every few cycles and they would hide why a start did not finish): its
    ``last`` lines, each cut to its last 300 characters."""
    lines = [line[-300:] for line in text.splitlines()
             if not ('[controller_manager' in line and 'Overrun' in line)]
    return '\n'.join(lines[-last:])


#: The messages of the 1 kHz streams, read from their bytes (robodyn_ros.io.cdr_messages)
#: by the rclpy message class's module and name.
READERS = {
    'sensor_msgs.msg._joint_state.JointState': read_joint_state,
    'control_msgs.msg._joint_trajectory_controller_state.JointTrajectoryControllerState':
        read_controller_state,
}


def _decoder(msgtype):
    """The function that decodes ``msgtype``'s CDR bytes: io.cdr_messages' for the types it
    reads (a big-endian message through rclpy), else rclpy's deserialize_message."""
    from rclpy.serialization import deserialize_message

    from robodyn_ros.errors import BagError
    fast = READERS.get(f'{msgtype.__module__}.{msgtype.__name__}')

    def decode(raw):
        if fast is not None:
            try:
                return fast(raw)
            except BagError:
                pass
        return deserialize_message(raw, msgtype)
    return decode


#: How often [s] the probe's thread takes what its readers have queued.
TAKE_PERIOD = 0.005


def _take(readers, stop):
    """Until ``stop``: every TAKE_PERIOD, each reader's queued messages taken (CDR bytes and
    their info) with the time taken [s, monotonic]; the writer's sequence number kept by
    the bytes for a numbered topic."""
    while not stop.wait(TAKE_PERIOD):
        for reader, received, numbers in list(readers.values()):
            with reader.handle:
                while (taken := reader.handle.take_message(reader.msg_type, True)) is not None:
                    raw, info = taken
                    received.append((time.monotonic(), raw))
                    if numbers is not None:
                        numbers[raw] = info.get('publication_sequence_number')


class _Decoded(Mapping):
    """{topic: [(receipt time [s], message)]}: a topic's new CDR messages are decoded when
    that topic is read, and kept. Reading one stream never pays for the others: a probe
    that decoded every recorded topic at each look fell behind its own recording under two
    hogs (three 1 kHz topics), and each look then took longer than the look before."""

    def __init__(self, raw, decoded):
        self._raw, self._decoded = raw, decoded

    def __getitem__(self, topic):
        msgtype, received = self._raw[topic]
        decoded, decode = self._decoded[topic], _decoder(msgtype)
        decoded += [(t, decode(raw)) for t, raw in received[len(decoded):len(received)]]
        return decoded

    def __iter__(self):
        return iter(self._raw)

    def __len__(self):
        return len(self._raw)


class Probe:
    """rclpy node in its own context on ``domain``; ``spin(seconds)`` serves its service and
    action clients, and recorded topics are taken in a thread of their own.

    Under two CPU hogs a probe that decodes 2 kHz of JointStates in Python's executor falls
    behind the stream until its readers' histories overwrite what it has not taken yet
    (a whole window of states lost); one that takes each message through an executor's
    event falls behind too (4 kHz of events on a quarter of a core), and a service's answer
    then waits behind thousands of messages: the probe measured the machine. So a second
    node's readers are not in any executor: a thread takes whatever has queued every
    ``TAKE_PERIOD`` as CDR bytes with the message's info, and ``log`` decodes a topic when
    it is read.
    """

    def __init__(self, domain):
        import rclpy
        self.rclpy = rclpy
        self.context = rclpy.Context()
        rclpy.init(context=self.context, domain_id=domain)
        self.node = rclpy.create_node('ros2_control_probe', context=self.context)
        try:
            from rclpy.experimental import EventsExecutor
            self.executor = EventsExecutor(context=self.context)
        except ImportError:  # an rclpy without it
            from rclpy.executors import SingleThreadedExecutor
            self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self._raw = {}  # topic -> (message type, [(receipt time, CDR bytes)])
        self._decoded = {}  # topic -> [(receipt time, message)], decoded so far
        self._numbers = {}  # topic -> {CDR bytes: the writer's sequence number}
        self._readers = None  # (node, {topic: (reader, received, numbers)}, thread, stop)

    def record(self, topic, msgtype, depth=1000):
        """Keep every message of ``topic`` with its receipt time [s, monotonic] (see
        ``log``), taken by the readers' thread."""
        import threading
        if self._readers is None:
            node = self.rclpy.create_node('ros2_control_probe_readers', context=self.context)
            stop = threading.Event()
            readers = {}
            thread = threading.Thread(target=_take, args=(readers, stop), daemon=True)
            self._readers = (node, readers, thread, stop)
            thread.start()
        node, readers = self._readers[:2]
        received = []
        self._raw[topic] = (msgtype, received)
        self._decoded[topic] = []
        reader = node.create_subscription(msgtype, topic, lambda _: None, depth, raw=True)
        readers[topic] = (reader, received, None)

    def number(self, topic, msgtype, depth=1000):
        """Keep also the writer's sequence number of each message of ``topic`` (see
        ``numbered``), for a judge that must know how many messages the probe missed
        between two it received (recorded first when it is not yet)."""
        if topic not in self._raw:
            self.record(topic, msgtype, depth)
        readers = self._readers[1]
        reader, received, _ = readers[topic]
        readers[topic] = (reader, received, self._numbers.setdefault(topic, {}))

    def numbered(self, topic, start=0):
        """[(receipt time [s], sequence number or None, message)] of a topic recorded and
        numbered, from its ``start``-th message received (``count`` before an exchange:
        only what came after is decoded); None where the numbering copy missed that
        message."""
        if start == 0:
            numbers = dict(self._numbers.get(topic, {}))
            _, received = self._raw[topic]
            return [(t, numbers.get(bytes(raw)), m)
                    for (t, m), (_, raw) in zip(self.log[topic], received)]
        msgtype, received = self._raw[topic]
        rows, decode = received[start:], _decoder(msgtype)
        numbers = dict(self._numbers.get(topic, {}))
        return [(t, numbers.get(bytes(raw)), decode(raw)) for t, raw in rows]

    @property
    def log(self):
        """{topic: [(receipt time [s, monotonic], message)]} of every recorded topic, each
        topic decoded when it is read (``_Decoded``)."""
        return _Decoded(self._raw, self._decoded)

    def latest_stamp(self, topic):
        """The header stamp [s] of the last message of ``topic`` received so far (0 before
        the first), read from its CDR bytes without decoding anything."""
        _, received = self._raw[topic]
        return header_stamp(received[-1][1]) if received else 0.0

    def spin_until_stamped(self, topic, until, deadline, step=0.5):
        """Spin in ``step`` [s] slices until a message of ``topic`` stamped at or after
        ``until`` [s] has been received, or ``deadline`` [s, monotonic] has passed: under
        load the probe hears a stream late, and a window judged by the stream's own stamps
        waits for them rather than for the probe's time."""
        while self.latest_stamp(topic) < until and time.monotonic() < deadline:
            self.spin(step)

    def newest(self, topic):
        """The last message of ``topic`` received so far (None before the first), decoded
        alone: the history stays, undecoded until ``log`` reads it."""
        msgtype, received = self._raw[topic]
        return _decoder(msgtype)(received[-1][1]) if received else None

    def count(self, topic):
        """How many messages of ``topic`` were received so far (none decoded)."""
        return len(self._raw[topic][1])

    def arriving(self, topic):
        """A reader of ``topic`` from now on: each call of the function returned gives the
        [(receipt time [s], message)] received since the call before (the first: since
        this one), decoded; what came before is never decoded. For a test that polls a
        heavy 1 kHz stream (the JTC's controller_state: decoding all of it is more than a
        probe beside two hogs can do)."""
        msgtype, received = self._raw[topic]
        decode, position = _decoder(msgtype), [len(received)]

        def new():
            end = len(received)
            rows = [(t, decode(raw)) for t, raw in received[position[0]:end]]
            position[0] = end
            return rows
        return new

    def stamped(self, topic, start, end):
        """[(stamp [s], message)] of the messages of ``topic`` stamped in [start, end),
        newest first; only those are decoded. Scanned from the newest back to the first
        stamped a second before ``start`` (one publisher's stamps rise)."""
        msgtype, received = self._raw[topic]
        rows, decode = [], _decoder(msgtype)
        for k in range(len(received) - 1, -1, -1):
            stamp = header_stamp(received[k][1])
            if stamp < start - 1.0:
                break
            if start <= stamp < end:
                rows.append((stamp, decode(received[k][1])))
        return rows

    def latest(self, topic):
        """The last message of ``topic`` received so far (None before the first); forgets
        the older ones undecoded, for a probe that only follows a stream's head."""
        from rclpy.serialization import deserialize_message
        msgtype, received = self._raw[topic]
        if not received:
            return None
        del received[:-1]
        self._decoded[topic] = []
        return deserialize_message(received[-1][1], msgtype)

    def spin(self, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.executor.spin_once(timeout_sec=0.01)

    def hear(self, topics, timeout=30.0):
        """Spin until each of ``topics`` has given a message (True) or ``timeout`` [s] passed
        (False). Under two hogs DDS discovery of a new participant can take well over the
        3 s a fixed spin allowed: Fast DDS announces 5 times, then once every 3 s."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(self._raw[topic][1] for topic in topics):
                return True
            self.executor.spin_once(timeout_sec=0.01)
        return all(self._raw[topic][1] for topic in topics)

    def wait(self, future, timeout=30.0):
        deadline = time.monotonic() + timeout
        while not future.done() and time.monotonic() < deadline:
            self.executor.spin_once(timeout_sec=0.01)
        return future.result() if future.done() else None

    def client(self, service_type, name):
        """A client of service ``name``, found once and kept (None when the service did not
        show within 30 s). Finding a service is DDS discovery: under two hogs a new client
        has taken over 10 s to see controller_manager's, so a test that calls a service
        again and again reuses one client instead of waiting for discovery every time."""
        clients = self.__dict__.setdefault('_clients', {})
        if name not in clients:
            client = self.node.create_client(service_type, name)
            if not client.wait_for_service(timeout_sec=30.0):
                self.node.destroy_client(client)
                return None
            clients[name] = client
        return clients[name]

    def call(self, service_type, name, request):
        """The response of service ``name`` to ``request`` (None: no service, or no answer
        within 30 s)."""
        client = self.client(service_type, name)
        return None if client is None else self.wait(client.call_async(request))

    def switch(self, activate, deactivate):
        """controller_manager's switch_controllers (strict); True when it succeeded. Each
        call's outcome is kept in ``switches`` for a failing test to show."""
        from controller_manager_msgs.srv import SwitchController
        request = SwitchController.Request(activate_controllers=list(activate),
                                           deactivate_controllers=list(deactivate),
                                           strictness=SwitchController.Request.STRICT)
        # the switch happens in the next update(): controller_manager's default 1 s for it
        # is too short for a loop under two hogs (the switch then fails, nothing changed)
        request.timeout.sec = 5
        name = '/controller_manager/switch_controller'
        client = self.client(SwitchController, name)
        response = None if client is None else self.wait(client.call_async(request))
        outcome = ('no service' if client is None else 'no answer' if response is None
                   else 'ok' if response.ok else 'refused')
        self.__dict__.setdefault('switches', []).append(
            (list(activate), list(deactivate), outcome))
        return outcome == 'ok'

    def controller_states(self):
        """{controller name: lifecycle state} from controller_manager's list_controllers
        ({} when the service does not answer)."""
        from controller_manager_msgs.srv import ListControllers
        response = self.call(ListControllers, '/controller_manager/list_controllers',
                             ListControllers.Request())
        return {c.name: c.state for c in response.controller} if response else {}

    def switch_node_path(self, activate, deactivate, attempts=3):
        """Brings the controllers to ``activate`` active and ``deactivate`` inactive, as an
        operator would: asks controller_manager which are active and switches only those
        that are not yet where they should be. On the node path the forward controller
        deactivates itself when the node stalls past its command_timeout (a loaded machine:
        as designed), and a switch that answered late may have happened after all: a
        strict switch of the whole list then fails although the end state is reachable or
        reached. True when the end state was confirmed by list_controllers."""
        for _ in range(attempts):
            states = self.controller_states()
            on = [c for c in activate if states.get(c) != 'active']
            off = [c for c in deactivate if states.get(c) == 'active']
            if states and not on and not off:
                return True
            if states:
                self.switch(on, off)
        states = self.controller_states()
        self.__dict__.setdefault('switches', []).append(('states after', states, ''))
        return bool(states) and all(states.get(c) == 'active' for c in activate) and \
            not any(states.get(c) == 'active' for c in deactivate)

    def lifecycle_client(self, node):
        """``node``'s change_state client, found once (under load finding a service can
        take seconds: a test that times a transition finds it beforehand); None when the
        service did not show within 10 s."""
        from lifecycle_msgs.srv import ChangeState
        clients = self.__dict__.setdefault('_lifecycle', {})
        if node not in clients:
            client = self.node.create_client(ChangeState, f'{node}/change_state')
            clients[node] = client if client.wait_for_service(timeout_sec=10.0) else None
        return clients[node]

    def transition(self, node, label):
        """A lifecycle transition of ``node`` by label ('deactivate', 'activate', ...);
        True when it succeeded."""
        from lifecycle_msgs.msg import Transition
        from lifecycle_msgs.srv import ChangeState
        client = self.lifecycle_client(node)
        if client is None:
            return False
        request = ChangeState.Request()
        request.transition.id = getattr(Transition, f'TRANSITION_{label.upper()}')
        response = self.wait(client.call_async(request))
        return bool(response and response.success)

    def action_client(self, action):
        """A FollowJointTrajectory client of ``action``, found once and kept (None when
        its server did not show within 30 s; see :meth:`client`)."""
        from control_msgs.action import FollowJointTrajectory
        from rclpy.action import ActionClient
        clients = self.__dict__.setdefault('_actions', {})
        if action not in clients:
            client = ActionClient(self.node, FollowJointTrajectory, action)
            if not client.wait_for_server(timeout_sec=30.0):
                client.destroy()
                return None
            clients[action] = client
        return clients[action]

    def follow(self, action, goal, timeout=20.0):
        """Send ``goal`` to ``action``; (accepted, status, result).

        A result of STATUS_UNKNOWN for a goal the server accepted is asked for once more,
        after UNKNOWN_RETRY: rclcpp_action answers so for a goal it does not hold, and the
        real JTC has answered so under load for a goal it had accepted and then logged as
        reached; a goal the server never held stays UNKNOWN, and the caller fails on it."""
        from action_msgs.msg import GoalStatus
        client = self.action_client(action)
        if client is None:
            return False, None, None
        handle = self.wait(client.send_goal_async(goal))
        if handle is None or not handle.accepted:
            return False, None, None
        done = self.wait(handle.get_result_async(), timeout)
        if done is not None and done.status == GoalStatus.STATUS_UNKNOWN:
            self.spin(UNKNOWN_RETRY)
            done = self.wait(handle.get_result_async(), timeout)
        return True, (done.status if done else None), (done.result if done else None)

    def preempt(self, action, goal, after=0.5):
        """Send ``goal`` (PREEMPT_STRETCH times slower) twice, the second ``after`` s into
        the first; (status, error code) of the first, its result asked for as soon as it is
        accepted (as MoveIt asks). The second is canceled once the first has ended (the arm
        held where it is), and waited for; a first result still missing then is waited for
        once more. ``preempt_steps[action]`` says, for a failing test, how far each step
        got and when [s from the first goal's sending]."""
        steps: list[str] = []
        self.__dict__.setdefault('preempt_steps', {})[action] = steps
        client = self.action_client(action)
        if client is None:
            steps.append('no action server')
            return None, None
        goal, t0 = stretched(goal, PREEMPT_STRETCH), time.monotonic()

        def step(what):
            steps.append(f'{what} at {time.monotonic() - t0:.2f} s')
        first = self.wait(client.send_goal_async(goal))
        step('first goal ' + _answer(first))
        result = first.get_result_async() if first is not None and first.accepted else None
        self.spin(after)
        second = self.wait(client.send_goal_async(goal))
        step('second goal ' + _answer(second))
        done = self.wait(result, PREEMPT_WAIT) if result is not None else None
        step('first result ' + ('not received' if done is None else f'status {done.status}'))
        if second is not None and second.accepted:
            self.wait(second.cancel_goal_async())
            self.wait(second.get_result_async(), 20.0)
            step('second goal ended')
        if done is None and result is not None:
            done = self.wait(result, PREEMPT_WAIT)
            step('first result ' + ('still not received' if done is None else
                                    f'status {done.status} after the second ended'))
        return (done.status, done.result.error_code) if done else (None, None)

    def cancel(self, action, goal, after=0.5):
        """Send ``goal``, cancel it ``after`` s in; (cancel accepted, final status)."""
        client = self.action_client(action)
        if client is None:
            return None, None
        handle = self.wait(client.send_goal_async(goal))
        if handle is None or not handle.accepted:
            return False, None
        self.spin(after)
        response = self.wait(handle.cancel_goal_async())
        done = self.wait(handle.get_result_async(), 10.0)
        return bool(response and response.goals_canceling), done.status if done else None

    def close(self):
        if self._readers is not None:  # its thread ends before its node is destroyed
            node, _, thread, stop = self._readers
            stop.set()
            thread.join(timeout=5.0)
            node.destroy_node()
        self.executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()
        self.rclpy.try_shutdown(context=self.context)
