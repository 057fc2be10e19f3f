"""Generalized momentum observer: the external joint torque from the applied torque and
the measured motion, without joint accelerations.

With p = M(q) qd, the equation of motion M qdd + C qd + g + tau_f = tau + tau_ext (seed 000
eq. 29, friction after seed 004) and Mdot = C + C^T (the skew symmetry of Mdot - 2C that
seed 000 eq. 55 proves for the C of its eq. 52; seed 003 eq. 55's Christoffel C is the same
matrix) give

    pdot = tau + C(q, qd)^T qd - g(q) - tau_f(qd) + tau_ext.

The residual (Haddadin, De Luca, Albu-Schaeffer, "Robot Collisions: A Survey on Detection,
Isolation, and Identification", T-RO 2017, eq. 23)

    r(t) = K_O (p(t) - p(0) - int_0^t (tau + C^T qd - g - tau_f + r) ds)

obeys rdot = K_O (tau_ext - r): per joint a first-order low-pass of the external torque with
time constant 1 / K_O. This is where the matrix C itself, not only the vector C qd, is
needed: its transpose.

Discrete form, one state sample k at a time, dt_k from the samples' stamps: the applied
torque tau_k is the one the drives held over (t_{k-1}, t_k] (a zero-order hold: the command
written at the previous cycle), the state's terms s = C^T qd - g - tau_f by the trapezoid
rule, r by forward Euler; written as the equivalent recursion that keeps no growing
integral:

    r_k = (1 - K_O dt_k) r_{k-1} + K_O (p_k - p_{k-1} - (tau_k + (s_{k-1} + s_k) / 2) dt_k)

A sample more than max_step after the last (a gap), or not after it (a restarted stream),
is not integrated, and neither is the sample after it: where the stamp is not the time the
state was sampled, the two intervals around a late one share its motion. The C++
controller stamps a state with its update()'s time, taken after the hardware's read(): a
loop that stalls between the two stamps the state with the stall's end, and the next state,
one period later by the stamps, holds the stall's motion (measured: a 50 ms stall of
controller_manager's loop read as 1.0-2.8 N m of external torque without this rule).

A sample that repeats the last one exactly (every position and velocity, bit for bit)
while a velocity is not zero is skipped, as if it had not come: a moving arm cannot report
the same position twice, so it is a driver repeating its last reading (the state guard's
frozen stream: control/safety trips on it after 50 ms). Integrated, each repeat would
read the torque applied meanwhile as an external one; skipped, the next fresh sample
spans the repeats (a gap when they lasted more than max_step). An arm at rest, whose
encoders repeat with zero velocity, is observed as always: a push on a held arm shows.

The C++ controller runs the same arithmetic in the same order.
"""

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..model.kinematics import check_vector
from .rigid_body_dynamics import RigidBodyDynamics

__all__ = ['MomentumObserver', 'ObserverSettings']

#: Largest K_O dt: beyond 1 the discrete residual overshoots and oscillates.
MAX_GAIN_STEP = 0.5


@dataclass(frozen=True)
class ObserverSettings:
    """How the observer runs.

    Attributes:
        gain: K_O [1/s], the same on every joint: the residual follows a step of external
            torque with time constant 1 / gain (50: 20 ms, 95 % after 60 ms).
        max_step: a sample further than this [s] from the previous one is a gap: the
            residual is held across it, not integrated (the motion in between is unknown).
            gain * max_step <= MAX_GAIN_STEP keeps every integrated step stable.
    """

    gain: float = 50.0
    max_step: float = 0.005

    def __post_init__(self):
        if not (np.isfinite(self.gain) and 0.0 < self.gain <= 1000.0):
            raise InputError(f'observer gain must be within (0, 1000] 1/s, got {self.gain}')
        if not (np.isfinite(self.max_step) and 0.0 < self.max_step <= 0.1):
            raise InputError(f'observer max_step must be within (0, 0.1] s, got '
                             f'{self.max_step}')
        if self.gain * self.max_step > MAX_GAIN_STEP:
            raise InputError(f'observer gain x max_step = {self.gain * self.max_step:g} > '
                             f'{MAX_GAIN_STEP}: the discrete residual would oscillate; '
                             f'lower the gain or max_step')


