"""Alignment stage of validation: states wait until the reference covers their times,
then their tracking error goes to the metrics and, with a model, their torques to the
residual stage; memory stays bounded (chunk by chunk)."""

import numpy as np

from .metrics import Decimator, ResidualStats, TrackingStats
from .residual import residual_chunk

__all__ = ['Aligner', 'STALL_GAP']

#: A gap between two recorded states longer than this [s] is a stall: the control loop (or
#: the recorder, or the whole host) stood still.
STALL_GAP = 0.02
#: Two stamps closer than this [s] are the same state's (a stamp in seconds since the
#: epoch as a float64 carries about 0.2 us; states are milliseconds apart).
STAMP_MATCH = 1e-6


class Aligner:
    """State arrays waiting for reference coverage, processed chunk by chunk."""

    def __init__(self, n, tolerance, dyn, settle_after_stall=0.0, recording_losses=None):
        """``settle_after_stall`` [s]: states that follow a stall (STALL_GAP) by at most this
        long are counted apart, not in the tracking metrics (0: every state counts).

        ``recording_losses``: {stamp [s] of the first state recorded after a recording
        gap: the states lost there} (io.sequence_gaps; filled while the bag is read).
        A gap in the recorded stamps that the recorder's losses explain (the states it
        lost fill it at less than STALL_GAP apart) is not a stall: the loop ran, the
        recorder fell behind."""
        self.settle_after_stall = settle_after_stall
        self.recording_losses: dict[float, int] = {} if recording_losses is None \
            else recording_losses
        self.last_t: float | None = None  # the last state processed [s]
        self.settle_until = -np.inf  # states up to this time follow a stall [s]
        self.t = np.zeros(0)
        self.q = np.zeros((0, n))
        self.qd = np.zeros((0, n))
        self.eff = np.zeros((0, n))
        self.tracking = TrackingStats(n, tolerance)
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
        ok, q_ref = reference.evaluate(ts, final)
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
            else:
                self.tracking.add(t_ok[counted], err[counted])
                self.tracking.excluded += int(np.count_nonzero(~counted))
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
        stalls = gaps > STALL_GAP
        if self.recording_losses and stalls.any():
            stalls &= ~self._lost_in_recording(ts, gaps, stalls)
        ends = np.maximum.accumulate(np.where(stalls, ts, -np.inf))
        ends = np.maximum(ends, self.settle_until - self.settle_after_stall)
        after = ts - ends <= self.settle_after_stall
        if done:
            self.last_t = float(ts[done - 1])
            self.settle_until = float(ends[done - 1] + self.settle_after_stall)
        return after

    def _lost_in_recording(self, ts, gaps, stalls):
        """Which of the ``stalls`` (gaps before ``ts``) the recorder's losses explain."""
        ends = np.array(sorted(self.recording_losses))
        explained = np.zeros(len(ts), bool)
        for k in np.flatnonzero(stalls):
            at = int(np.searchsorted(ends, ts[k]))
            near = [e for e in ends[max(at - 1, 0):at + 1] if abs(e - ts[k]) < STAMP_MATCH]
            if near:  # the lost states and this one share the gap
                explained[k] = gaps[k] / (self.recording_losses[near[0]] + 1) <= STALL_GAP
        return explained
