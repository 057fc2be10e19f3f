"""The tracking error fitted to the reference's rates, per joint:
e = q_r - q ~= c0 + c_v qd_r + c_a qdd_r, by least squares over every compared state.

Why: a well-modelled arm leaves an error without structure; a term proportional to the
reference velocity is a time shift between reference and state (c_v [s]), one proportional
to its acceleration an inertia or feed-forward error, or a velocity measured at another
instant than the position (c_a [s^2]: with computed torque, c_a = -delta / Kp for a
fraction delta of extra acceleration, -Kd lag / Kp for a velocity ``lag`` [s] old). The
normal equations are accumulated chunk by chunk (3 x 3 per joint): memory stays bounded.
"""

import numpy as np

__all__ = ['ErrorFit', 'reference_rates']


def reference_rates(t: np.ndarray, qd: np.ndarray, ts: np.ndarray, k: np.ndarray):
    """(qd_r, qdd_r) at state times ``ts`` [s] inside samples ``k`` .. ``k + 1`` of a sampled
    reference (times ``t`` (m,), velocities ``qd`` (m, n)): the velocity interpolated
    linearly, the acceleration from central differences of the velocities (second order on
    an uneven grid, numpy.gradient), interpolated the same way."""
    qdd = np.gradient(qd, t, axis=0) if len(t) > 2 else \
        np.repeat((qd[1:] - qd[:-1]) / (t[1:] - t[:-1])[:, None], 2, axis=0)
    s = ((ts - t[k]) / (t[k + 1] - t[k]))[:, None]
    return qd[k] + s * (qd[k + 1] - qd[k]), qdd[k] + s * (qdd[k + 1] - qdd[k])


class ErrorFit:
    """Least squares of each joint's error on [1, qd_r, qdd_r], accumulated."""

    def __init__(self, n: int):
        self.gram = np.zeros((n, 3, 3))
        self.moment = np.zeros((n, 3))
        self.sumsq = np.zeros(n)
        self.count = 0

    def add(self, err: np.ndarray, qd_r: np.ndarray, qdd_r: np.ndarray) -> None:
        """Errors (m, n) [rad or m] with the reference velocity and acceleration (m, n)
        at the same states; rows with a non-finite value are left out."""
        keep = np.isfinite(err).all(axis=1) & np.isfinite(qd_r).all(axis=1) & \
            np.isfinite(qdd_r).all(axis=1)
        if not keep.all():
            err, qd_r, qdd_r = err[keep], qd_r[keep], qdd_r[keep]
        if not len(err):
            return
        x = np.stack([np.ones_like(err), qd_r, qdd_r], axis=2)  # (m, n, 3)
        self.gram += np.einsum('mja,mjb->jab', x, x)
        self.moment += np.einsum('mja,mj->ja', x, err)
        self.sumsq += np.einsum('mj,mj->j', err, err)
        self.count += len(err)

    def result(self) -> list[tuple[float, float, float, float] | None]:
        """Per joint (offset [rad], c_v [s], c_a [s^2], residual RMS [rad]), None for a
        joint whose rates did not vary enough to separate the terms (a hold)."""
        out: list[tuple[float, float, float, float] | None] = []
        for j in range(len(self.sumsq)):
            gram = self.gram[j]
            if self.count < 10 or np.linalg.cond(gram) > 1e12:
                out.append(None)
                continue
            c = np.linalg.solve(gram, self.moment[j])
            rest = max(self.sumsq[j] - c @ self.moment[j], 0.0)
            out.append((float(c[0]), float(c[1]), float(c[2]),
                        float(np.sqrt(rest / self.count))))
        return out
