"""FollowJointTrajectory action server and JointTrajectoryControllerState for the controller.

The action runs on a helper node with its own executor thread, so a goal's execution never
blocks the control loop. The controller's thread owns the core: the action thread only
queues requests ('follow' a trajectory, 'hold' the current reference) that the control
thread applies at its next cycle, and reads the snapshot the control thread publishes after
each command (a tuple, replaced atomically).

Goals are rejected, as JTC rejects them, when the controller is not active or the
trajectory is malformed (unknown or repeated joints, no points, sizes that do not match,
times not increasing: goal_problem); tolerances naming unknown joints -> aborted with
INVALID_JOINTS; outside the limits -> INVALID_GOAL (accepted, then aborted at once, so the
client gets the code); during execution the path tolerance, after it the goal tolerance within
goal_time, as JTC defines them; cancel -> hold at the current reference (the supervisor's
rate limit keeps the torque continuous), CANCELED; a new goal preempts the running one,
which is aborted with INVALID_GOAL and 'preempted by a new goal'; safe mode aborts with
PATH_TOLERANCE_VIOLATED and the supervisor's reason; any other reference that replaces the
goal's trajectory before the goal ends (a message on the trajectory topic, the hold of a
restart) aborts it with INVALID_GOAL, 'preempted: ...': a result says what the arm did.
"""

from collections import deque
import threading
import time

from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import JointTrajectoryControllerState
import numpy as np
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from trajectory_msgs.msg import JointTrajectoryPoint

from ..control.reference.trajectory_goal import (
    INVALID_GOAL,
    INVALID_JOINTS,
    PATH_TOLERANCE_VIOLATED,
    SUCCESSFUL,
    GoalMonitor,
    GoalTolerances,
    goal_problem,
)
from ..control.safety.supervisor import HELD, INACTIVE
from ..errors import InputError
from .node_messages import float_array, to_time
from .node_runner import spin_in_thread, stop_helper

__all__ = ['FollowJointTrajectoryBridge', 'ControllerStateMessage']


def _point(positions, velocities=None, effort=None):
    point = JointTrajectoryPoint()
    point.positions = float_array(np.asarray(positions, dtype=float))
    if velocities is not None:
        point.velocities = float_array(np.asarray(velocities, dtype=float))
    if effort is not None:
        point.effort = float_array(np.asarray(effort, dtype=float))
    return point


class ControllerStateMessage:
    """A JointTrajectoryControllerState (reference, feedback, error, output) filled in place
    from the control thread's snapshot: no message objects built per publication."""

    def __init__(self, names):
        self.msg = JointTrajectoryControllerState()
        self.msg.joint_names = list(names)

    def __call__(self, snapshot, effort):
        """The message for ``snapshot`` and the commanded ``effort``."""
        t_ref, q_r, qd_r, q, qd, _ = snapshot
        msg = self.msg
        msg.header.stamp = to_time(t_ref)
        msg.reference.positions, msg.reference.velocities = float_array(q_r), float_array(qd_r)
        msg.feedback.positions, msg.feedback.velocities = float_array(q), float_array(qd)
        msg.error.positions = float_array(q_r - q)
        msg.error.velocities = float_array(qd_r - qd)
        msg.output.effort = float_array(effort)
        return msg


class _Request:
    """A request to the control thread; taken by it or withdrawn by the action thread,
    never both (``claim`` under the lock)."""

    def __init__(self, kind, trajectory=None):
        self.kind = kind
        self.trajectory = trajectory
        self.done = threading.Event()
        self.result = None
        self.lock = threading.Lock()
        self.state = 'pending'

    def claim(self, state):
        """Move from pending to ``state`` ('taken' or 'withdrawn'); False if already
        claimed."""
        with self.lock:
            if self.state != 'pending':
                return False
            self.state = state
            return True


