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
        from .adaptive_kernel import project_into
        self._project = project_into
        self.pi = project(np.zeros(10), adaptation.mass_max)
        self.last_time: float | None = None

    def step(self, now: float, y: np.ndarray, s: np.ndarray) -> None:
        """pi += Gamma Y^T s dt, projected; dt from the previous step (none at the first). A
        non-finite step (a state the supervisor refuses this cycle) leaves pi as it was and
        holds it."""
        dt = 0.0 if self.last_time is None else min(max(now - self.last_time, 0.0), MAX_STEP)
        self.last_time = now
        if dt > 0.0:
            pi = self.pi + self.gamma * (y.T @ s) * dt
            if np.all(np.isfinite(pi)):
                self._project(pi, self.adaptation.mass_max, EPS, self.pi)
            else:
                self.hold()

    def hold(self) -> None:
        """Frozen this cycle: the next step starts from the next cycle's time."""
        self.last_time = None


def project(pi: np.ndarray, mass_max: float) -> np.ndarray:
    """The consistent pi nearest to ``pi`` (J's eigenvalues raised to EPS), its mass
    capped at ``mass_max`` [kg] by scaling J (a new array)."""
    from .adaptive_kernel import project_into  # numba: loaded with the law, not the registry
    out = np.empty(10)
    project_into(np.asarray(pi, dtype=float), float(mass_max), EPS, out)
    return out


class Adaptive(JointLaw):
    name = 'adaptive'
    gains = 'kp = Lambda [1/s] (the sliding surface), kd = K_D [N m s/rad]; adaptive.*'
    equation = ('M(q) qdd_a + C(q, qd) qd_a + g(q) [+ tau_f(qd)] + Y_p(q, qd, qd_a, qdd_a) '
                "pi + K_D s, pi' = Gamma Y_p^T s")

    def __init__(self, regressor: PayloadRegressor | None = None,
                 adaptation: Adaptation | None = None):
        self.regressor = regressor  # None: the registry's entry (fresh builds the real one)
        self.estimate = None if regressor is None else \
            PayloadEstimate(adaptation or Adaptation())
        self._y: np.ndarray | None = None
        self._s = np.zeros(0)
        self._rest = False

    def fresh(self, dyn, config: LawConfig) -> 'Adaptive':
        regressor = PayloadRegressor(dyn.model, dyn.gravity)
        zero = np.zeros(dyn.n)
        regressor.slotine_li(dyn.model.mid_range, zero, zero, zero)  # compiled now, not live
        return Adaptive(regressor, config.adaptation)

    def _built(self) -> tuple[PayloadRegressor, PayloadEstimate]:
        if self.regressor is None or self.estimate is None:
            raise RuntimeError('the registry entry of adaptive runs no cycle: use fresh()')
        return self.regressor, self.estimate

    def torque(self, dyn, config: LawConfig, x: LawInput) -> np.ndarray:
        regressor, estimate = self._built()
        tau = _PASSIVITY.torque(dyn, config, x)
        qd_a = x.qd_c + config.kp * (x.q_r - x.q)
        qdd_a = x.qdd_r + config.kp * (x.qd_c - x.qd)
        y = regressor.slotine_li(x.q, x.qd, qd_a, qdd_a)
        self._y, self._s = y, qd_a - x.qd
        rest = estimate.adaptation.rest_speed
        self._rest = bool(np.all(np.abs(x.qd) < rest) and np.all(np.abs(x.qd_r) < rest))
        return tau + y @ estimate.pi

    def adapt(self, now: float, allowed: bool) -> None:
        """After the cycle's torque: one step of the estimate, or a hold when frozen."""
        estimate = self._built()[1]
        if allowed and not self._rest and self._y is not None:
            estimate.step(now, self._y, self._s)
        else:
            estimate.hold()
        self._y = None
