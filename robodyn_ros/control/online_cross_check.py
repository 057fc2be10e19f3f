"""Online cross-check of the controller-rate dynamics against Pinocchio's RNEA.

Every ``every`` cycles the controller's inverse dynamics at the measured state and the
reference acceleration, tau = M(q) qdd_r + C(q, qd) qd + g(q) (seed 000 eq. 29), is
recomputed by Pinocchio's RNEA on the same chain; the largest absolute difference [N m]
is kept for /diagnostics and compared with the tolerance.
"""

import time

import numpy as np

from ..dynamics.verification.pinocchio_chain import PinocchioChain
from ..errors import ModelError

__all__ = ['OnlineCrossCheck', 'check_at_load', 'refuse_if_wrong', 'LOAD_TOLERANCE']

#: Largest relative difference of M, g and inverse dynamics from Pinocchio's at configure.
LOAD_TOLERANCE = 1e-9


def check_at_load(dynamics, gravity, samples=3, seed=0):
    """Worst relative difference of M(q), g(q) and tau = ID(q, qd, qdd) from Pinocchio's
    (seed 000 eqs. 28-29) at ``samples`` random states within the limits: run once at
    configure, so a model that loaded wrong is refused before it commands a torque.
    Measured on the Panda: 2.5 ms, plus 0.2 s for Pinocchio's import on the first call."""
    reference = PinocchioChain(dynamics.model, gravity)
    model = dynamics.model
    lower = np.where(np.isfinite(model.lower), model.lower, -np.pi)
    upper = np.where(np.isfinite(model.upper), model.upper, np.pi)
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(samples):
        q = rng.uniform(lower, upper)
        qd, qdd = rng.uniform(-2.0, 2.0, (2, model.n))
        m_ref, _, g_ref = reference.terms(q, qd)
        tau_ref = reference.rnea(q, qd, qdd)
        for ours, theirs in ((dynamics.mass_matrix(q), m_ref),
                             (dynamics.gravity_vector(q), g_ref),
                             (dynamics.inverse_dynamics(q, qd, qdd), tau_ref)):
            scale = max(float(np.abs(theirs).max()), 1e-12)
            worst = max(worst, float(np.abs(ours - theirs).max()) / scale)
    return worst


def refuse_if_wrong(dynamics, gravity, name: str) -> float:
    """:func:`check_at_load`'s worst relative difference; ModelError naming ``name`` when
    it exceeds LOAD_TOLERANCE (a model that loaded wrong commands no torque)."""
    worst = check_at_load(dynamics, gravity)
    if not worst <= LOAD_TOLERANCE:
        raise ModelError(f'model {name!r}: M, g or inverse dynamics differ from '
                         f"Pinocchio's by {worst:.3g} relative (tolerance "
                         f'{LOAD_TOLERANCE:g}); refusing it')
    return worst


class OnlineCrossCheck:
    """RNEA of the controller's dynamics vs Pinocchio's, every ``every`` cycles.

    Args:
        dynamics: RigidBodyDynamics used by the controller.
        gravity: the same gravity, in the base_link frame [m/s^2].
        every: cycles between checks (> 0).
        tolerance: largest admissible |difference| [N m or N].
    """

    def __init__(self, dynamics, gravity, every, tolerance):
        self.dyn = dynamics
        self.reference = PinocchioChain(dynamics.model, gravity)
        self.every = int(every)
        self.tolerance = float(tolerance)
        self.countdown = self.every
        self.checks = 0
        self.worst = 0.0
        self.last = 0.0
        self.cost_us = 0.0

    def due(self):
        """True once every ``every`` calls."""
        self.countdown -= 1
        if self.countdown > 0:
            return False
        self.countdown = self.every
        return True

    def check(self, q, qd, qdd):
        """Largest |tau_robodyn - tau_pinocchio| at (q, qd, qdd) [N m]; records the cost."""
        t0 = time.perf_counter()
        ours = self.dyn.inverse_dynamics(q, qd, qdd)
        theirs = self.reference.rnea(q, qd, qdd)
        self.last = float(np.max(np.abs(ours - theirs)))
        self.cost_us = (time.perf_counter() - t0) * 1e6
        self.checks += 1
        self.worst = max(self.worst, self.last)
        return self.last

    def summary(self):
        """{key: value string} for /diagnostics."""
        return {'cross_check_max_nm': f'{self.worst:.3e}',
                'cross_check_last_nm': f'{self.last:.3e}',
                'cross_check_count': str(self.checks),
                'cross_check_cost_us': f'{self.cost_us:.1f}'}
