"""Alignment stage of validation: states wait until the reference covers their times,
then their tracking error goes to the metrics and, with a model, their torques to the
residual stage; memory stays bounded (chunk by chunk)."""

import numpy as np

from .metrics import Decimator, ResidualStats, TrackingStats
from .residual import residual_chunk

__all__ = ['Aligner']


class Aligner:
    """State arrays waiting for reference coverage, processed chunk by chunk."""

    def __init__(self, n, tolerance, dyn):
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
        if ok.any():
            self.tracking.add(ts[ok], q_ref - self.q[ok])
            self.plot.add(ts[ok], q_ref, self.q[ok])
        done = int(np.count_nonzero(~wait))  # waiting states are a suffix
        if self.dyn is not None and done > 31 and np.isfinite(self.eff[:done]).all():
            residual_chunk(self.dyn, ts[:done], self.q[:done], self.qd[:done],
                            self.eff[:done], self.residual, self.residual_plot)
        self.t, self.q, self.qd, self.eff = (a[done:] for a in (self.t, self.q, self.qd,
                                                                  self.eff))
