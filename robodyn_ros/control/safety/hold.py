"""The position hold's arithmetic: where the safe command holds a trusted arm.

The derived hold (no ``hold_kp`` / ``hold_kd`` given) commands, at the state (q, qd),

    tau = g(q) + M(q) a,    a_j = w_j^2 (q_h,j - q_j) - 2 w_j qd_j,

the inverse dynamics tau = M qdd + C qd + g (seed 000 eq. 29) of the acceleration a at
zero velocity: a computed-torque law with a fixed target. With the model's M the joints
decouple: each is a critically damped second-order loop of bandwidth w_j [rad/s] whatever
the pose (the C qd term left out is second order in a velocity the hold brings to 0). A diagonal PD
(Kp_j = M_jj w^2 on each joint alone) does not decouple: where two axes align (the Panda's
joints 1 and 3 at q_2 = 0) the inertia a joint feels with the others free, 1 / (M^-1)_jj,
is 40 times below M_jj, and such a hold rings at 1 kHz with one cycle of transport delay.

The bandwidth of joint j is the lowest of

* HOLD_BANDWIDTH [Hz]: slow against the 1 kHz cycle;
* sqrt(effort_j / (HOLD_REACH M_jj)): full effort at HOLD_REACH [rad or m] of error, so a
  small error never saturates the joint (the stiffness M_jj w_j^2 is at most
  effort_j / HOLD_REACH, as the diagonal hold's was);
* HOLD_DELAY_MARGIN / latency: the loop's transport latency [s] (state to applied torque)
  eats phase. A critically damped loop at w goes unstable at w L = 0.65 (1 kHz, discrete;
  docs/reliability.md); the margin is half of it. The C++ controller closes its loop in
  one cycle; the node path over two topics, whose latency a loaded machine stretches, so
  its hold is built for the parameter hold_latency (default 0.02 s: w <= 16 rad/s, 2.5
  Hz; stable in closed loop on MuJoCo through 20 ms at every pose tried, where the
  diagonal hold of before diverged at 3 ms at four of six; docs/reliability.md).

The C++ controller and the lock-step hardware use the same numbers
(robodyn_controllers/torque_safety.hpp: hold_bandwidth; a test compares them).

A loop later than the hold was built for makes it ring and then run away (the node path
under load: measured on MuJoCo, a Panda tripped at 2.4 rad/s through 30 ms of latency
reached 17 rad/s within 0.2 s under a hold built for 20 ms). A healthy hold only slows
the arm: the decoupled loop, critically damped, never drives a joint faster than it
moved when the hold started. So the hold watches itself (:meth:`PositionHold.watch`):
when a joint moves faster than HOLD_RUNAWAY times the larger of its velocity guard and
its speed at the start, the loop is later than assumed; the bandwidths halve (w L is
what the delay margin bounds: half the bandwidth tolerates twice the latency), at most
HOLD_SOFTENINGS times. The softest hold still holds a position, and its damping is
decoupled and latency-bounded as its stiffness is: better than gravity + damping, whose
diagonal damping on a drifting arm (the shoulder under an exact gravity model) takes
seconds to stop it.

The damping of gravity + damping, -D qd, is a feedback loop too: a joint whose inertia
is light against D rings through the loop's latency L (measured: a Panda's wrist, D = 1
N m s/rad, 30 ms, reached 73 rad/s). A first-order loop m v' = -D v(t - L) is stable
while D L / m < pi / 2; :meth:`PositionHold.damping` keeps half of that, with m the
lightest inertia the joint can feel, 1 / (M^-1)_jj (the other joints free), at latency
loop_latency (none: D as given, the C++ controller's one-cycle loop).
"""

from collections.abc import Callable

import numpy as np

from .limits import SafetyLimits

__all__ = ['HOLD_REACH', 'HOLD_BANDWIDTH', 'HOLD_DELAY_MARGIN', 'HOLD_RUNAWAY',
           'HOLD_SOFTENINGS', 'HOLD_SETTLE', 'RUNAWAY_PREFIX', 'DAMPING_DELAY_MARGIN',
           'hold_bandwidths',           'hold_acceleration', 'equivalent_gains', 'PositionHold']

#: Full effort at this error [rad or m]; at most this bandwidth [Hz].
HOLD_REACH, HOLD_BANDWIDTH = 0.5, 5.0
#: w L of the hold's bandwidth w [rad/s] and the loop's latency L [s]: half of 0.65, where
#: a critically damped loop sampled at 1 kHz loses its stability.
HOLD_DELAY_MARGIN = 0.32
#: A joint this many times faster than the larger of its velocity guard and its speed when
#: the hold started: the hold runs away (module docstring); at most this many halvings of
#: its bandwidths, then no position hold.
HOLD_RUNAWAY, HOLD_SOFTENINGS = 1.25, 4
#: After a halving the hold is judged again this much later [s].
HOLD_SETTLE = 0.1
#: D L / m of the damping D through a loop of latency L on an inertia m: half of pi / 2.
DAMPING_DELAY_MARGIN = 0.78
#: How :meth:`PositionHold.watch`'s text begins.
RUNAWAY_PREFIX = 'position hold runs away'


