"""JointTrajectory messages converted off the control thread.

A trajectory of m points costs O(m) to decode and to turn into splines (about 13 us per
point, vectorized; 130 ms for 10 000 Panda points on an idle 2.4 GHz core); on the control
thread that would silence the controller for over a hundred cycles. Beside it, the shorter
this work, the less often the worker is descheduled while it holds the interpreter lock
(a loaded machine), which stalls the control thread too.

The controller's ~/joint_trajectory subscription is raw: its callback (control thread)
only queues the CDR bytes (O(1)); this worker thread refuses more than
``max_trajectory_points`` points or more names than the chain has joints before decoding
any (a trajectory naming more joints is refused anyway: unknown or repeated), and
decodes and converts the rest (the interpreter hands the lock to the control thread every
switch interval), and the control thread swaps the result in at its next cycle
(:meth:`TrajectoryWorker.apply`, O(1)). A newer message replaces one still waiting; the
newest wins.
"""

from ..control.events import EventKind, emit
from ..control.levels import Level
from ..errors import RobodynError
from ..io.cdr import parse_joint_trajectory
from .latest_worker import LatestWorker

__all__ = ['TrajectoryWorker']


class TrajectoryWorker(LatestWorker):
    """One daemon thread converting the controller core's trajectories.

    Args:
        core: the ControllerCore (its prepare_trajectory / adopt_trajectory).
    """

    def __init__(self, core):
        self.core = core
        self.max_points = core.config.max_trajectory_points
        super().__init__(self._convert, _internal_error, 'robodyn_trajectory')

    def submit_trajectory(self, raw, now):
        """Queue a JointTrajectory's CDR bytes received at ``now`` (control thread, O(1));
        its result, or why it was refused, comes through :meth:`apply`."""
        self.submit((raw, now))

    def apply(self, now):
        """Swap in a converted trajectory, if one is ready (control thread, O(1)); the
        rejection text or the core's (accepted, text) are logged as the core's events."""
        ready = self.take()
        if ready is None:
            return
        (result,) = ready
        if isinstance(result, str):
            emit(self.core.events, EventKind.TRAJECTORY_REFUSED, Level.WARN, result)
        else:
            self.core.adopt_trajectory(now, result)

    def _convert(self, request):
        raw, now = request
        try:
            msg = parse_joint_trajectory(raw, self.max_points, self.core.model.n)
        except RobodynError as exc:
            return f'trajectory rejected: {exc}'
        return self.core.prepare_trajectory(now, msg)


def _internal_error(exc):
    return f'trajectory rejected: internal error {type(exc).__name__}: {exc}'
