"""Cross-check of the dynamics against Pinocchio on the same chain with the same locking."""

from dataclasses import dataclass

import numpy as np

from ..dynamics import RigidBodyDynamics
from ..dynamics.pinocchio_chain import PinocchioChain

__all__ = ['PinocchioChain', 'CheckReport', 'cross_check', 'relative_error']


def relative_error(value, reference):
    """max |value - reference| / max(max |reference|, 1e-9)."""
    scale = max(float(np.max(np.abs(reference))), 1e-9)
    return float(np.max(np.abs(np.asarray(value) - reference))) / scale


@dataclass(frozen=True)
class CheckReport:
    """Worst relative errors against Pinocchio and property residuals over all samples."""

    robot: str
    method: str
    n: int
    samples: int
    mass_matrix: float
    coriolis: float
    gravity: float
    inverse_dynamics: float
    skew: float
    symmetry: float
    min_eigenvalue: float
    tolerance: float

    @property
    def passed(self):
        """True when every error is within tolerance and M is positive definite."""
        errors = (self.mass_matrix, self.coriolis, self.gravity, self.inverse_dynamics,
                  self.skew, self.symmetry)
        return all(e <= self.tolerance for e in errors) and self.min_eigenvalue > 0.0


def cross_check(model, method='kronecker', samples=100, seed=0, gravity=(0.0, 0.0, -9.81),
                tolerance=1e-10):
    """Compare M, C, g and inverse dynamics with Pinocchio over random states.

    States: q uniform within limits (+-pi for continuous, clipped to +-pi), qd and qdd
    uniform in [-2, 2]. Skew-symmetry of Mdot - 2C uses the analytic Mdot.
    """
    dyn = RigidBodyDynamics(model, method=method, gravity=gravity)
    ref = PinocchioChain(model, gravity)
    analytic = dyn if method != 'recursive' else RigidBodyDynamics(model, 'kronecker', gravity)
    rng = np.random.default_rng(seed)
    lower = np.clip(model.lower, -np.pi, np.pi)
    upper = np.clip(model.upper, -np.pi, np.pi)
    worst = dict(m=0.0, c=0.0, g=0.0, id=0.0, skew=0.0, sym=0.0)
    min_eig = np.inf
    for _ in range(samples):
        q = rng.uniform(lower, upper)
        qd = rng.uniform(-2.0, 2.0, model.n)
        qdd = rng.uniform(-2.0, 2.0, model.n)
        m, c, g = dyn.terms(q, qd)
        pm, pc, pg = ref.terms(q, qd)
        worst['m'] = max(worst['m'], relative_error(m, pm))
        worst['c'] = max(worst['c'], relative_error(c, pc))
        worst['g'] = max(worst['g'], relative_error(g, pg))
        worst['id'] = max(worst['id'], relative_error(dyn.inverse_dynamics(q, qd, qdd),
                                                      ref.rnea(q, qd, qdd)))
        skew = analytic.mass_matrix_dot(q, qd) - 2.0 * c
        scale = max(np.abs(c).max(), 1e-9)
        worst['skew'] = max(worst['skew'], np.abs(skew + skew.T).max() / scale)
        worst['sym'] = max(worst['sym'], np.abs(m - m.T).max() / np.abs(m).max())
        min_eig = min(min_eig, float(np.linalg.eigvalsh(0.5 * (m + m.T))[0]))
    return CheckReport(model.name, method, model.n, samples, worst['m'], worst['c'], worst['g'],
                       worst['id'], worst['skew'], worst['sym'], min_eig, tolerance)
