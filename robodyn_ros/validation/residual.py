"""Residual stage of validation: measured effort minus the model's torque along the
measured motion, tau - (M(q) qdd + C(q, qd) qd + g(q) + tau_f(qd)) (seed 000 eq. 29 and
seed 004's friction)."""

import numpy as np

__all__ = ['residual_chunk']


def residual_chunk(dyn, ts, q, qd, eff, stats, plot):
    """Model residual on one chunk: effort - (ID(q, qd, qdd) + friction), qdd by
    Savitzky-Golay differentiation of qd (window 21, cubic)."""
    from scipy.signal import savgol_filter
    dt = float(np.median(np.diff(ts)))
    if dt <= 0:
        return
    qdd = savgol_filter(qd, 21, 3, deriv=1, delta=dt, axis=0)
    qs = savgol_filter(qd, 21, 3, axis=0)
    pred = np.empty_like(eff)
    for k in range(len(ts)):
        pred[k] = dyn.inverse_dynamics(q[k], qs[k], qdd[k]) + dyn.friction_torque(qs[k])
    inner = slice(10, len(ts) - 10)  # drop the filter's edge samples
    stats.add(eff[inner], pred[inner])
    plot.add(ts[inner], eff[inner] - pred[inner])
