"""The dynamics as a linear function of what identification estimates:

    tau = tau_0(q, qd, qdd) + Y_p(q, qd, qdd) pi_p + diag(qd) k + diag(sgn qd) c

tau_0 and Y_p: the model and a tip payload's 10 inertial parameters
(dynamics/payload_regressor.py, which adaptive control shares); k, c: per-joint viscous
and Coulomb friction (seed 004).
"""

import numpy as np

from ..dynamics.payload_regressor import PayloadRegressor, with_payload

__all__ = ['with_payload', 'PayloadRegressor', 'friction_regressor']


def friction_regressor(qd: np.ndarray, smoothing: float = 0.0) -> np.ndarray:
    """(n, 2n) columns of k (viscous) and c (Coulomb): [diag(qd), diag(sgn qd)]; the sign
    smoothed as qd / sqrt(qd^2 + smoothing^2) when smoothing > 0."""
    sign = np.sign(qd) if smoothing <= 0 else qd / np.sqrt(qd ** 2 + smoothing ** 2)
    return np.hstack([np.diag(qd), np.diag(sign)])
