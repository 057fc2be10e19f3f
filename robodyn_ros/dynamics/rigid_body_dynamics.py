"""RigidBodyDynamics: one object per robot, choosing a formulation by ``method``."""

from types import SimpleNamespace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..defaults import GRAVITY
from ..errors import InputError, ModelError
from ..model.kinematics import check_vector
from ..model.robot_model import RobotModel
from .chain import dh_chain
from .friction import friction_torque
from .recursive.recursive_params import MODE_ALL, MODE_C, MODE_M, pack_params, workspace
from .seed.coriolis_matrix import coriolis_christoffel, coriolis_kronecker
from .seed.gravity_vector import gravity_jacobian
from .seed.link_kinematics import link_kinematics
from .seed.mass_matrix import mass_matrix_derivative, mass_matrix_jacobian

__all__ = ['RigidBodyDynamics', 'METHODS']

METHODS = ('recursive', 'kronecker', 'christoffel')


class RigidBodyDynamics:
    """M(q), C(q, qd), g(q), inverse dynamics and friction of a RobotModel.

    Equation of motion: M(q) qdd + C(q, qd) qd + g(q) + tau_f(qd) = tau, all in the
    chain's joint order and SI units ([rad], [m], [N m], [N]).

    Methods:
        'recursive' (default): compiled composite-rigid-body / Christoffel-consistent
            Coriolis / RNEA kernels for the control loop.
        'kronecker': seed 000, Jacobian M (eq. 28), analytic dM/dq, C from eq. (52),
            g from eq. (45).
        'christoffel': same M and dM/dq, C from Christoffel symbols (seed 003 eq. 55).

    Args:
        model: RobotModel.
        method: one of METHODS.
        gravity: gravitational acceleration in the base_link frame [m/s^2].
        viscous, coulomb: (n,) friction overrides (default: URDF damping / friction).
        friction_smoothing: velocity scale [rad/s] of tanh(qd / eps) replacing sgn(qd);
            0 gives the exact sign.
    """

    def __init__(self, model: RobotModel, method: str = 'recursive',
                 gravity: ArrayLike = GRAVITY, viscous: ArrayLike | None = None,
                 coulomb: ArrayLike | None = None, friction_smoothing: float = 0.0) -> None:
        if method not in METHODS:
            raise InputError(f'unknown dynamics method {method!r}; valid: {", ".join(METHODS)}')
        if model.massless:
            raise ModelError(f'moving bodies after joints {list(model.massless)} have no mass '
                             '(no <inertial> in the description): the dynamics need '
                             'inertials; kinematics and DH tables work without them')
        self.model = model
        self.method = method
        self.gravity = np.asarray(gravity, dtype=float)  # base frame [m/s^2]
        self.n = model.n
        self.chain = dh_chain(model, gravity)
        self.viscous = (np.array([j.damping for j in model.joints]) if viscous is None
                        else check_vector(viscous, self.n, 'viscous'))
        self.coulomb = (np.array([j.friction for j in model.joints]) if coulomb is None
                        else check_vector(coulomb, self.n, 'coulomb'))
        if np.any(self.viscous < 0) or np.any(self.coulomb < 0) or friction_smoothing < 0:
            raise InputError('friction coefficients and smoothing must be >= 0')
        self.friction_smoothing = float(friction_smoothing)
        self._params = pack_params(self.chain, self.viscous, self.coulomb,
                                   self.friction_smoothing)
        n = self.n
        self._compiled = method == 'recursive'
        if self._compiled:  # numba loads here, on first use, not on import
            from .recursive import composite_rigid_body, newton_euler
            self._k: Any = SimpleNamespace(
                terms_kernel=composite_rigid_body.terms_kernel,
                rnea_kernel=newton_euler.rnea_kernel,
                computed_torque_kernel=newton_euler.computed_torque_kernel)
        self._shape = (n,)
        self._buf = workspace(n)
        self._out = np.zeros((2 * n + 1, n))
        self._m, self._c, self._g = self._out[:n], self._out[n:2 * n], self._out[2 * n]
        self._tau = np.zeros(n)
        self._zero = np.zeros(n)
        self._out_checked: np.ndarray | None = None

    # -- input checks -------------------------------------------------------------
    def _vec(self, value: ArrayLike, name: str) -> np.ndarray:
        return check_vector(value, self.n, name)

    def _fast(self, value: ArrayLike, name: str) -> np.ndarray:
        # The compiled kernels check finiteness themselves; skip the Python-side copy.
        if self._compiled and type(value) is np.ndarray and value.shape == self._shape \
                and value.dtype == np.float64:
            return value
        return self._vec(value, name)

    def _non_finite(self, **arrays):
        for name, arr in arrays.items():
            self._vec(arr, name)
        raise InputError('non-finite input')  # pragma: no cover - _vec raises first

    def _run_terms(self, q, qd, mode, out=None):
        if not self._k.terms_kernel(q, qd, self._params, self._out if out is None else out,
                                    self._buf, mode):
            self._non_finite(q=q, qd=qd)

    def _coriolis(self, dm, qd):
        """C from dM/dq by the method's formula (seed 000 eq. 52 or seed 003 eq. 55)."""
        if self.method == 'kronecker':
            return coriolis_kronecker(dm, qd)
        return coriolis_christoffel(dm, qd)

    def packed_rows(self) -> np.ndarray:
        """A copy of the chain's packed rows (recursive_params.pack_params: DH, inertials,
        friction; gravity in row n), whatever the method: what compiled kernels of other
        modules (the tip's frame, the payload regressor) read."""
        return self._params.copy()

    def kernel_workspace(self) -> tuple[np.ndarray, ...] | None:
        """(params, tau, buf, out): the arrays the compiled kernels work in, for a
        caller fusing its own cycle around them (single-threaded, like every call here);
        None without compiled kernels."""
        if not self._compiled:
            return None
        return self._params, self._tau, self._buf, self._out

    # -- public API -------------------------------------------------------------------
    def mass_matrix(self, q: ArrayLike) -> np.ndarray:
        """(n, n) joint-space inertia matrix M(q), symmetric positive definite (seed 000 eq.
        28; recursive: composite rigid bodies, the same matrix)."""
        q = self._fast(q, 'q')
        if self.method == 'recursive':
            self._run_terms(q, self._zero, MODE_M)
            return self._m.copy()
        return mass_matrix_jacobian(self.chain, q)

    def mass_matrix_derivatives(self, q: ArrayLike) -> np.ndarray:
        """(n, n, n) analytic dM/dq_k (k first), from seed 000 eq. (28)."""
        q = self._vec(q, 'q')
        return mass_matrix_derivative(self.chain, link_kinematics(self.chain, q))

    def mass_matrix_dot(self, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
        """Mdot = dM/dq (1_n (x) qd) = sum_k dM/dq_k qd_k (seed 000 eq. 40), analytic."""
        return np.einsum('kij,k->ij', self.mass_matrix_derivatives(q), self._vec(qd, 'qd'))

    def coriolis_matrix(self, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
        """(n, n) Coriolis/centrifugal matrix with Mdot - 2C skew-symmetric (seed 000 eq. 52;
        christoffel: seed 003 eq. 55; recursive: the same matrix)."""
        q, qd = self._fast(q, 'q'), self._fast(qd, 'qd')
        if self.method == 'recursive':
            self._run_terms(q, qd, MODE_C)
            return self._c.copy()
        return self._coriolis(mass_matrix_derivative(self.chain, link_kinematics(self.chain, q)),
                              qd)

    def gravity_vector(self, q: ArrayLike) -> np.ndarray:
        """(n,) gravity torques g(q) = (dP/dq)^T (seed 000 eq. 45); recursive: Newton-Euler
        at rest (the same vector, as the controller's fused cycle computes it)."""
        q = self._fast(q, 'q')
        if self.method == 'recursive':
            if not self._k.rnea_kernel(q, self._zero, self._zero, self._params, self._tau,
                                       self._buf):
                self._non_finite(q=q)
            return self._tau.copy()
        return gravity_jacobian(self.chain, link_kinematics(self.chain, q, False))

    def terms(self, q: ArrayLike,
              qd: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(M, C, g) for one control cycle, sharing one kinematics pass (seed 000 eqs. 28,
        52, 45)."""
        q, qd = self._fast(q, 'q'), self._fast(qd, 'qd')
        if self._compiled:
            self._run_terms(q, qd, MODE_ALL)
            out = self._out.copy()
            n = self.n
            return out[:n], out[n:2 * n], out[2 * n]
        kin = link_kinematics(self.chain, q)
        cor = self._coriolis(mass_matrix_derivative(self.chain, kin), qd)
        return mass_matrix_jacobian(self.chain, q, kin), cor, gravity_jacobian(self.chain, kin)

    def terms_into(self, q: ArrayLike, qd: ArrayLike, out: np.ndarray) -> None:
        """Allocation-free M, C, g (seed 000 eqs. 28, 52, 45): ``out`` is a (2n + 1, n) float
        array receiving M in rows [0, n), C in rows [n, 2n) and g in row 2n."""
        if out is not self._out_checked:  # checked once per buffer, not every cycle
            n = self.n
            if type(out) is not np.ndarray or out.shape != (2 * n + 1, n) or \
                    out.dtype != np.float64 or not out.flags.c_contiguous:
                raise InputError(f'out: expected a C-contiguous float64 ({2 * n + 1}, {n}) '
                                 f'array, got {getattr(out, "shape", type(out).__name__)}')
            self._out_checked = out
        q, qd = self._fast(q, 'q'), self._fast(qd, 'qd')
        if self.method != 'recursive':
            m, c, g = self.terms(q, qd)
            out[:self.n], out[self.n:2 * self.n], out[2 * self.n] = m, c, g
            return
        self._run_terms(q, qd, MODE_ALL, out)

    def inverse_dynamics(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> np.ndarray:
        """tau = M(q) qdd + C(q, qd) qd + g(q) (seed 000 eq. 29, no friction)."""
        q, qd, qdd = self._fast(q, 'q'), self._fast(qd, 'qd'), self._fast(qdd, 'qdd')
        if self.method == 'recursive':
            if not self._k.rnea_kernel(q, qd, qdd, self._params, self._tau, self._buf):
                self._non_finite(q=q, qd=qd, qdd=qdd)
            return self._tau.copy()
        m, c, g = self.terms(q, qd)
        return m @ qdd + c @ qd + g

    def friction_torque(self, qd: ArrayLike) -> np.ndarray:
        """(n,) viscous + Coulomb friction torque (seed 004)."""
        qd = self._vec(qd, 'qd')
        return friction_torque(qd, self.viscous, self.coulomb, self.friction_smoothing)

    def computed_torque_prechecked(self, q: np.ndarray, qd: np.ndarray, q_ref: np.ndarray,
                                   qd_ref: np.ndarray, qdd_ref: np.ndarray, kp: np.ndarray,
                                   kd: np.ndarray, friction: bool) -> np.ndarray:
        """:meth:`computed_torque` (seed 000 eq. 29 at qdd_r + Kd e_dot + Kp e) for callers
        that have already checked their inputs: float64 (n,) arrays (the controller's hot
        path: no per-argument Python checks).
        The kernel still refuses non-finite values (InputError)."""
        if not self._compiled:
            return self.computed_torque(q, qd, q_ref, qd_ref, qdd_ref, kp, kd, friction)
        if not self._k.computed_torque_kernel(q, qd, q_ref, qd_ref, qdd_ref, kp, kd,
                                              self._params, friction, self._tau, self._buf):
            self._non_finite(q=q, qd=qd, q_ref=q_ref, qd_ref=qd_ref, qdd_ref=qdd_ref)
        return self._tau.copy()

    def computed_torque(self, q: ArrayLike, qd: ArrayLike, q_ref: ArrayLike, qd_ref: ArrayLike,
                        qdd_ref: ArrayLike, kp: ArrayLike, kd: ArrayLike,
                        friction: bool = True) -> np.ndarray:
        """tau = M(q)(qdd_r + Kd e_dot + Kp e) + C(q, qd) qd + g(q) [+ tau_f(qd)] (seed 000
        eq. 29 at that acceleration; friction: seed 004).

        ``kp`` [1/s^2] and ``kd`` [1/s] are per-joint gains (n,).
        """
        args = [self._fast(v, k) for v, k in ((q, 'q'), (qd, 'qd'), (q_ref, 'q_ref'),
                                              (qd_ref, 'qd_ref'), (qdd_ref, 'qdd_ref'),
                                              (kp, 'kp'), (kd, 'kd'))]
        if self.method != 'recursive':
            qa, qda, qa_ref, qda_ref, qdda_ref, kpa, kda = args
            aq = qdda_ref + kda * (qda_ref - qda) + kpa * (qa_ref - qa)
            tau = self.inverse_dynamics(qa, qda, aq)
            return tau + (self.friction_torque(qda) if friction else 0.0)
        if not self._k.computed_torque_kernel(*args, self._params, friction, self._tau,
                                              self._buf):
            self._non_finite(q=q, qd=qd, q_ref=q_ref, qd_ref=qd_ref, qdd_ref=qdd_ref)
        return self._tau.copy()
