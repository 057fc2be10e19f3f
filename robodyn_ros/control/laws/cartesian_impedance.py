"""cartesian_impedance: a spring and a damper at the tool between the arm and the pose its
joint reference puts the tool at, the arm's own Coriolis and gravity torques cancelled, and
a posture spring in the nullspace,

    tau = J^T (K_x e_x + D_x (J_r qd_c - J qd) [+ F_ff]) + C(q, qd) qd + g(q)
          + N (Kp (q_r - q) + Kd (qd_c - qd)) [+ tau_f(qd)],

all in DH frame 0: J (6, n) the tip's geometric Jacobian at q and J_r at q_r (seed 000
eqs. 23-24; dynamics/recursive/tip_frame.py), e_x = [p_r - p; theta u] with theta u the
rotation vector of R_r R^T (the rotation that takes the tip's axes to the target's: exact
at any angle below pi, no quaternion sign to choose, and K_x's rotational rows in N m/rad
act on an angle), C(q, qd) qd + g(q) the recursion at zero acceleration (seed 000 eq. 29),
D_x,i = 2 zeta sqrt(K_x,i Lambda_ii) with Lambda = (J M^-1 J^T + mu^2 1)^-1 the task-space
inertia (seed 000's M; mu damps it near a singularity), and N = 1 - J^T (J J^T +
mu^2 1)^-1 J the projector onto the torques that move no tool point (the posture spring
Kp, Kd towards q_r there: a redundant arm's elbow; none on a six-axis arm away from its
singularities), F_ff a feed-forward wrench at the tool point (~/target_wrench:
reference/wrench_target.py).

Why: at rest the tool yields to a wrench F by K_x^-1 F (J^T K_x J is the joint stiffness
the spring gives), whatever the configuration, which joint impedance (a joint spring K
gives the tool J K^-1 J^T, varying with q) does not. The target is the tool pose of the
joint reference: a held reference holds a pose, and a trajectory moves the spring's anchor
along the tool's path.
"""

import numpy as np

from .law import Cartesian, JointLaw, LawConfig, LawInput

__all__ = ['CartesianImpedance', 'TipFrameLaw', 'manipulability', 'rotation_vector']

#: Damping of the task-space inverses [m, rad]: below it a direction of J counts as lost.
MU = 1e-3


def rotation_vector(r: np.ndarray) -> np.ndarray:
    """theta u (3,) [rad] of a rotation matrix ``r`` (3, 3), theta in [0, pi]: the law's own
    orientation error (cartesian_kernel.rotation_vector_into), for callers outside a cycle."""
    from .cartesian_kernel import rotation_vector_into
    out = np.empty(3)
    rotation_vector_into(np.ascontiguousarray(r, dtype=float), out)
    return out


def manipulability(j: np.ndarray) -> tuple[float, float]:
    """(Yoshikawa's sqrt(det(J J^T)) over J's min(6, n) largest singular values, the
    smallest of them [m or 1]) of J (6, n): how far the tip is from losing a direction
    (/diagnostics; the C++ task_space.hpp's manipulability)."""
    sigma = np.linalg.svd(np.asarray(j, dtype=float), compute_uv=False)[:min(j.shape)]
    return float(np.prod(sigma)), float(sigma[-1])


class TipFrameLaw(JointLaw):
    """A law on the tip frame (the task-space laws): the registry's entry holds none, and
    :meth:`fresh` builds the one a controller uses, with its compiled kernels loaded."""

    takes_wrench = True

    def __init__(self, frame=None):
        self.frame = frame  # None: the registry's entry (fresh builds the real one)

    def fresh(self, dyn, config: LawConfig) -> 'TipFrameLaw':
        law = type(self)(_TipFrame(dyn))
        q = dyn.model.mid_range
        zero = np.zeros(dyn.n)
        law.torque(dyn, config, LawInput(q, zero, q, zero, zero, zero))  # compiled now
        return law

    @staticmethod
    def wrench_added(j: np.ndarray, x: LawInput, tau: np.ndarray) -> np.ndarray:
        """``tau`` + J^T F_ff: the feed-forward wrench at the tool point (LawInput.wrench;
        J at q), the torque that makes the arm exert it."""
        if x.wrench is not None:
            tau += j.T @ x.wrench
        return tau

    def tip_frame(self) -> '_TipFrame':
        """The law's tip frame; RuntimeError on the registry's entry."""
        if self.frame is None:
            raise RuntimeError(f'the registry entry of {self.name} runs no cycle: use '
                               'fresh()')
        return self.frame


class CartesianImpedance(TipFrameLaw):
    name = 'cartesian_impedance'
    gains = ('kp = the posture stiffness [N m/rad], kd = its damping [N m s/rad] (nullspace); '
             'the tool spring: cartesian.*')
    equation = ('J^T (K_x e_x + D_x (J_r qd_c - J qd) [+ F_ff]) + C(q, qd) qd + g(q) + N '
                '(Kp e + Kd e_dot) [+ tau_f(qd)]')

    def torque(self, dyn, config: LawConfig, x: LawInput) -> np.ndarray:
        frame = self.tip_frame()
        from .cartesian_kernel import rotation_vector_into, task_torque_into
        spring: Cartesian = config.cartesian
        j_r, r_r, p_r = frame.at(x.q_r)
        xd_r = j_r @ x.qd_c
        r_r, p_r = r_r.copy(), p_r.copy()  # the next call overwrites them
        j, r, p = frame.at(x.q)
        e_x = np.empty(6)
        e_x[:3] = p_r - p
        rotation_vector_into(r_r @ r.T, e_x[3:])
        tau = dyn.inverse_dynamics(x.q, x.qd, np.zeros(dyn.n))
        tau = self.gravity_dropped(dyn, config, x.q, tau)
        if config.include_friction:
            tau += dyn.friction_torque(x.qd)
        task_torque_into(j, e_x, xd_r, np.ascontiguousarray(x.qd, dtype=float),
                         dyn.mass_matrix(x.q), self.pd(config, x), frame.stiffness(spring),
                         float(spring.damping_ratio), MU, tau, frame.task_work)
        return self.wrench_added(j, x, tau)


class _TipFrame:
    """The tip frame (dynamics/recursive/tip_frame.py, compiled: imported when a law is
    built) with the law's own work arrays and its spring's K_x."""

    def __init__(self, dyn):
        from ...dynamics.recursive.tip_frame import TipFrame
        self.tip = TipFrame(dyn)
        self.at = self.tip.at
        self.task_work = np.zeros((dyn.n + 21, max(dyn.n, 6)))
        self._spring: tuple = (None, None)

    def stiffness(self, spring: Cartesian) -> np.ndarray:
        """K_x as an array, converted once per spring."""
        if self._spring[0] is not spring:
            self._spring = (spring, np.asarray(spring.stiffness, dtype=float))
        return self._spring[1]
