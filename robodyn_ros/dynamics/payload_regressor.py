"""The dynamics as a linear function of a payload's 10 inertial parameters at the tip.

    tau = tau_0(q, qd, qdd) + Y_p(q, qd, qdd) pi_p

tau_0: the model without payload and friction (seed 000 eq. 29); pi_p = [m, m c (3), I_O
(xx, xy, xz, yy, yz, zz)] in the tip frame (model/inertial_parameters.py), rigidly attached
to the tip. The dynamics are linear in the tip body's parameters, so each column of Y_p
is the difference of two inverse dynamics (the compiled recursive path) with the payload
moved along one parameter: exact up to rounding (tests compare it with Pinocchio's
joint-torque regressor).

:meth:`PayloadRegressor.slotine_li` is the same map in the form adaptive control needs
(Slotine and Li 1987): Y_p(q, qd, v, a) pi_p = M_p(q) a + C_p(q, qd) v + g_p(q), with C the
seeds' Christoffel matrix (seed 003 eq. 55; seed 000 eq. 52: Mdot - 2C skew) obtained by
polarising the recursion's quadratic term, C(q, qd) v = 1/4 (n(qd + v) - n(qd - v)),
n(x) = tau(q, x, 0) - g(q) (the Christoffel form is symmetric in its two velocities).
"""

import numpy as np

from ..defaults import GRAVITY
from ..model.inertial_parameters import from_vector
from ..model.payload import with_payload as model_with_payload
from .rigid_body_dynamics import RigidBodyDynamics

__all__ = ['PayloadRegressor', 'with_payload']

#: A payload the columns are taken around (any mass > 0 works: the map is affine).
_REFERENCE = np.array([1.0, 0.0, 0.0, 0.0, 0.1, 0.0, 0.0, 0.1, 0.0, 0.1])


def with_payload(model, pi=None, xml=False):
    """``model`` with a payload pi (10,) in the tip frame lumped into its last body, whose
    parameters seed 003 eq. 49 takes (``xml``: its URDF text gets the payload link too,
    see model.payload)."""
    if pi is None:
        return model
    return model_with_payload(model, from_vector(np.asarray(pi, dtype=float)), xml)


class PayloadRegressor:
    """tau_0 and Y_p of a model (``gravity`` in the base frame [m/s^2]), by seed 000 eq.
    29's recursion."""

    def __init__(self, model, gravity=GRAVITY):
        zero = np.zeros(model.n)

        def dynamics(pi):
            return RigidBodyDynamics(with_payload(model, pi), gravity=gravity, viscous=zero,
                                     coulomb=zero)
        self.n = model.n
        self.base = dynamics(None)
        self.reference = dynamics(_REFERENCE)
        self.basis = [dynamics(_REFERENCE + e) for e in np.eye(10)]
        self._columns = np.empty((model.n, 10))
        work = self.reference.kernel_workspace()  # None: no compiled kernels
        self._params = None if work is None else work[0].copy()  # the chain, gravity
        self._tool = np.ascontiguousarray(model.dh_table('standard').tool, dtype=float)
        self._scratch = np.zeros((model.n + 9, max(model.n, 10)))

    def known(self, q, qd, qdd):
        """tau_0 (n,): the model without payload and friction (seed 000 eq. 29)."""
        return self.base.inverse_dynamics(q, qd, qdd)

    def payload(self, q, qd, qdd):
        """Y_p (n, 10): d tau / d pi_p of seed 000 eq. 29's tau."""
        tau = self.reference.inverse_dynamics(q, qd, qdd)
        return np.column_stack([d.inverse_dynamics(q, qd, qdd) - tau for d in self.basis])

    def slotine_li(self, q, qd, v, a):
        """Y_p(q, qd, v, a) (n, 10): d/d pi_p of M(q) a + C(q, qd) v + g(q), C the
        Christoffel matrix of seed 003 eq. 55 (seed 000 eq. 52), a view of a buffer the
        next call overwrites: compiled, the tip body's equations on three outward passes
        (recursive/tip_regressor.py); else 33 recursions, no matrix formed."""
        if self._params is not None:
            from .recursive.tip_regressor import tip_slotine_li
            tip_slotine_li(q, qd, v, a, self._params, self._tool, self._columns,
                           self._scratch)
            return self._columns
        zero = np.zeros(self.n)
        plus, minus = qd + v, qd - v

        def form(dyn):
            return dyn.inverse_dynamics(q, zero, a) + 0.25 * (
                dyn.inverse_dynamics(q, plus, zero) - dyn.inverse_dynamics(q, minus, zero))
        reference = form(self.reference)
        for k, dyn in enumerate(self.basis):
            self._columns[:, k] = form(dyn) - reference
        return self._columns
