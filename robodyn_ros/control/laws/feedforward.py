"""feedforward: tau = M(q_r) qdd_r + C(q_r, qd_r) qd_r + g(q_r) [+ tau_f(qd_r)]
[+ Kp (q_r - q) + Kd (qd_c - qd)] (seed 000 eq. 72; friction: seed 004).

Why: the model evaluated on the reference alone is the torque a perfect tracker needs;
with ``feedforward_pd`` a torque PD (Kp, Kd in N m/rad, N m s/rad) corrects the rest.
"""

import numpy as np

from .law import JointLaw, LawConfig, LawInput

__all__ = ['Feedforward']


class Feedforward(JointLaw):
    name = 'feedforward'
    gains = 'kp [N m/rad], kd [N m s/rad]: the PD added with feedforward_pd'
    equation = 'M(q_r) qdd_r + C(q_r, qd_r) qd_r + g(q_r) [+ tau_f(qd_r)] [+ Kp e + Kd e_dot]'

    def follows_reference(self, config: LawConfig) -> bool:
        return config.feedforward_pd

    def torque(self, dyn, config: LawConfig, x: LawInput) -> np.ndarray:
        tau = self.gravity_dropped(dyn, config, x.q_r,
                                   dyn.inverse_dynamics(x.q_r, x.qd_r, x.qdd_r))
        if config.include_friction:
            tau += dyn.friction_torque(x.qd_r)
        if config.feedforward_pd:
            tau += self.pd(config, x)
        return tau
