"""A running robodyn controller from a Python script, on either path, with no ROS knowledge
needed: connect, wait until it commands, read the tool pose, move the tool to a pose,
replay a recorded stream of pose targets, push at the tool (a target wrench), follow a
joint trajectory, go home (robodyn_ros.client re-exports it).

Underneath: an rclpy node in a context of its own, spun by a thread of its own. The tool
pose is FK of /joint_states on the model of robot_description, with the controller's own
base and tip links (its parameters), so it is the pose its ~/target_pose targets are
judged against. Every wait has a timeout and says why it ended (:class:`MoveResult`).
"""

import os
import threading
import time
from typing import Any, NamedTuple

import numpy as np

__all__ = ['MoveResult', 'RobodynClient']

#: The FollowJointTrajectory servers of the two paths: the node's, then the JTC's.
ACTIONS = ('follow_joint_trajectory', '/joint_trajectory_controller/follow_joint_trajectory')
#: How often move_to_pose sends its target again [s] (a target is latest-wins).
RESEND = 0.1
#: How long a goal waits for the server's acceptance [s], and how often it is sent again
#: meanwhile.
ACCEPT_TIMEOUT, GOAL_RESEND = 10.0, 2.5


class MoveResult(NamedTuple):
    """How a move ended: ``reached``, the tool's remaining ``position_error`` [m] and
    ``angle_error`` [rad] (NaN for a joint move), and ``reason`` (one line)."""

    reached: bool
    position_error: float
    angle_error: float
    reason: str


def _quaternion(r: np.ndarray) -> np.ndarray:
    """(x, y, z, w) of the rotation matrix ``r`` (w >= 0)."""
    d = np.array([1.0 + r[0, 0] + r[1, 1] + r[2, 2], 1.0 + r[0, 0] - r[1, 1] - r[2, 2],
                  1.0 - r[0, 0] + r[1, 1] - r[2, 2], 1.0 - r[0, 0] - r[1, 1] + r[2, 2]])
    w, x, y, z = 0.5 * np.sqrt(np.maximum(d, 0.0))
    q = np.array([np.copysign(x, r[2, 1] - r[1, 2]), np.copysign(y, r[0, 2] - r[2, 0]),
                  np.copysign(z, r[1, 0] - r[0, 1]), w])
    return q / np.linalg.norm(q)


def _angle(q1, q2) -> float:
    """The angle [rad] between two orientations given as quaternions (x, y, z, w)."""
    dot = abs(float(np.dot(q1, q2))) / float(np.linalg.norm(q1) * np.linalg.norm(q2))
    return 2.0 * float(np.arccos(np.clip(dot, 0.0, 1.0)))


