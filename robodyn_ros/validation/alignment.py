"""Alignment stage of validation: states wait until the reference covers their times,
then their tracking error goes to the metrics and, with a model, their torques to the
residual stage; memory stays bounded (chunk by chunk)."""

import numpy as np

from .error_fit import ErrorFit
from .metrics import Decimator, ResidualStats, TrackingStats
from .residual import residual_chunk

__all__ = ['Aligner', 'STALL_GAP']

#: A gap between two recorded states longer than this [s] is a stall: the control loop (or
#: the recorder, or the whole host) stood still.
STALL_GAP = 0.02


class Aligner:
    """State arrays waiting for reference coverage, processed chunk by chunk."""

    def __init__(self, n, tolerance, dyn, settle_after_stall=0.0):
        """``settle_after_stall`` [s]: states that follow a stall (STALL_GAP) by at most this
        long are counted apart, not in the tracking metrics (0: every state counts)."""
        self.settle_after_stall = settle_after_stall
        self.last_t: float | None = None  # the last state processed [s]
        self.settle_until = -np.inf  # states up to this time follow a stall [s]
        self.t = np.zeros(0)
        self.q = np.zeros((0, n))
        self.qd = np.zeros((0, n))
        self.eff = np.zeros((0, n))
        self.tracking = TrackingStats(n, tolerance)
        self.fit = ErrorFit(n)  # the counted errors on the reference's rates
        self.plot = Decimator()
        self.dyn = dyn
        self.residual = ResidualStats(n) if dyn is not None else None
        self.residual_plot = Decimator()

    def add(self, t, q, qd, eff):
        """States strictly increasing in t (JointStateBatch drops repeats and jumps)."""
        self.t = np.concatenate([self.t, t])
        self.q = np.concatenate([self.q, q])
        self.qd = np.concatenate([self.qd, qd])
        self.eff = np.concatenate([self.eff, eff])

    def process(self, reference, final=False):
        """Compare every state the reference covers; keep later ones for the next chunk."""
        if not len(self.t):
            return
        ts = self.t
        ok, q_ref, rates = reference.evaluate(ts, final)
        wait = reference.pending_after(ts) if not final else np.zeros(len(ts), bool)
        done = int(np.count_nonzero(~wait))  # waiting states are a suffix
        after = self._after_stall(ts, done)
        if ok.any():
            # the usual chunk: every state covered and counted; a boolean index would copy
            # the (states x joints) arrays twice for nothing
            every = bool(ok.all())
            t_ok, q_ok = (ts, self.q) if every else (ts[ok], self.q[ok])
            counted = ~after[ok]
            err = q_ref - q_ok
            if counted.all():
                self.tracking.add(t_ok, err)
                if rates is not None:
                    self.fit.add(err, *rates)
            else:
                self.tracking.add(t_ok[counted], err[counted])
                self.tracking.excluded += int(np.count_nonzero(~counted))
                if rates is not None:
                    self.fit.add(err[counted], rates[0][counted], rates[1][counted])
            self.plot.add(t_ok, q_ref, q_ok)
        if self.dyn is not None and done > 31 and np.isfinite(self.eff[:done]).all():
            residual_chunk(self.dyn, ts[:done], self.q[:done], self.qd[:done],
                            self.eff[:done], self.residual, self.residual_plot)
        self.t, self.q, self.qd, self.eff = (a[done:] for a in (self.t, self.q, self.qd,
                                                                  self.eff))

    def _after_stall(self, ts, done):
        """Which of ``ts`` follow a stall by at most settle_after_stall (the first ``done``
        are processed now: the next chunk's gaps start after them)."""
        if self.settle_after_stall <= 0.0:
            return np.zeros(len(ts), bool)
        before = ts[0] if self.last_t is None else self.last_t
        gaps = np.diff(np.concatenate([[before], ts]))
        ends = np.maximum.accumulate(np.where(gaps > STALL_GAP, ts, -np.inf))
        ends = np.maximum(ends, self.settle_until - self.settle_after_stall)
        after = ts - ends <= self.settle_after_stall
        if done:
            self.last_t = float(ts[done - 1])
            self.settle_until = float(ends[done - 1] + self.settle_after_stall)
        return after
