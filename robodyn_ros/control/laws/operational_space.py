"""operational_space: the tool's acceleration commanded through the task-space inertia, a
unit-mass spring and damper on its pose error, the arm's Coriolis and gravity torques
cancelled, and a posture torque in the dynamically consistent nullspace (Khatib 1987),

    tau = J^T Lambda (a_r + D_x (J_r qd_c - J qd) + K_x e_x - Jdot qd) + C(q, qd) qd + g(q)
          + (1 - J^T Lambda J M^-1) (Kp (q_r - q) + Kd (qd_c - qd)) [+ J^T F_ff]
          [+ tau_f(qd)],

all in DH frame 0: J (6, n) the tip's geometric Jacobian at q and J_r at q_r (seed 000
eqs. 23-24; dynamics/recursive/tip_frame.py), Jdot qd the velocity product of the tip's
acceleration (the outward pass of seed 000's recursion at qd and qdd = 0), a_r = J_r qdd_r +
Jdot_r qd_c the reference's tool acceleration (at qd_c, the instant the measurement stands for:
laws/law.py), e_x = [p_r - p; theta u] as in cartesian_impedance (the rotation vector of
R_r R^T), D_x,i = 2 zeta sqrt(K_x,i) [1/s] (a unit mass: the error
obeys e'' + D_x e' + K_x e = 0 whatever the configuration), Lambda = (J M^-1 J^T +
DAMPING 1)^-1 the task-space inertia (seed 000's M), damped so that near a singularity it
stays bounded (the supervisor's clamp bounds the torque there in any case), C qd + g the
recursion at zero acceleration (seed 000 eq. 29), F_ff a feed-forward wrench at the tool
point (~/target_wrench: reference/wrench_target.py), outside Lambda: a force the arm
exerts, not an acceleration it is given.

Why: where cartesian_impedance's spring gives the tool K_x^-1 F and a response that
depends on the arm's inertia there, this law makes the tool respond the same way
everywhere (a unit mass), and its nullspace torque never accelerates the tool (J M^-1
N^T = 0): the posture moves the elbow without disturbing the tool.

The C++ law (robodyn_controllers/src/task_laws.cpp) does the same arithmetic in the same
order (test/controllers/test_task_laws_cpp.py).
"""

import numpy as np

from .cartesian_impedance import TipFrameLaw
from .law import Cartesian, LawConfig, LawInput

__all__ = ['DAMPING', 'OperationalSpace']

#: Added to J M^-1 J^T's diagonal before its inverse [1/kg, 1/(kg m^2)]: Lambda stays below
#: 1 / DAMPING (1e4 kg) where J loses a direction; at the Panda's home it changes the
#: commanded acceleration by 0.05 % (test/control/test_operational_space.py).
DAMPING = 1e-4


class OperationalSpace(TipFrameLaw):
    name = 'operational_space'
    gains = ('kp = the posture stiffness [N m/rad], kd = its damping [N m s/rad] (the '
             'dynamically consistent nullspace); the tool spring: cartesian.* (a unit mass)')
    equation = ('J^T Lambda (a_r + D_x e_x_dot + K_x e_x - Jdot qd) + C(q, qd) qd + g(q) + '
                '(1 - J^T Lambda J M^-1) (Kp e + Kd e_dot) [+ J^T F_ff] [+ tau_f(qd)]')

    def torque(self, dyn, config: LawConfig, x: LawInput) -> np.ndarray:
        frame = self.tip_frame()
        from .cartesian_kernel import rotation_vector_into
        spring: Cartesian = config.cartesian
        j_r, r_r, p_r = (a.copy() for a in frame.at(x.q_r))
        # the reference's tool acceleration at the instant the measurement stands for
        a_r = j_r @ x.qdd_r + frame.tip.bias(x.qd_c)  # Jdot qd at the last at()'s q
        xd_r = j_r @ x.qd_c
        j, r, p = (a.copy() for a in frame.at(x.q))
        bias = frame.tip.bias(x.qd)
        e_x = np.empty(6)
        e_x[:3] = p_r - p
        rotation_vector_into(np.ascontiguousarray(r_r @ r.T), e_x[3:])
        k_x = frame.stiffness(spring)
        d_x = 2.0 * float(spring.damping_ratio) * np.sqrt(k_x)
        wanted = a_r + d_x * (xd_r - j @ x.qd) + k_x * e_x - bias
        mass = dyn.mass_matrix(x.q)
        minv_jt = np.linalg.solve(mass, j.T)
        inertia = np.linalg.inv(j @ minv_jt + DAMPING * np.eye(6))
        posture = self.pd(config, x)
        tau = dyn.inverse_dynamics(x.q, x.qd, np.zeros(dyn.n))
        tau = self.gravity_dropped(dyn, config, x.q, tau)
        if config.include_friction:
            tau += dyn.friction_torque(x.qd)
        # N^T posture = posture - J^T Lambda J M^-1 posture (M^-1 J^T's transpose is J M^-1)
        tau += j.T @ (inertia @ (wanted - minv_jt.T @ posture)) + posture
        return self.wrench_added(j, x, tau)
