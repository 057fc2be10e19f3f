"""computed_torque: tau = M(q)(qdd_r + Kd (qd_c - qd) + Kp (q_r - q)) + C(q, qd) qd + g(q)
[+ tau_f(qd)] (seed 000 eq. 29 at the commanded acceleration; friction: seed 004).

Why: the model cancels the arm's dynamics and the gains set the error's own (Kp, Kd
acceleration gains: a critically damped error at Kd = 2 sqrt(Kp)).
"""

import numpy as np

from .law import JointLaw, LawConfig, LawInput

__all__ = ['ComputedTorque']

_F64 = np.dtype(np.float64)


class ComputedTorque(JointLaw):
    name = 'computed_torque'
    gains = 'kp [1/s^2], kd [1/s]: acceleration gains, acting through M(q)'
    equation = 'M(q)(qdd_r + Kd e_dot + Kp e) + C(q, qd) qd + g(q) [+ tau_f(qd)]'

    def torque(self, dyn, config: LawConfig, x: LawInput) -> np.ndarray:
        shape = (dyn.n,)  # anything else takes the checked path (one line, InputError)
        plain = all(type(a) is np.ndarray and a.dtype is _F64 and a.shape == shape for a in
                    (x.q, x.qd, x.q_r, x.qd_c, x.qdd_r))
        if plain:
            tau = dyn.computed_torque_prechecked(x.q, x.qd, x.q_r, x.qd_c, x.qdd_r,
                                                 config.kp, config.kd,
                                                 config.include_friction)
        else:
            tau = dyn.computed_torque(x.q, x.qd, x.q_r, x.qd_c, x.qdd_r, config.kp,
                                      config.kd, friction=config.include_friction)
        return self.gravity_dropped(dyn, config, x.q, tau)
