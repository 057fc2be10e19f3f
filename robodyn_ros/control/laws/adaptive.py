"""adaptive (Slotine and Li 1987, on a payload at the tip): the passivity law with the
model's own part fixed and an unknown payload's 10 inertial parameters estimated,

    tau = M(q) qdd_a + C(q, qd) qd_a + g(q) [+ tau_f(qd)] + Y_p(q, qd, qd_a, qdd_a) pi + K_D s,
    pi' = Gamma Y_p^T s,

with e, qd_a, qdd_a and s = qd_a - qd as in passivity.py (Slotine and Li write s the other
way round, s = qd - qd_r, and so pi' = -Gamma Y^T s), Y_p the payload's Slotine-Li
regressor (dynamics/payload_regressor.py: C the seeds' Christoffel matrix, seed 003 eq.
55) and pi = [m, m c, I_O] in the tip frame. Why it converges: with pi~ = pi - pi_true,
V = 1/2 s^T M s + e^T Lambda K_D e + 1/2 pi~^T Gamma^-1 pi~ has dV/dt = -s^T K_D s -
e^T Lambda K_D Lambda e, because 1/2 s^T (Mdot - 2C) s = 0 (seed 000 eq. 52) and the
update cancels s^T Y_p pi~.

The estimate stays physically consistent: after each step its pseudo-inertia J (seed
001; model/inertial_parameters.py) is projected onto J >= EPS 1 by clipping its
eigenvalues (the nearest consistent J in the Frobenius norm: mass > 0, inertia about the
centre of mass positive definite, the triangle inequalities), and a mass above
``mass_max`` scales J down to it (centre of mass kept). It is frozen (held) outside the
active state (ramp-in, safe mode, a hold), during a detected contact, and at rest
(every joint's measured and reference speed below ``rest_speed``): without motion Y_p
sees only gravity, and noise would drive the rest.

The payload's gravity is always in the torque, also with include_gravity false: a robot
that compensates gravity itself does not know a payload robodyn estimates.
"""

import numba
import numpy as np

from ...dynamics.payload_regressor import PayloadRegressor
from .law import Adaptation, JointLaw, LawConfig, LawInput
from .passivity import Passivity

__all__ = ['Adaptive', 'Adaptation', 'PayloadEstimate']

#: Smallest eigenvalue of an estimate's pseudo-inertia [kg, kg m^2].
EPS = 1e-9
#: Longest step the estimate integrates [s] (a late cycle does not make a large one).
MAX_STEP = 0.01
_PASSIVITY = Passivity()


class PayloadEstimate:
    """The estimate pi (10,) [kg, kg m, kg m^2] and its projected update."""

    def __init__(self, adaptation: Adaptation):
        self.adaptation = adaptation
        self.gamma = adaptation.diagonal()
        self.pi = project(np.zeros(10), adaptation.mass_max)
        self.last_time: float | None = None
        self.steps = 0

    def step(self, now: float, y: np.ndarray, s: np.ndarray) -> None:
        """pi += Gamma Y^T s dt, projected; dt from the previous step (none at the first)."""
        dt = 0.0 if self.last_time is None else min(max(now - self.last_time, 0.0), MAX_STEP)
        self.last_time = now
        if dt > 0.0:
            _project(self.pi + self.gamma * (y.T @ s) * dt, self.adaptation.mass_max, EPS,
                     self.pi)
            self.steps += 1

    def hold(self) -> None:
        """Frozen this cycle: the next step starts from the next cycle's time."""
        self.last_time = None


def project(pi: np.ndarray, mass_max: float) -> np.ndarray:
    """The consistent pi nearest to ``pi`` (J's eigenvalues raised to EPS), its mass
    capped at ``mass_max`` [kg] by scaling J (a new array)."""
    out = np.empty(10)
    _project(np.asarray(pi, dtype=float), float(mass_max), EPS, out)
    return out


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _project(pi, mass_max, eps, out):
    """:func:`project` into ``out``, compiled (a 4x4 eigen-decomposition: about 3 us
    against 40 us in numpy calls). J = [[tr(I)/2 1 - I, h], [h^T, m]] (seed 001's
    pseudo-inertia; model/inertial_parameters.py has the same maps in numpy)."""
    xx, xy, xz, yy, yz, zz = pi[4], pi[5], pi[6], pi[7], pi[8], pi[9]
    half = 0.5 * (xx + yy + zz)
    j = np.array([[half - xx, -xy, -xz, pi[1]], [-xy, half - yy, -yz, pi[2]],
                  [-xz, -yz, half - zz, pi[3]], [pi[1], pi[2], pi[3], pi[0]]])
    w, v = np.linalg.eigh(j)
    if w[0] < eps:
        for k in range(4):
            w[k] = max(w[k], eps)
        j = (v * w) @ v.T
    if j[3, 3] > mass_max:
        j = j * (mass_max / j[3, 3])
    trace = j[0, 0] + j[1, 1] + j[2, 2]  # tr(Sigma) = tr(I) / 2
    out[0], out[1], out[2], out[3] = j[3, 3], j[0, 3], j[1, 3], j[2, 3]
    out[4], out[5], out[6] = trace - j[0, 0], -j[0, 1], -j[0, 2]
    out[7], out[8], out[9] = trace - j[1, 1], -j[1, 2], trace - j[2, 2]


class Adaptive(JointLaw):
    name = 'adaptive'
    gains = 'kp = Lambda [1/s] (the sliding surface), kd = K_D [N m s/rad]; adaptive.*'
    equation = ('M(q) qdd_a + C(q, qd) qd_a + g(q) [+ tau_f(qd)] + Y_p(q, qd, qd_a, qdd_a) '
                "pi + K_D s, pi' = Gamma Y_p^T s")
    paths = ('node',)

    def __init__(self, regressor: PayloadRegressor | None = None,
                 adaptation: Adaptation | None = None):
        self.regressor = regressor
        self.estimate = PayloadEstimate(adaptation or Adaptation())
        self._y: np.ndarray | None = None
        self._s = np.zeros(0)
        self._rest = False

    def fresh(self, dyn, config: LawConfig) -> 'Adaptive':
        regressor = PayloadRegressor(dyn.model, dyn.gravity)
        zero = np.zeros(dyn.n)
        regressor.slotine_li(dyn.model.mid_range, zero, zero, zero)  # compiled now, not live
        return Adaptive(regressor, config.adaptation)

    def torque(self, dyn, config: LawConfig, x: LawInput) -> np.ndarray:
        tau = _PASSIVITY.torque(dyn, config, x)
        qd_a = x.qd_c + config.kp * (x.q_r - x.q)
        qdd_a = x.qdd_r + config.kp * (x.qd_c - x.qd)
        y = self.regressor.slotine_li(x.q, x.qd, qd_a, qdd_a)
        self._y, self._s = y, qd_a - x.qd
        rest = self.estimate.adaptation.rest_speed
        self._rest = bool(np.all(np.abs(x.qd) < rest) and np.all(np.abs(x.qd_r) < rest))
        return tau + y @ self.estimate.pi

    def adapt(self, now: float, allowed: bool) -> None:
        """After the cycle's torque: one step of the estimate, or a hold when frozen."""
        if allowed and not self._rest and self._y is not None:
            self.estimate.step(now, self._y, self._s)
        else:
            self.estimate.hold()
        self._y = None
