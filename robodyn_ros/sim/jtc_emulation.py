"""What a ros2_controllers JointTrajectoryController does on effort command interfaces,
emulated for the MuJoCo sim so the trajectory feed-forward mode can be measured.

Per cycle: the desired state is interpolated from the trajectory points (quintic when
positions, velocities and accelerations are given, as JTC does; the desired effort
linearly), and the command is tau = effort_d + Kp (q_d - q) + Kd (qd_d - qd) (JTC's PID
with i = 0; the feed-forward term exists since ros2_controllers PR #1200). Before the first
trajectory and after its end it holds the last desired position.
"""

import numpy as np

from ..control.reference.trajectories import SplineTrajectory

__all__ = ['JtcEmulator']


class JtcEmulator:
    """PID + effort feed-forward tracking of a dense trajectory.

    Args:
        kp, kd: (n,) PID gains [N m/rad], [N m s/rad].
        q0: (n,) position held before the first trajectory.
    """

    def __init__(self, kp, kd, q0):
        self.kp = np.asarray(kp, dtype=float)
        self.kd = np.asarray(kd, dtype=float)
        self.hold = np.asarray(q0, dtype=float).copy()
        self.spline: SplineTrajectory | None = None
        self.times = np.zeros(1)  # knot times of the trajectory [s], from t0
        self.effort: np.ndarray | None = None
        self.t0 = 0.0

    def set_trajectory(self, t0, times, q, qd, qdd, effort=None) -> None:
        """Follow points at ``t0 + times`` from the currently held position (effort None:
        no feed-forward, plain PID)."""
        n = len(self.hold)
        start = (self.hold.copy(), np.zeros(n), np.zeros(n))
        self.spline = SplineTrajectory(start, times, q, qd, qdd, t0=t0)
        self.times = np.concatenate([[0.0], np.asarray(times, dtype=float)])
        self.effort = None if effort is None else np.vstack([effort[:1], effort])
        self.t0 = t0

    def command(self, t, q, qd):
        """Effort command at time t [s] for the measured (q, qd)."""
        if self.spline is None:
            return self.kp * (self.hold - q) - self.kd * qd
        q_d, qd_d, _ = self.spline(t)
        tau = self.kp * (q_d - q) + self.kd * (qd_d - qd)
        if self.effort is not None:
            s = min(max(t - self.t0, 0.0), self.times[-1])
            k = min(int(np.searchsorted(self.times, s, side='right')) - 1, len(self.times) - 2)
            w = (s - self.times[k]) / (self.times[k + 1] - self.times[k])
            tau = tau + (1.0 - w) * self.effort[k] + w * self.effort[k + 1]
        if t - self.t0 >= self.times[-1]:
            self.hold = q_d
        return tau
