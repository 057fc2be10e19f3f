"""The largest change of the torque the arm was given, per control cycle, from the effort
the joint states report.

Why: the safety rule "no torque step above max_torque_rate x period" is about what the
hardware applied, not what a controller published (a forward controller, ros2_control's
own limiter or a drive can each make the two differ). Hardware that reports the effort it
applies (the lock-step MuJoCo system, a drive's commanded current) shows that torque in
every state; a state n periods after the one before spans n cycles, each with its own
budget, so the change is divided by n (at least 1: two states in one period are one
cycle). The period is the median spacing of the first states' stamps. On an arm whose
effort state is a torque sensor's reading the figure includes the sensor's noise.
"""

from dataclasses import dataclass

import numpy as np

__all__ = ['AppliedSteps']

#: States whose stamps give the period (the median spacing), at least.
PERIOD_SAMPLES = 16
#: A step within this fraction above the budget passes: the period comes from stamps in
#: seconds since 1970, good to about 0.24 us in a float64 (a 1 kHz stream's median spacing
#: reads 0.99993 ms), and the controllers' own limit lands exactly on the budget.
TOLERANCE = 1e-3


@dataclass
class AppliedSteps:
    """Running worst per-cycle change of the reported effort [N m or N], with the stamp [s]
    and the joint index where it happened; ``period`` [s] once known."""

    period: float | None = None
    worst: float = 0.0
    at: float | None = None
    joint: int | None = None
    pairs: int = 0
    first: float | None = None  # the first state's stamp [s]
    _last: tuple[float, np.ndarray] | None = None
    _pending: list[tuple[np.ndarray, np.ndarray]] | None = None

    def add(self, t: np.ndarray, effort: np.ndarray) -> None:
        """Consecutive states: stamps [s] (m,), strictly increasing; efforts (m, n), NaN
        where a state had none."""
        if self.first is None and len(t):
            self.first = float(t[0])
        if self.period is None:
            self._pending = (self._pending or []) + [(t, effort)]
            stamps = np.concatenate([p[0] for p in self._pending])
            if len(stamps) <= PERIOD_SAMPLES:
                return
            spacing = np.diff(stamps)
            self.period = float(np.median(spacing[spacing > 0])) if (spacing > 0).any() \
                else None
            if self.period is None:
                return
            pending, self._pending = self._pending, None
            for t_k, e_k in pending:
                self._take(t_k, e_k)
            return
        self._take(t, effort)

    def _take(self, t, effort):
        if len(t) == 0 or self.period is None:
            return
        if self._last is not None and self._last[1].shape[0] == effort.shape[1]:
            t = np.concatenate([[self._last[0]], t])
            effort = np.vstack([self._last[1][None, :], effort])
        self._last = (float(t[-1]), effort[-1].copy())
        if len(t) < 2:
            return
        cycles = np.maximum(1.0, np.rint(np.diff(t) / self.period))
        change = np.abs(np.diff(effort, axis=0)) / cycles[:, None]
        change = np.where(np.isfinite(change), change, -np.inf)  # no effort: no step
        self.pairs += len(cycles)
        k, j = np.unravel_index(int(np.argmax(change)), change.shape)
        if change[k, j] > self.worst:
            self.worst, self.at, self.joint = float(change[k, j]), float(t[k + 1]), int(j)

    def failure(self, max_torque_rate: float, joints: list[str],
                source: str = '--max-torque-rate') -> str | None:
        """Why the run fails the rate limit ``max_torque_rate`` [N m/s] (named by where it
        came from, ``source``), or None: the worst change over one cycle's budget
        (max_torque_rate x period)."""
        if self.period is None or self.at is None or self.joint is None or \
                self.first is None:
            return None
        budget = max_torque_rate * self.period
        if self.worst <= budget * (1.0 + TOLERANCE):
            return None
        return (f'the applied torque stepped {self.worst:.4g} N m in one cycle on '
                f'{joints[self.joint]} {self.at - self.first:.3f} s after the first state, '
                f'over the budget {budget:.4g} N m ({source} {max_torque_rate:g} '
                f"N m/s x the states' period {self.period * 1e3:.3g} ms)")