class MomentumObserver:
    """External joint torque estimate r [N m or N], one sample at a time (seed 000 eqs. 29,
    52, 55 through the module's residual).

    Args:
        dyn: the dynamics the controller runs (payload and identified friction included:
            what the model leaves out shows in r).
        settings: ObserverSettings.

    :meth:`update` allocates nothing on the compiled path: its result is a view of an
    internal array, overwritten by the next call (copy it to keep it).
    """

    def __init__(self, dyn: RigidBodyDynamics, settings: ObserverSettings | None = None):
        self.dyn = dyn
        self.settings = settings or ObserverSettings()
        n = dyn.n
        self.n = n
        self._terms = np.zeros((2 * n + 1, n))
        self._p = np.zeros(n)
        self._p_prev = np.zeros(n)
        self._beta = np.zeros(n)
        self._s = np.zeros(n)
        self._s_prev = np.zeros(n)
        self._tmp = np.zeros(n)
        self._r = np.zeros(n)
        self._q_prev = np.zeros(n)
        self._qd_prev = np.zeros(n)
        self._stamp: float | None = None
        self._after_gap = False  # the last sample was a gap or a restart
        #: Gaps the residual was held across (a sample more than max_step after the last).
        self.gaps = 0
        #: Samples skipped as repeats of the last one while moving (module docstring).
        self.repeats = 0

    @property
    def residual(self) -> np.ndarray:
        """The latest estimate r (a read-only copy)."""
        r = self._r.copy()
        r.flags.writeable = False
        return r

    @property
    def started(self) -> bool:
        """True once a first sample set p(0)."""
        return self._stamp is not None

    def reset(self) -> None:
        """Forget everything: the next sample is p(0) and r restarts from 0."""
        self._stamp = None
        self._after_gap = False
        self._r[:] = 0.0
        self.gaps = 0
        self.repeats = 0

    def update(self, stamp: float, q: ArrayLike, qd: ArrayLike, tau: ArrayLike) -> np.ndarray:
        """Advance to the sample at ``stamp`` [s] with position q, velocity qd, and tau the
        joint torque the actuators applied since the previous sample; returns r (a view,
        see the class docstring). M, C, g of seed 000 eqs. (28), (52), (45).

        A first sample, or one at or before the last stamp (a restarted stream), sets p(0)
        and leaves r; one more than ``max_step`` after the last holds r (a gap); the
        sample after either holds r too; a repeat of the last sample while moving is
        skipped (see the module docstring)."""
        n = self.n
        q, qd = self.dyn._fast(q, 'q'), self.dyn._fast(qd, 'qd')
        tau = tau if type(tau) is np.ndarray and tau.shape == (n,) and \
            tau.dtype == np.float64 else check_vector(tau, n, 'tau')
        if not np.isfinite(tau).all():
            raise InputError('tau: non-finite applied torque')
        if self._stamp is not None and (q == self._q_prev).all() and \
                (qd == self._qd_prev).all() and qd.any():
            self.repeats += 1  # a driver repeating itself: no new measurement
            return self._r
        self._q_prev[:] = q
        self._qd_prev[:] = qd
        self.dyn.terms_into(q, qd, self._terms)  # M, C, g: seed 000 eqs. 28, 52, 45
        np.dot(self._terms[:n], qd, out=self._p)
        self._state_terms(qd)
        dt = None if self._stamp is None else stamp - self._stamp
        steady = dt is not None and 0.0 < dt <= self.settings.max_step
        if steady and not self._after_gap and dt is not None:
            self._integrate(tau, dt)
        elif dt is not None and dt > self.settings.max_step:
            self.gaps += 1
        self._after_gap = dt is not None and not steady
        self._stamp = stamp
        self._p_prev[:] = self._p
        self._s_prev[:] = self._s
        return self._r

    def _state_terms(self, qd: np.ndarray) -> None:
        """s = C^T qd - g - tau_f(qd) (friction after seed 004, as friction.py)."""
        n, s, tmp, dyn = self.n, self._s, self._tmp, self.dyn
        np.dot(self._terms[n:2 * n].T, qd, out=s)
        s -= self._terms[2 * n]
        if dyn.friction_smoothing > 0.0:
            np.divide(qd, dyn.friction_smoothing, out=tmp)
            np.tanh(tmp, out=tmp)
        else:
            np.sign(qd, out=tmp)
        tmp *= dyn.coulomb
        s -= tmp
        np.multiply(dyn.viscous, qd, out=tmp)
        s -= tmp

    def _integrate(self, tau: np.ndarray, dt: float) -> None:
        """r_k = (1 - K dt) r_{k-1} + K (p_k - p_{k-1} - (tau + (s_{k-1} + s_k) / 2) dt)."""
        k, beta, tmp = self.settings.gain, self._beta, self._tmp
        np.add(self._s_prev, self._s, out=beta)
        beta *= 0.5
        beta += tau
        beta *= dt
        np.subtract(self._p, self._p_prev, out=tmp)
        tmp -= beta
        tmp *= k
        self._r *= 1.0 - k * dt
        self._r += tmp
