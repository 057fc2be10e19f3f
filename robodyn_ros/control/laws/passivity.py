"""passivity (Slotine and Li 1987): e = q_r - q, qd_a = qd_c + L e, qdd_a = qdd_r +
L (qd_c - qd), s = qd_a - qd;
tau = M(q) qdd_a + C(q, qd) qd_a + g(q) + K_D s [+ tau_f(qd)].

C(q, qd) is the seeds' Coriolis matrix whose Mdot - 2C is skew-symmetric (seed 000 eq.
52; seed 003 eq. 55, the Christoffel symbols): multiplied by qd_a, not by qd. Why that
matters: with V = 1/2 s^T M s + e^T L K_D e, dV/dt = -s^T K_D s - e^T L K_D L e + 1/2
s^T (Mdot - 2C) s, and the last term is zero only for this C: the error converges
without inverting M and without the acceleration being measured.
M(q) qdd_a + g(q) is one recursion at zero velocity (seed 000 eq. 29); the product
C(q, qd) v is the recursion's quadratic term polarised, C(q, qd) v = 1/4 (n(qd + v) -
n(qd - v)) with n(x) = C(q, x) x (the Christoffel form is symmetric in its two
velocities), so no matrix is formed; ``coriolis_matrix(q, qd) @ v`` is the check.
"""

import numpy as np

from .law import JointLaw, LawConfig, LawInput

__all__ = ['Passivity', 'coriolis_times']


def coriolis_times(dyn, q: np.ndarray, qd: np.ndarray, v: np.ndarray) -> np.ndarray:
    """C(q, qd) v [N m or N] by two recursions at zero acceleration (gravity cancels)."""
    zero = np.zeros(dyn.n)
    return 0.25 * (dyn.inverse_dynamics(q, qd + v, zero) - dyn.inverse_dynamics(q, qd - v, zero))


class Passivity(JointLaw):
    name = 'passivity'
    gains = 'kp = Lambda [1/s] (the sliding surface), kd = K_D [N m s/rad]'
    equation = 'M(q) qdd_a + C(q, qd) qd_a + g(q) + K_D s [+ tau_f(qd)]'

    def torque(self, dyn, config: LawConfig, x: LawInput) -> np.ndarray:
        e = x.q_r - x.q
        qd_a = x.qd_c + config.kp * e
        qdd_a = x.qdd_r + config.kp * (x.qd_c - x.qd)
        tau = dyn.inverse_dynamics(x.q, np.zeros(dyn.n), qdd_a)
        tau = self.gravity_dropped(dyn, config, x.q, tau)
        tau += coriolis_times(dyn, x.q, x.qd, qd_a)
        if config.include_friction:
            tau += dyn.friction_torque(x.qd)
        return tau + config.kd * (qd_a - x.qd)
