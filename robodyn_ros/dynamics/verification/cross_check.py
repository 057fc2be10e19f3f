"""Cross-check of the dynamics against Pinocchio on the same chain with the same locking."""

from collections.abc import Callable
from dataclasses import dataclass
import re

import numpy as np
from numpy.typing import ArrayLike

from ...defaults import GRAVITY
from ...errors import InputError
from ...model import RobotModel
from .. import RigidBodyDynamics
from .pinocchio_chain import PinocchioChain

__all__ = ['PinocchioChain', 'CheckReport', 'cross_check', 'relative_error', 'SEED_MAX_N',
           'PINOCCHIO_MAX_LINKS', 'check_size']

#: The seed formulations (Kronecker eq. 52, Christoffel eq. 55) build n x n^2 and n^3
#: arrays: one evaluation takes ~0.2 s at n = 50 and ~40 s at n = 200 (O(n^4) and more).
#: Beyond this n, ``check`` refuses them; the recursive method has no such limit.
SEED_MAX_N = 30
#: Pinocchio's URDF reader recurses once per link: near 3000 links it overflows an 8 MB
#: stack and the process dies (SIGSEGV) with no message. Refused beyond this many links.
PINOCCHIO_MAX_LINKS = 2000


def relative_error(value: ArrayLike, reference: ArrayLike) -> float:
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
    #: the tool point's J and J̇ q̇ (dynamics/tool_point.py) against Pinocchio's
    tool_point: float = 0.0

    @property
    def passed(self):
        """True when every error is within tolerance and M is positive definite."""
        errors = (self.mass_matrix, self.coriolis, self.gravity, self.inverse_dynamics,
                  self.skew, self.symmetry, self.tool_point)
        return all(e <= self.tolerance for e in errors) and self.min_eigenvalue > 0.0


def check_size(model: RobotModel, method: str) -> None:
    """InputError when ``method`` or Pinocchio cannot check a chain this size (the reason
    and the way out in the message)."""
    links = len(re.findall(r'<link[\s>/]', model.xml))
    if links > PINOCCHIO_MAX_LINKS:
        raise InputError(f'{links} links: Pinocchio cannot read a URDF with more than '
                         f'{PINOCCHIO_MAX_LINKS} links (its reader overflows the stack)')
    if method in ('kronecker', 'christoffel') and model.n > SEED_MAX_N:
        raise InputError(f'n = {model.n}: the {method} formulation is O(n^4) and more (about '
                         f'{0.2 * (model.n / 50) ** 4:.0f} s per evaluation here); it is '
                         f'checked up to n = {SEED_MAX_N}, use --method recursive')


def cross_check(model: RobotModel, method: str = 'kronecker', samples: int = 100,
                seed: int = 0, gravity: ArrayLike = GRAVITY,
                tolerance: float = 1e-10,
                progress: Callable[[int], None] | None = None) -> CheckReport:
    """Compare M, C, g, inverse dynamics and the tool point's J and J̇ q̇ with Pinocchio
    over random states.

    States: q uniform within limits (+-pi for continuous, clipped to +-pi), qd and qdd
    uniform in [-2, 2]. Skew-symmetry of Mdot - 2C uses the analytic Mdot (Kronecker,
    seed 000), or for chains beyond SEED_MAX_N Pinocchio's Mdot = C + C^T.
    ``progress``: called with the number of samples done after each one.

    Raises:
        InputError: a chain too large for the method or for Pinocchio (:func:`check_size`).
    """
    check_size(model, method)
    dyn = RigidBodyDynamics(model, method=method, gravity=gravity)
    ref = PinocchioChain(model, gravity)
    analytic = dyn if method != 'recursive' else \
        RigidBodyDynamics(model, 'kronecker', gravity) if model.n <= SEED_MAX_N else None
    rng = np.random.default_rng(seed)
    lower = np.clip(model.lower, -np.pi, np.pi)
    upper = np.clip(model.upper, -np.pi, np.pi)
    worst = dict(m=0.0, c=0.0, g=0.0, id=0.0, skew=0.0, sym=0.0, tool=0.0)
    min_eig = np.inf
    for k in range(samples):
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
        mdot = analytic.mass_matrix_dot(q, qd) if analytic is not None else pc + pc.T
        skew = mdot - 2.0 * c
        scale = max(np.abs(c).max(), 1e-9)
        worst['skew'] = max(worst['skew'], np.abs(skew + skew.T).max() / scale)
        worst['sym'] = max(worst['sym'], np.abs(m - m.T).max() / np.abs(m).max())
        min_eig = min(min_eig, float(np.linalg.eigvalsh(0.5 * (m + m.T))[0]))
        worst['tool'] = max(worst['tool'], _tool_point_error(model, ref, q, qd))
        if progress is not None:
            progress(k + 1)
    return CheckReport(model.name, method, model.n, samples, worst['m'], worst['c'], worst['g'],
                       worst['id'], worst['skew'], worst['sym'], min_eig, tolerance,
                       worst['tool'])


def _tool_point_error(model, ref, q, qd) -> float:
    """The larger relative error of the tool point's J and J̇ q̇ against Pinocchio's."""
    from ..tool_point import tool_point_motion
    got = tool_point_motion(model, q, qd)
    jac, bias = ref.tool_motion(q, qd, model.tip_link, model.base_link)
    return max(relative_error(got.jacobian, jac), relative_error(got.bias, bias))