class RobodynClient:
    """A connection to the controller node ``controller`` (its name; the launch's
    robodyn_controller) on ROS domain ``domain_id`` (None: ROS_DOMAIN_ID)."""

    def __init__(self, controller: str = 'robodyn_controller', domain_id: int | None = None):
        from diagnostic_msgs.msg import DiagnosticArray
        from geometry_msgs.msg import PoseStamped, WrenchStamped
        import rclpy
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.qos import DurabilityPolicy, QoSProfile
        from sensor_msgs.msg import JointState
        from std_msgs.msg import String
        self.controller = controller.strip('/')
        domain = int(os.environ.get('ROS_DOMAIN_ID', '0')) if domain_id is None else domain_id
        self.context = rclpy.Context()
        rclpy.init(context=self.context, domain_id=domain)
        self.node = rclpy.create_node(f'robodyn_client_{os.getpid()}', context=self.context)
        self.lock = threading.Lock()
        self.q: dict[str, float] = {}
        self.status: dict[str, str] = {}
        self.xml = ''
        self.model: Any = None
        self.home: np.ndarray | None = None
        self.actions: dict[str, Any] = {}  # FollowJointTrajectory clients by action name
        self.node.create_subscription(JointState, '/joint_states', self._on_state, 10)
        self.node.create_subscription(DiagnosticArray, '/diagnostics', self._on_status, 10)
        latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.node.create_subscription(String, '/robot_description', self._on_description,
                                      latched)
        self.target = self.node.create_publisher(PoseStamped, f'/{self.controller}/target_pose',
                                                 10)
        self.wrench = self.node.create_publisher(WrenchStamped,
                                                 f'/{self.controller}/target_wrench', 10)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.thread = threading.Thread(target=self._spin, daemon=True, name='robodyn_client')
        self.thread.start()

    # -- what comes in ------------------------------------------------------------------
    def _spin(self):
        while self.context.ok():
            try:
                self.executor.spin_once(timeout_sec=0.05)
            except Exception:  # noqa: BLE001 - shutting down: the context went away
                return

    def _on_state(self, msg):
        with self.lock:
            self.q.update(zip(msg.name, msg.position))

    def _on_status(self, msg):
        for status in msg.status:
            if status.name == self.controller:
                with self.lock:
                    self.status = {kv.key: kv.value for kv in status.values}
                    self.status['message'] = status.message

    def _on_description(self, msg):
        self.xml = msg.data

    # -- connecting ---------------------------------------------------------------------
    def wait_until_ready(self, timeout: float = 30.0) -> None:
        """Until the model is loaded, joint states come and the controller is active;
        TimeoutError naming what is missing."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.model is None and self.xml:
                self._load_model()
            if self.model is not None and self.joint_positions() is not None and \
                    self.status.get('state') == 'active':
                if self.home is None:
                    self.home = self.joint_positions()
                return
            time.sleep(0.05)
        missing = [what for what, ok in (('robot_description', bool(self.xml)),
                                         ('/joint_states', bool(self.q)),
                                         (f"{self.controller} active (it says "
                                          f"{self.status.get('message', 'nothing')!r})",
                                          self.status.get('state') == 'active')) if not ok]
        raise TimeoutError(f'not ready after {timeout:g} s: no {", no ".join(missing)}')

    def _load_model(self):
        from ..model import load_robot
        links = self._parameters(['base_link', 'tip_link'])
        self.model = load_robot(self.xml, base_link=links.get('base_link') or None,
                                tip_link=links.get('tip_link') or None,
                                require_effort_limits=False)
        from ..dynamics import RigidBodyDynamics
        from ..dynamics.recursive.tip_frame import TipFrame
        self.frame = TipFrame(RigidBodyDynamics(self.model))
        self.base = self.model.dh_table('standard').base

    def _parameters(self, names) -> dict[str, str]:
        """The controller's string parameters ``names`` ({} where it has none or is slow)."""
        from rcl_interfaces.srv import GetParameters
        client: Any = self.node.create_client(GetParameters,
                                              f'/{self.controller}/get_parameters')
        try:
            if not client.wait_for_service(timeout_sec=5.0):
                return {}
            future = client.call_async(GetParameters.Request(names=list(names)))
            deadline = time.monotonic() + 5.0
            while not future.done() and time.monotonic() < deadline:
                time.sleep(0.01)
            result = future.result() if future.done() else None
            values = [] if result is None else result.values
            return {name: value.string_value for name, value in zip(names, values)}
        finally:
            self.node.destroy_client(client)

    # -- reading ------------------------------------------------------------------------
    def joint_positions(self) -> np.ndarray | None:
        """The chain's joint positions [rad or m], chain order; None before a full state."""
        if self.model is None:
            return None
        with self.lock:
            values = [self.q.get(name) for name in self.model.joint_names]
        return None if any(v is None for v in values) else np.array(values, dtype=float)

    def tool_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """The tool's position [m] and orientation (x, y, z, w) in the base link frame."""
        q = self.joint_positions()
        if q is None:
            raise RuntimeError('no joint state yet: call wait_until_ready() first')
        _, rotation, point = self.frame.at(q)
        return (self.base[:3, :3] @ point + self.base[:3, 3],
                _quaternion(self.base[:3, :3] @ rotation))

    # -- moving -------------------------------------------------------------------------
    def move_to_pose(self, position, quaternion=None, tolerance: float = 1e-3,
                     angle_tolerance: float = 0.01, timeout: float = 10.0) -> MoveResult:
        """Send the tool pose target (``position`` [m] and ``quaternion`` (x, y, z, w) in the
        base link frame; None: the current orientation) until the tool is within
        ``tolerance`` [m] and ``angle_tolerance`` [rad] of it, or ``timeout`` [s] passed."""
        from geometry_msgs.msg import PoseStamped
        quat = self.tool_pose()[1] if quaternion is None else np.asarray(quaternion, float)
        msg = PoseStamped()
        msg.header.frame_id = self.model.base_link
        p, o = msg.pose.position, msg.pose.orientation
        p.x, p.y, p.z = (float(v) for v in position)
        o.x, o.y, o.z, o.w = (float(v) for v in quat)
        deadline, sent = time.monotonic() + timeout, 0.0
        while True:
            now = time.monotonic()
            if now - sent >= RESEND:
                self.target.publish(msg)
                sent = now
            at, turned = self.tool_pose()
            error = float(np.linalg.norm(at - np.asarray(position, float)))
            angle = _angle(turned, quat)
            if error <= tolerance and angle <= angle_tolerance:
                return MoveResult(True, error, angle, 'reached')
            if now >= deadline:
                return MoveResult(False, error, angle, self._why(error, angle, timeout))
            time.sleep(0.01)

    def _why(self, error, angle, timeout) -> str:
        with self.lock:
            status = dict(self.status)
        said = status.get('target', 'none')
        if status.get('state') != 'active':
            return f"controller {status.get('message', 'silent')}"
        if said != 'following':
            return f'pose target {said}'
        return (f'still {error * 1e3:.1f} mm and {angle * 1e3:.1f} mrad away after '
                f'{timeout:g} s (a target beyond the joint limits stops at them)')

    def follow_joint_trajectory(self, positions, times, timeout: float | None = None,
                                velocities=None, accelerations=None) -> MoveResult:
        """Follow the joint ``positions`` (chain order, one row per point) reached at
        ``times`` [s from now] through the path's FollowJointTrajectory server, with the
        points' ``velocities`` and ``accelerations`` when given (rows as ``positions``)."""
        from control_msgs.action import FollowJointTrajectory
        from rclpy.action import ActionClient
        from trajectory_msgs.msg import JointTrajectoryPoint
        goal = FollowJointTrajectory.Goal()
        goal.trajectory.joint_names = list(self.model.joint_names)
        for k, (row, t) in enumerate(zip(positions, times)):
            point = JointTrajectoryPoint(positions=[float(v) for v in row])
            if velocities is not None:
                point.velocities = [float(v) for v in velocities[k]]
            if accelerations is not None:
                point.accelerations = [float(v) for v in accelerations[k]]
            point.time_from_start.sec, point.time_from_start.nanosec = divmod(
                int(round(float(t) * 1e9)), 10 ** 9)
            goal.trajectory.points.append(point)
        wait = float(times[-1]) + 5.0 if timeout is None else timeout
        for name in ACTIONS:
            action = name if name.startswith('/') else f'/{self.controller}/{name}'
            if action not in self.actions:  # kept: a new client's first goal races discovery
                self.actions[action] = ActionClient(self.node, FollowJointTrajectory, action)
            if self.actions[action].wait_for_server(timeout_sec=2.0):
                return self._run_goal(self.actions[action], goal, wait)
        return MoveResult(False, float('nan'), float('nan'), 'no FollowJointTrajectory server')

    def _run_goal(self, client, goal, wait) -> MoveResult:
        """Send ``goal``, again every GOAL_RESEND [s] while unanswered (a request the
        server's reader had not matched yet is lost; a late answer to an earlier send is
        preempted by the later goal, the same trajectory), and wait for its result."""
        nan = float('nan')
        deadline, handle = time.monotonic() + ACCEPT_TIMEOUT, None
        while handle is None and time.monotonic() < deadline:
            handle = _result(client.send_goal_async(goal),
                             min(GOAL_RESEND, deadline - time.monotonic()))
        if handle is None:
            return MoveResult(False, nan, nan, f'no answer to the goal within '
                                               f'{ACCEPT_TIMEOUT:g} s: not sent')
        if not handle.accepted:
            return MoveResult(False, nan, nan, 'goal rejected (the server says why in its '
                                               'log)')
        done = _result(handle.get_result_async(), wait)
        if done is None:
            handle.cancel_goal_async()
            return MoveResult(False, nan, nan, f'no result within {wait:g} s: canceled')
        answer = done.result
        return MoveResult(answer.error_code == 0, nan, nan,
                          answer.error_string or 'goal reached')

    def trace_circle(self, radius: float = 0.1, frequency: float = 0.5, turns: float = 2.0,
                     plane: str = 'yz') -> MoveResult:
        """The tool draws a circle from where it is (control/reference/figures.py: in
        ``plane`` of the base link frame, ``radius`` [m], ``frequency`` [Hz] at speed,
        ``turns`` at speed and one more in the ramps, the orientation held), as one joint
        trajectory; blocks until it is done. A circle out of reach or out of the joint
        limits is not sent (the result says why)."""
        from ..control.reference.figures import circle_through, circle_trajectory
        from ..errors import InputError
        q = self.joint_positions()
        if q is None:
            raise RuntimeError('no joint state yet: call wait_until_ready() first')
        nan = float('nan')
        try:
            circle = circle_through(self.tool_pose()[0], radius, frequency, turns, plane)
            figure = circle_trajectory(self.model, q, circle)
        except InputError as exc:
            return MoveResult(False, nan, nan, f'circle not sent: {exc}')
        return self.follow_joint_trajectory(figure.positions, figure.times,
                                            velocities=figure.velocities,
                                            accelerations=figure.accelerations)

    def set_stiffness(self, stiffness, damping_ratio: float | None = None,
                      timeout: float = 5.0) -> MoveResult:
        """The tool spring of a task-space law (cartesian.stiffness: x y z [N/m] then rx ry
        rz [N m/rad], DH frame 0; cartesian.damping_ratio), set on the controller, which
        blends it in over its gain_ramp_time. The result says whether the controller took
        it, or its reason for refusing it (as a parameter set answers)."""
        from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
        from rcl_interfaces.srv import SetParametersAtomically
        nan = float('nan')
        values = [Parameter(name='cartesian.stiffness', value=ParameterValue(
            type=ParameterType.PARAMETER_DOUBLE_ARRAY,
            double_array_value=[float(v) for v in stiffness]))]
        if damping_ratio is not None:
            values.append(Parameter(name='cartesian.damping_ratio', value=ParameterValue(
                type=ParameterType.PARAMETER_DOUBLE, double_value=float(damping_ratio))))
        client: Any = self.node.create_client(
            SetParametersAtomically, f'/{self.controller}/set_parameters_atomically')
        try:
            if not client.wait_for_service(timeout_sec=timeout):
                return MoveResult(False, nan, nan, f'no parameter service of {self.controller}')
            done = _result(client.call_async(SetParametersAtomically.Request(
                parameters=values)), timeout)
            if done is None:
                return MoveResult(False, nan, nan, f'no answer within {timeout:g} s')
            answer = done.result
            return MoveResult(bool(answer.successful), nan, nan,
                              'set' if answer.successful else answer.reason)
        finally:
            self.node.destroy_client(client)

    def replay_poses(self, path, topic: str | None = None, speed: float = 1.0,
                     tolerance: float = 1e-3, angle_tolerance: float = 0.01,
                     settle: float = 5.0) -> MoveResult:
        """Send a recorded stream of tool pose targets again (a policy's or a
        teleoperator's PoseStamped messages in the rosbag2 at ``path``, io/pose_stream.py),
        each at its recorded time divided by ``speed``, then hold the last one until the
        tool is within ``tolerance`` [m] and ``angle_tolerance`` [rad] of it or ``settle``
        [s] passed. The controller checks every target as it did the original."""
        from geometry_msgs.msg import PoseStamped

        from ..io.pose_stream import read_pose_stream
        if not (np.isfinite(speed) and 0.01 <= speed <= 100.0):
            raise ValueError(f'speed: expected 0.01 to 100, got {speed!r}')
        stream = read_pose_stream(path, topic)
        start, msg = time.monotonic(), PoseStamped()
        for t, position, quaternion, frame in zip(stream.times, stream.positions,
                                                  stream.quaternions, stream.frame_ids):
            time.sleep(max(0.0, start + t / speed - time.monotonic()))
            msg.header.frame_id = frame
            p, o = msg.pose.position, msg.pose.orientation
            p.x, p.y, p.z = (float(v) for v in position)
            o.x, o.y, o.z, o.w = (float(v) for v in quaternion)
            self.target.publish(msg)
        return self.move_to_pose(stream.positions[-1], stream.quaternions[-1], tolerance,
                                 angle_tolerance, settle)

    def push(self, force, torque=(0.0, 0.0, 0.0), seconds: float = 1.0) -> None:
        """Exert ``force`` [N] and ``torque`` [N m] at the tool point (base link frame) for
        ``seconds``: the controller's ~/target_wrench at 20 Hz (a task-space law's
        feed-forward, bounded and ramped by the controller; wrench.timeout after the last
        message it ramps back to zero). Returns when the last message is sent."""
        from geometry_msgs.msg import WrenchStamped
        msg = WrenchStamped()
        msg.header.frame_id = self.model.base_link if self.model is not None else ''
        f, m = msg.wrench.force, msg.wrench.torque
        f.x, f.y, f.z = (float(v) for v in force)
        m.x, m.y, m.z = (float(v) for v in torque)
        # the topic is volatile: what is sent before the controller's reader matched is lost
        matched = time.monotonic() + 2.0
        while self.wrench.get_subscription_count() == 0 and time.monotonic() < matched:
            time.sleep(0.01)
        end = time.monotonic() + float(seconds)
        while True:
            self.wrench.publish(msg)
            if time.monotonic() + 0.05 > end:
                return
            time.sleep(0.05)

    def go_home(self, home=None, duration: float = 3.0) -> MoveResult:
        """A joint move to ``home`` (chain order; None: where the arm was when it became
        ready) over ``duration`` [s]."""
        target = self.home if home is None else np.asarray(home, dtype=float)
        return self.follow_joint_trajectory([target], [duration])

    def close(self) -> None:
        """Leave ROS (the controller goes on holding its last target)."""
        self.context.try_shutdown()
        self.thread.join(timeout=1.0)

    def __enter__(self) -> 'RobodynClient':
        return self

    def __exit__(self, *_exc) -> None:
        self.close()


def _result(future, timeout):
    """The future's result within ``timeout`` [s], else None (the client's thread spins)."""
    deadline = time.monotonic() + timeout
    while not future.done() and time.monotonic() < deadline:
        time.sleep(0.01)
    return future.result() if future.done() else None
