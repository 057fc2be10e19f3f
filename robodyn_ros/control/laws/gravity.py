"""gravity: tau = g(q) [+ tau_f(qd)] + Kp (q_r - q) + Kd (qd_c - qd) (seed 000 eq. 29's
last term; friction: seed 004).

Why: a PD with gravity compensation needs only g(q); it does not follow a moving
reference closely, so the tracking guard is off.
"""

import numpy as np

from .law import JointLaw, LawConfig, LawInput

__all__ = ['Gravity']


class Gravity(JointLaw):
    name = 'gravity'
    gains = 'kp [N m/rad], kd [N m s/rad]: a torque PD'
    equation = 'g(q) [+ tau_f(qd)] + Kp e + Kd e_dot'

    def follows_reference(self, config: LawConfig) -> bool:
        return False

    def torque(self, dyn, config: LawConfig, x: LawInput) -> np.ndarray:
        tau = dyn.gravity_vector(x.q) if config.include_gravity else np.zeros(dyn.n)
        if config.include_friction:
            tau += dyn.friction_torque(x.qd)
        return tau + self.pd(config, x)