class FollowJointTrajectoryBridge:
    """The action server of one controller node (see the module docstring).

    Args:
        controller: the ControllerNode (its ``core``, fully qualified name, parameters).
        feedback_rate: feedback messages per second [Hz].
        defaults: GoalTolerances used where a goal gives 0.
        action: the action's name (absolute): ``~/follow_joint_trajectory``, or the private
            name the input gateway forwards to (input_gateway.py).
    """

    def __init__(self, controller, feedback_rate, defaults, action):
        self.controller = controller
        self.action = action
        self.period = 1.0 / feedback_rate
        self.defaults = defaults
        self.requests: deque[_Request] = deque()
        self.snapshot = None
        self.active = None
        self.ending = ''  # why running goals end now (deactivate, cleanup, shutdown)
        # Without the process's global arguments: a launch file's ``__node:=`` remap would
        # otherwise rename this helper to the controller's own name (two nodes, one name).
        self.node = Node(controller.get_name() + '_action', namespace=controller.get_namespace(),
                         context=controller.context, use_global_arguments=False)
        self.server = ActionServer(
            self.node, FollowJointTrajectory, action,
            execute_callback=self.execute, goal_callback=self.on_goal,
            cancel_callback=lambda handle: CancelResponse.ACCEPT,
            callback_group=ReentrantCallbackGroup())
        self.executor = MultiThreadedExecutor(num_threads=3, context=controller.context)
        self.executor.add_node(self.node)
        self.thread = spin_in_thread(self.executor, 'robodyn_action')

    def end_goals(self, reason, timeout=0.5):
        """End the running goal (aborted with ``reason``) and refuse new ones until
        :meth:`resume`; waits up to ``timeout`` [s] for the result to be sent (0: not at
        all, the action thread sends it: a deactivate's hold must not wait on it)."""
        self.ending = reason
        if timeout <= 0.0:
            return
        deadline = time.monotonic() + timeout
        running = self.active is not None
        while self.active is not None and time.monotonic() < deadline:
            time.sleep(0.005)
        if running:  # let the action thread send the result to a waiting client
            time.sleep(0.1)

    def resume(self):
        """Take goals again (after activate)."""
        self.ending = ''

    def close(self):
        """End the running goal, stop the executor thread and destroy the helper node."""
        self.end_goals('controller shutting down')
        server, node = self.server, self.node

        def destroy():
            server.destroy()
            node.destroy_node()
        stop_helper(self.executor, self.thread, destroy)

    # -- control thread -------------------------------------------------------------
    def apply_requests(self, now):
        """Apply queued requests to the core (call from the control thread)."""
        core = self.controller.core
        while self.requests:
            request = self.requests.popleft()
            if not request.claim('taken'):
                continue  # withdrawn: its client was already answered
            if request.kind == 'follow':
                accepted, text = core.adopt_trajectory(now, request.trajectory)
                generator = core.reference.generator
                request.result = (accepted, text, core.reference.t0,
                                  getattr(generator, 'duration', 0.0), generator)
            else:
                t = core.clock.reference_time(now)
                if core.reference.started:
                    core.reference.hold(core.reference(t)[0], t)
                request.result = (True, 'holding', t, 0.0, core.reference.generator)
            request.done.set()

    # -- action thread ----------------------------------------------------------------
    def _submit(self, kind, trajectory=None):
        request = _Request(kind, trajectory)
        self.requests.append(request)
        if not request.done.wait(timeout=0.5) and request.claim('withdrawn'):
            # Withdrawn under the lock: the control thread will never apply it, so the
            # client may be told it was not executed.
            return (False, 'controller did not take the request (no joint states?)', 0.0, 0.0,
                    None)
        if not request.done.wait(timeout=1.0):  # taken: the control thread is applying it
            return False, 'controller did not finish the request', 0.0, 0.0, None
        return request.result

    def on_goal(self, goal):
        """Accept or reject a goal before it exists for the client (the action thread)."""
        core = self.controller.core
        problem = 'controller not active' if self.ending or core is None or \
            core.safety.state in (INACTIVE, HELD) else goal_problem(
                core.model.joint_names, goal.trajectory, core.config.max_trajectory_points)
        if problem is None:
            return GoalResponse.ACCEPT
        self.controller.get_logger().warning(f'FollowJointTrajectory goal rejected: {problem}')
        return GoalResponse.REJECT

    def execute(self, handle):
        """Run one goal to its result."""
        goal = handle.request
        result = FollowJointTrajectory.Result()
        names = list(self.controller.core.model.joint_names) \
            if self.controller.core is not None else []
        try:
            tol = GoalTolerances.from_goal(
                names, goal.path_tolerance, goal.goal_tolerance,
                goal.goal_time_tolerance.sec + goal.goal_time_tolerance.nanosec * 1e-9,
                self.defaults)
        except InputError as exc:
            return self._finish(handle, result, INVALID_JOINTS, str(exc))
        core = self.controller.core
        if self.ending or core is None:
            return self._finish(handle, result, INVALID_GOAL,
                                f'controller not active ({self.ending or "not configured"})')
        prepared = core.prepare_trajectory(self.controller.now(), goal.trajectory)  # this thread
        if isinstance(prepared, str):
            accepted, text, t0, duration, spline = False, prepared, 0.0, 0.0, None
        else:
            accepted, text, t0, duration, spline = self._submit('follow', prepared)
        if not accepted:
            unknown = 'unknown' in text or 'duplicate' in text
            return self._finish(handle, result, INVALID_JOINTS if unknown else INVALID_GOAL,
                                text)
        self.active = handle
        monitor = GoalMonitor(tol, t0 + duration, names)
        # a safe-mode episode shorter than this loop's period leaves the hold in place of
        # the trajectory: the supervisor's count of safe entries tells it was there
        trips = core.safety.faults
        while True:
            time.sleep(self.period)
            if handle.is_cancel_requested:
                self._submit('hold')
                handle.canceled()
                result.error_code, result.error_string = SUCCESSFUL, 'canceled: holding'
                return result
            ended = self._interrupted(handle, trips, spline)
            if ended is not None:
                return self._finish(handle, result, *ended)
            snapshot = self.snapshot
            if snapshot is None:
                continue
            t, q_r, qd_r, q, qd, _ = snapshot
            code, text = monitor.check(t, q_r, qd_r, q, qd)
            self._feedback(handle, names, snapshot)
            if code is not None:
                if code != SUCCESSFUL:
                    self._submit('hold')
                return self._finish(handle, result, code, text)

    def _interrupted(self, handle, trips, spline):
        """(error code, text) when something other than the goal's own course ends it: a
        new goal, the controller ending, a safe-mode entry since the goal started (``trips``
        was the supervisor's count then), another reference in place of the goal's
        trajectory ``spline``; None while the goal runs."""
        if self.active is not handle:
            return INVALID_GOAL, 'preempted by a new goal'
        core = self.controller.core
        if self.ending or core is None:
            return INVALID_GOAL, f'{self.ending or "controller cleaned up"}: goal ended'
        if core.safety.state == 'safe' or core.safety.faults != trips:
            self._submit('hold')
            return (PATH_TOLERANCE_VIOLATED,
                    f'controller in safe mode during the goal: {core.safety.reason}')
        if core.reference.generator is not spline:  # a restart's hold, a topic message
            return (INVALID_GOAL, "preempted: the goal's trajectory was replaced by a "
                    f'{core.reference.kind} reference before it ended')
        return None

    def _feedback(self, handle, names, snapshot):
        t, q_r, qd_r, q, qd, _ = snapshot
        feedback = FollowJointTrajectory.Feedback()
        feedback.header.stamp = to_time(t)
        feedback.joint_names = names
        feedback.desired = _point(q_r, qd_r)
        feedback.actual = _point(q, qd)
        feedback.error = _point(q_r - q, qd_r - qd)
        handle.publish_feedback(feedback)

    def _finish(self, handle, result, code, text):
        result.error_code, result.error_string = code, text
        if self.active is handle:
            self.active = None
        if code == SUCCESSFUL:
            handle.succeed()
        else:
            handle.abort()
            self.controller.get_logger().warning(f'FollowJointTrajectory goal aborted '
                                                 f'({code}): {text}')
        return result
