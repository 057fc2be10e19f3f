"""JointTrajectory messages converted off the control thread.

A trajectory of m points costs O(m) to decode and to turn into splines (about 35 us per
point in Python); on the control thread 10 000 points would silence the controller for a
third of a second. The controller's ~/joint_trajectory subscription is raw: its callback
(control thread) only queues the CDR bytes (O(1)); this worker thread refuses more than
``max_trajectory_points`` points or more names than the chain has joints before decoding
any (a trajectory naming more joints is refused anyway: unknown or repeated), and
decodes and converts the rest (the interpreter hands the lock to the control thread every
switch interval), and the control thread swaps the result in at its next cycle
(:meth:`TrajectoryWorker.apply`, O(1)). A newer message replaces one still waiting; the
newest wins.
"""

import threading

from ..control.levels import Level
from ..errors import RobodynError
from ..io.cdr import parse_joint_trajectory

__all__ = ['TrajectoryWorker']


class TrajectoryWorker:
    """One daemon thread converting the controller core's trajectories.

    Args:
        core: the ControllerCore (its prepare_trajectory / adopt_trajectory).
    """

    def __init__(self, core):
        self.core = core
        self.max_points = core.config.max_trajectory_points
        self._wake = threading.Condition()
        self._pending = None  # (raw bytes, monotonic receipt time)
        self._ready = None  # a PreparedTrajectory or a rejection text
        self._stop = False
        self.busy = False
        self.internal_errors = 0  # exceptions other than a rejection (a defect)
        self.thread = threading.Thread(target=self._run, name='robodyn_trajectory',
                                       daemon=True)
        self.thread.start()

    def submit(self, raw, now):
        """Queue a JointTrajectory's CDR bytes received at ``now`` (control thread, O(1));
        its result, or why it was refused, comes through :meth:`apply`."""
        with self._wake:
            self._pending = (raw, now)
            self._wake.notify()

    def apply(self, now):
        """Swap in a converted trajectory, if one is ready (control thread, O(1)); the
        rejection text or the core's (accepted, text) are logged as the core's events."""
        ready, self._ready = self._ready, None
        if ready is None:
            return
        if isinstance(ready, str):
            self.core.events.append((Level.WARN, ready))
        else:
            self.core.adopt_trajectory(now, ready)

    @property
    def idle(self):
        """True when nothing is waiting or being converted."""
        return self._pending is None and not self.busy

    @property
    def has_result(self):
        """True when :meth:`apply` has something to do."""
        return self._ready is not None

    def _run(self):
        while True:
            with self._wake:
                while self._pending is None and not self._stop:
                    self._wake.wait()
                if self._stop:
                    return
                (raw, now), self._pending = self._pending, None
                self.busy = True
            try:
                self._ready = self._convert(raw, now)
            except Exception as exc:  # noqa: BLE001 - the thread must outlive a bad message
                self.internal_errors += 1
                self._ready = f'trajectory rejected: internal error {type(exc).__name__}: {exc}'
            self.busy = False

    def _convert(self, raw, now):
        try:
            msg = parse_joint_trajectory(raw, self.max_points, self.core.model.n)
        except RobodynError as exc:
            return f'trajectory rejected: {exc}'
        return self.core.prepare_trajectory(now, msg)

    def close(self, timeout=0.5):
        """Stop the thread (a conversion under way is abandoned after ``timeout`` [s]: the
        thread is a daemon)."""
        with self._wake:
            self._stop = True
            self._wake.notify()
        self.thread.join(timeout=timeout)
