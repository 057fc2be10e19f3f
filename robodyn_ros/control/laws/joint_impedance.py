"""joint_impedance: tau = K (q_r - q) + D (qd_c - qd) + C(q, qd) qd + g(q)
[+ M(q) qdd_r with inertia_feedforward] [+ tau_f(qd)] (seed 000 eq. 29: C(q, qd) qd + g(q)
is the recursion at zero acceleration; M(q) qdd_r its inertial term; friction: seed 004).

Why: a spring K [N m/rad] and a damper D [N m s/rad] per joint between the arm and its
reference, the arm's own Coriolis and gravity torques cancelled: at rest the arm yields
to an external torque by K^-1 tau_ext, which computed torque (stiffness M(q) Kp, varying
with q) does not give.
"""

import numpy as np

from .law import JointLaw, LawConfig, LawInput

__all__ = ['JointImpedance']


class JointImpedance(JointLaw):
    name = 'joint_impedance'
    gains = 'kp = K [N m/rad], kd = D [N m s/rad]: the joint spring and damper'
    equation = 'K e + D e_dot + C(q, qd) qd + g(q) [+ M(q) qdd_r] [+ tau_f(qd)]'

    def torque(self, dyn, config: LawConfig, x: LawInput) -> np.ndarray:
        acc = x.qdd_r if config.inertia_feedforward else np.zeros(dyn.n)
        tau = self.gravity_dropped(dyn, config, x.q, dyn.inverse_dynamics(x.q, x.qd, acc))
        if config.include_friction:
            tau += dyn.friction_torque(x.qd)
        return tau + self.pd(config, x)