def hold_bandwidths(effort: np.ndarray, inertia: np.ndarray, latency: float) -> np.ndarray:
    """Bandwidth w_j [rad/s] of each joint's hold (module docstring): ``effort`` [N m or N]
    and ``inertia`` M_jj [kg m^2 or kg] per joint, ``latency`` [s] of the loop (<= 0: none
    beyond the cycle). A joint with no positive inertia gets 0 (no hold stiffness)."""
    inertia = np.asarray(inertia, dtype=float)
    reach = np.sqrt(np.asarray(effort, dtype=float) /
                    (HOLD_REACH * np.where(inertia > 0.0, inertia, np.inf)))
    w = np.minimum(2.0 * np.pi * HOLD_BANDWIDTH, reach)
    if latency > 0.0:
        w = np.minimum(w, HOLD_DELAY_MARGIN / latency)
    return np.where(inertia > 0.0, w, 0.0)


def hold_acceleration(w: np.ndarray, hold_q: np.ndarray, q: np.ndarray,
                      qd: np.ndarray) -> np.ndarray:
    """a = w^2 (q_h - q) - 2 w qd [rad/s^2 or m/s^2]: the critically damped acceleration
    towards the hold position q_h; the hold torque is M(q) a + g(q)."""
    return w * w * (hold_q - q) - 2.0 * w * qd


