"""The dynamics as a linear function of what identification estimates:

    tau = tau_0(q, qd, qdd) + Y_p(q, qd, qdd) pi_p + diag(qd) k + diag(sgn qd) c

tau_0: the URDF model without payload and friction (seed 000 eq. 29); pi_p: a payload's 10
inertial parameters in the tip frame (see :mod:`.inertial_parameters`), rigidly attached
to the tip; k, c: per-joint viscous and Coulomb friction (seed 004).

Y_p is the project's own: the dynamics are linear in the tip body's parameters, so each
column is the difference of two inverse dynamics (the compiled recursive path) with the
payload moved along one parameter; exact up to rounding (tests compare it with
Pinocchio's joint-torque regressor).
"""

import numpy as np

from ..defaults import GRAVITY
from ..dynamics import RigidBodyDynamics
from ..model.payload import with_payload as model_with_payload
from .inertial_parameters import from_vector

__all__ = ['with_payload', 'PayloadRegressor', 'friction_regressor']

#: A payload the columns are taken around (any mass > 0 works: the map is affine).
_REFERENCE = np.array([1.0, 0.0, 0.0, 0.0, 0.1, 0.0, 0.0, 0.1, 0.0, 0.1])


def with_payload(model, pi=None, xml=False):
    """``model`` with a payload pi (10,) in the tip frame lumped into its last body
    (``xml``: its URDF text gets the payload link too, see model.payload)."""
    if pi is None:
        return model
    return model_with_payload(model, from_vector(np.asarray(pi, dtype=float)), xml)


def friction_regressor(qd: np.ndarray, smoothing: float = 0.0) -> np.ndarray:
    """(n, 2n) columns of k (viscous) and c (Coulomb): [diag(qd), diag(sgn qd)]; the sign
    smoothed as qd / sqrt(qd^2 + smoothing^2) when smoothing > 0."""
    sign = np.sign(qd) if smoothing <= 0 else qd / np.sqrt(qd ** 2 + smoothing ** 2)
    return np.hstack([np.diag(qd), np.diag(sign)])


class PayloadRegressor:
    """tau_0 and Y_p of a model (``gravity`` in the base frame [m/s^2])."""

    def __init__(self, model, gravity=GRAVITY):
        zero = np.zeros(model.n)

        def dynamics(pi):
            return RigidBodyDynamics(with_payload(model, pi), gravity=gravity, viscous=zero,
                                     coulomb=zero)
        self.n = model.n
        self.base = dynamics(None)
        self.reference = dynamics(_REFERENCE)
        self.basis = [dynamics(_REFERENCE + e) for e in np.eye(10)]

    def known(self, q, qd, qdd):
        """tau_0 (n,): the URDF model without payload and friction."""
        return self.base.inverse_dynamics(q, qd, qdd)

    def payload(self, q, qd, qdd):
        """Y_p (n, 10): d tau / d pi_p."""
        tau = self.reference.inverse_dynamics(q, qd, qdd)
        return np.column_stack([d.inverse_dynamics(q, qd, qdd) - tau for d in self.basis])
