"""What a controller core accepts as its reference besides the configured one:
JointTrajectory messages (and FollowJointTrajectory goals, as trajectories), tool pose
targets and feed-forward tool wrenches, each checked at the boundary, refused in one line
(an event) or swapped in between cycles.

Why apart from the core: the core keeps the cycle; these are its inputs' entry points,
with what each may do to the reference (ControllerCore inherits them).
"""

from typing import Any

from ..errors import InputError
from .events import EventKind, emit
from .levels import Level
from .reference.manager import PreparedTrajectory
from .reference.wrench_target import APPLYING

__all__ = ['ReferenceInputs']


class ReferenceInputs:
    """The reference inputs of a ControllerCore (its supervisor, clock, reference manager,
    pose targets, events and config)."""

    supervisor: Any
    clock: Any
    reference: Any
    targets: Any
    wrenches: Any
    events: list
    config: Any

    def on_trajectory(self, now: float, msg: Any) -> tuple[bool, str]:
        """Follow a JointTrajectory (duck-typed). Returns (accepted, one-line text)."""
        if not self.supervisor.commanding:
            return self._refuse(f'trajectory rejected: controller is {self.supervisor.state}')
        prepared = self.prepare_trajectory(now, msg)
        if isinstance(prepared, str):
            return self._refuse(prepared)
        return self.adopt_trajectory(now, prepared)

    def follow_pose(self, now: float, position, quaternion, frame_id: str) -> tuple[bool, str]:
        """Move the reference towards a tool pose target (reference/pose_target.py; control
        thread, O(1)): (taken, what it did); anything but 'following' is an event."""
        ok, text = False, f'refused: controller is {self.supervisor.state}'
        if self.supervisor.commanding:
            ok, text = self.targets.take(self.clock.peek(now), position, quaternion, frame_id)
        if text != 'following':
            emit(self.events, EventKind.TARGET, Level.WARN, f'pose target {text}')
        return ok, text

    def take_wrench(self, now: float, force, torque, frame_id: str) -> tuple[bool, str]:
        """A feed-forward tool wrench target (reference/wrench_target.py; control thread,
        O(1)) that came at ``now`` [s]: (taken, what it did); a refusal or a scaled wrench
        is an event."""
        ok, text = False, f'refused: controller is {self.supervisor.state}'
        if self.supervisor.commanding:
            ok, text = self.wrenches.take(now, force, torque, frame_id)
        if text != APPLYING:
            emit(self.events, EventKind.TARGET, Level.WARN, f'target wrench {text}')
        return ok, text

    def _refuse(self, text):
        emit(self.events, EventKind.TRAJECTORY_REFUSED, Level.WARN, text)
        return False, text

    def prepare_trajectory(self, now: float, msg: Any) -> 'PreparedTrajectory | str':
        """A JointTrajectory converted to start at ``now`` (monotonic [s]), or the text of
        its rejection. Changes nothing: call it from any thread (a long trajectory is
        converted off the control thread), then :meth:`adopt_trajectory` on the control
        thread."""
        try:
            return self.reference.prepare(msg, self.clock.peek(now),
                                          self.config.max_trajectory_points)
        except InputError as exc:
            return f'trajectory rejected: {exc}'

    def adopt_trajectory(self, now: float, prepared: PreparedTrajectory) -> tuple[bool, str]:
        """Follow a prepared trajectory (control thread; O(1)). (accepted, text)."""
        if not self.supervisor.commanding:
            return self._refuse(f'trajectory rejected: controller is {self.supervisor.state}')
        try:
            duration = self.reference.adopt(prepared, self.clock.peek(now))
        except InputError as exc:
            return self._refuse(f'trajectory rejected: {exc}')
        text = f'following a {len(prepared.spline.knots) - 1}-point trajectory over ' \
            f'{duration:.3f} s'
        emit(self.events, EventKind.TRAJECTORY_ADOPTED, Level.OK, text)
        return True, text