def equivalent_gains(w: np.ndarray, inertia: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Kp, Kd) = (M_jj w^2, 2 M_jj w): the diagonal gains the hold has on each joint alone
    [N m/rad, N m s/rad] (diagnostics, the collision watch's stiffness)."""
    inertia = np.maximum(np.asarray(inertia, dtype=float), 0.0)
    return inertia * w * w, 2.0 * inertia * w


class PositionHold:
    """Where the position hold holds and how stiffly: the target ``q`` [rad or m] (None: no
    position hold), what it was (``where``, as diagnostics say it), the derived bandwidths
    ``w`` or the given gains.

    Args:
        limits: SafetyLimits (effort, hold_kp / hold_kd, loop_latency).
        mass_matrix: callable q -> M(q) (n, n), or None (then hold_kp / hold_kd must be
            given, else no position hold can be had).
    """

    def __init__(self, limits: SafetyLimits,
                 mass_matrix: Callable[[np.ndarray], np.ndarray] | None) -> None:
        self.limits = limits
        self.mass_matrix = mass_matrix
        n = len(limits.effort)
        self.n = n
        self.q: np.ndarray | None = None
        self.where = 'the trip position'
        self.kp = self.kd = np.zeros(n)
        #: the derived hold's bandwidth per joint [rad/s], None with given gains
        self.w: np.ndarray | None = None
        #: per joint, the speed above which the hold runs away [rad/s or m/s] (watch())
        self.runaway = np.full(n, np.inf)
        self.softenings = 0
        self.settle_until = -np.inf

    def inertia(self, q: np.ndarray) -> np.ndarray | None:
        """M(q) when it can be had (finite, positive diagonal), else None."""
        if self.mass_matrix is None:
            return None
        # on a copy: a state read in place is read-only, a type numba would compile anew
        # inside a cycle (a stall of seconds); the warm-up compiles this one
        m = np.asarray(self.mass_matrix(np.array(q, dtype=float)), dtype=float)
        if not (np.all(np.isfinite(m)) and np.all(np.diag(m) > 0)):
            return None
        return m

    def gains(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """(Kp, Kd) of the hold at ``q`` on each joint alone, or None when they cannot be
        had (the hold in force is not changed: :meth:`start` does that).

        Given (hold_kp, hold_kd): a diagonal PD, used as given (a missing one of the two:
        Kp_j = min(effort_j / HOLD_REACH, M_jj (2 pi HOLD_BANDWIDTH)^2), Kd_j =
        2 sqrt(Kp_j M_jj)). Derived (neither given): the decoupled hold of bandwidth w_j
        (hold_bandwidths at the limits' loop_latency), whose gains on each joint alone are
        (M_jj w_j^2, 2 M_jj w_j).
        """
        derived = self._derive(q)
        return None if derived is None else derived[:2]

    def _derive(self, q):
        """(Kp, Kd, w or None) at ``q`` (see :meth:`gains`), or None."""
        lim = self.limits
        kp = lim.hold_kp if lim.hold_kp is not None else np.full(self.n, np.nan)
        kd = lim.hold_kd if lim.hold_kd is not None else np.full(self.n, np.nan)
        if not (np.isnan(kp).any() or np.isnan(kd).any()):
            return kp, kd, None
        m = self.inertia(q)
        if m is None:
            return None
        diagonal = np.diag(m)
        if np.isnan(kp).all() and np.isnan(kd).all():
            w = hold_bandwidths(lim.effort, diagonal, lim.loop_latency)
            return (*equivalent_gains(w, diagonal), w)
        kp = np.where(np.isnan(kp), np.minimum(lim.effort / HOLD_REACH, diagonal * (
            2.0 * np.pi * HOLD_BANDWIDTH) ** 2), kp)
        return kp, np.where(np.isnan(kd), 2.0 * np.sqrt(kp * diagonal), kd), None

    def start(self, q: np.ndarray, where: str, qd: np.ndarray | None = None) -> None:
        """Hold ``q`` (``where`` names it) when gains can be had there, else no position
        hold (:attr:`q` None); ``qd`` the velocity there (for :meth:`watch`)."""
        self.q, self.where, self.softenings = None, where, 0
        self.settle_until = -np.inf
        derived = self._derive(q)
        if derived is not None:
            self.kp, self.kd, self.w = derived
            self.q = np.array(q, dtype=float)
            self._arm_watch(qd)

    def _arm_watch(self, qd):
        speed = np.zeros(self.n) if qd is None else np.abs(np.asarray(qd, dtype=float))
        self.runaway = HOLD_RUNAWAY * np.maximum(self.limits.velocity,
                                                 np.where(np.isfinite(speed), speed, 0.0))

    def watch(self, now: float, qd: np.ndarray) -> str:
        """A valid state's velocities at ``now`` [s] while the position hold is in force:
        '' when it holds; else what was done about a hold that drives a joint faster than
        it moved at the start (module docstring): the bandwidths halved (at most
        HOLD_SOFTENINGS times), then judged again once HOLD_SETTLE has passed (the
        momentum the stiffer hold gave is not the softer one's fault). Given gains
        (hold_kp / hold_kd) are the user's and are left alone."""
        if self.q is None or self.w is None:
            return ''
        speed = np.abs(np.asarray(qd, dtype=float))
        speed = np.where(np.isfinite(speed), speed, 0.0)
        if now < self.settle_until:
            self.runaway = np.maximum(self.runaway, HOLD_RUNAWAY * speed)
            return ''
        j = int(np.argmax(speed - self.runaway))
        if not speed[j] > self.runaway[j] or self.softenings >= HOLD_SOFTENINGS:
            return ''
        self.softenings += 1
        w2 = self.w * self.w  # the squared bandwidths before the halving
        inertia = np.divide(self.kp, w2, out=np.zeros(self.n), where=w2 > 0.0)
        self.w = 0.5 * self.w
        self.kp, self.kd = equivalent_gains(self.w, inertia)
        self.runaway = HOLD_RUNAWAY * np.maximum(self.limits.velocity, speed)
        self.settle_until = now + HOLD_SETTLE
        return (f'{RUNAWAY_PREFIX}: joint {j + 1} at {speed[j]:.3g} (a loop later than the '
                f'hold was built for, or commands not applied); bandwidths halved '
                f'({self.softenings} of {HOLD_SOFTENINGS})')

    def damping(self, q: np.ndarray, damping: np.ndarray) -> np.ndarray:
        """The damping [N m s/rad or N s/m] gravity + damping applies at ``q``: the given
        ``damping`` D, at most DAMPING_DELAY_MARGIN / (M^-1)_jj / loop_latency per joint
        (module docstring); D as given without a latency or a usable M(q)."""
        latency = self.limits.loop_latency
        m = self.inertia(q) if latency > 0.0 else None
        if m is None:
            return damping
        try:
            lightest = 1.0 / np.diag(np.linalg.inv(m))
        except np.linalg.LinAlgError:
            return damping
        if not np.all(np.isfinite(lightest) & (lightest > 0.0)):
            return damping
        return np.minimum(damping, DAMPING_DELAY_MARGIN * lightest / latency)

    def torque(self, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        """The hold's torque beyond gravity at the state (q, qd) [N m or N]: M(q) a of the
        derived hold, else the given diagonal PD (also when M(q) cannot be had there)."""
        q, target, w = np.asarray(q, dtype=float), self.q, self.w
        assert target is not None, 'no position hold started'
        m = self.inertia(q) if w is not None else None
        if w is None or m is None:
            return self.kp * (target - q) - self.kd * qd
        return m @ hold_acceleration(w, target, q, qd)
