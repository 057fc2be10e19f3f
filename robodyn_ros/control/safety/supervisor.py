"""Safety supervisor: the last stage between the control law and the wire.

States::

    inactive --activate--> waiting --first valid state--> ramp_in --ramp_time--> active
    ramp_in / active --watchdog, guard, bad law output--> safe
    safe --valid state again (not latched)--> ramp_in          any --deactivate--> inactive

* Watchdog on a monotonic clock (``now`` passed in, never message stamps): no valid state
  for ``state_timeout`` -> safe. Recovers by itself when valid states return.
* Guards: joint position outside the limits shrunk by a margin, |velocity| above the limit
  (times 1 + margin), a non-finite law output (the element keeps its last value in that
  cycle), a failed online cross-check -> safe,
  latched until deactivate/activate (a guard trip needs a person to look).
* Ramp-in blends from the hold command (at activation: what keeps the arm where its
  brakes or its own controller held it) or from the current output (on recovery).
* Safe command ``hold``, two kinds, the active one named in the reason and diagnostics:

  - *position hold* while the state is trusted (a guard, the law or the cross-check
    tripped): g(q) + M(q) (w^2 (q_h - q) - 2 w qd), holding q_h, the position at the
    trip, each joint a critically damped loop of a bandwidth w the arm and the loop's
    latency tolerate (hold.py); with hold_kp / hold_kd given, g(q) + Kp (q_h - q) - Kd qd;
  - *gravity + damping* g(q_v) - D qd_v at the last valid state when the state is not
    trusted (stale: the watchdog; two sources that disagree); damping only while that
    state is fresh.

  The gravity term only if the law includes gravity. ``zero``: zero torque.
* Every output is rate limited (``max_torque_rate`` [N m/s] times the elapsed time, at
  most one nominal period) and clamped to the effort limits, transitions included. The
  first output of a fresh supervisor starts from the hold command without damping
  (``initial_output: hold``: the torque that keeps the arm where its brakes held it; zero
  on robots compensating gravity themselves) or from zero (``initial_output: zero``).
"""

from collections import deque
import math

import numpy as np

from ..events import Event, EventKind, emit
from ..levels import Level
from ..options import InitialOutput, SafeCommand
from .hold import RUNAWAY_PREFIX, PositionHold
from .kernels import (
    CLAMPED,
    FROZEN_SECONDS,
    JUMP_TOLERANCE,
    NON_FINITE,
    RATE_LIMITED,
    first_violation,
    frozen_state,
    limit_into,
    position_jump,
    rate_step,
)
from .limits import SafetyLimits
from .state_jumps import JUMP_WINDOW, JUMPS_TO_FAULT, judge_jump
from .supervisor_states import (
    ACTIVE,
    GRAVITY_HOLD,
    HELD,
    INACTIVE,
    LEVELS,
    POSITION_HOLD,
    RAMP_IN,
    SAFE,
    WAITING,
    ZERO_TORQUE,
    FusedInputs,
    HoldKind,
    SupervisorState,
)

#: The words of a watchdog trip (no valid state for state_timeout): the reason, the log line
#: and every goal's abort begin with them.
STATE_GAP = 'no valid joint state'

__all__ = ['SafetyLimits', 'SafetySupervisor', 'SupervisorState', 'HoldKind', 'FusedInputs',
           'INACTIVE', 'WAITING', 'RAMP_IN', 'ACTIVE', 'SAFE', 'HELD', 'LEVELS', 'POSITION_HOLD',
           'GRAVITY_HOLD', 'ZERO_TORQUE']


class SafetySupervisor:
    """State machine, watchdog, guards, ramp-in and the rate limit (see module docstring).

    Args:
        limits: SafetyLimits.
        gravity: callable q -> g(q) (n,) for the hold command, or None (gravity not in
            the law: the robot compensates it).
        mass_matrix: callable q -> M(q) (n, n) for the derived position hold, or None
            (then hold_kp / hold_kd must be given, else the hold is gravity + damping).
    """

    def __init__(self, limits, gravity=None, mass_matrix=None):
        self.limits = limits
        self.gravity = gravity
        self.hold = PositionHold(limits, mass_matrix)
        n = len(limits.effort)
        self.n = n
        self.state = INACTIVE
        self.reason = 'not activated'
        self.latched = False
        self.output = np.zeros(n)
        self.output_time = None
        #: the effort the first valid state reported as applied (chain order), if usable
        self.first_effort: np.ndarray | None = None
        self.q_valid = None
        self.qd_valid = None
        self.valid_time = None
        self.ramp_from = np.zeros(n)
        self.ramp_start = 0.0
        self.events: list[Event] = []
        self.faults = 0
        self.compliant = False  # the safe command is a chosen gravity + damping
        self.retrust = False  # held after stale states: the next valid one is trusted
        self.release_reason = ''
        self.rate_limited = 0
        self.clamped = 0
        self._step = limits.max_torque_rate * limits.period
        self.jumps: deque[float] = deque(maxlen=JUMPS_TO_FAULT)  # times of the last rejected jumps
        #: (time, text) of the last jump accepted from a single lagging stream
        self.accepted_jump: tuple[float, str] | None = None
        self.frozen_for = 0.0  # [s] the valid states have repeated themselves bit for bit
        self.frozen = False  # ... long enough, while their velocities say the arm moves
        self.wrap = (~np.isfinite(limits.lower) | ~np.isfinite(limits.upper)).astype(float)

    # -- transitions ------------------------------------------------------------------
    def _enter(self, state, reason, now):
        self.retrust = self.retrust and state == HELD
        if state == RAMP_IN:
            self.ramp_from, self.ramp_start = self.output.copy(), now
        if (state, reason) != (self.state, self.reason):
            # logged at ERROR for a fault, else at INFO: an activation, a deactivation or a
            # shutdown is the operator's, nothing to act on (/diagnostics keeps LEVELS)
            emit(self.events, EventKind.FAULT if state == SAFE else EventKind.TRANSITION,
                 Level.ERROR if state == SAFE else Level.OK,
                 f'{self.state} -> {state}: {reason}')
        self.state, self.reason = state, reason

    def activate(self, now):
        """Start supervising; the command starts from the current output (zeros at start)."""
        self.latched = False
        self.valid_time = None
        self.frozen_for, self.frozen = 0.0, False
        self._enter(WAITING, 'waiting for a valid joint state', now)

    def deactivate(self, now, reason='deactivated'):
        """Stop commanding (call :meth:`final_ramp` first to reach the safe command)."""
        self._enter(INACTIVE, reason, now)

    def release(self, now, reason='deactivated'):
        """Stop following the law and hold the arm where it is: the position hold at the
        last valid state when it is trusted and fresh (else gravity + damping), published
        at rate, within the rate limit, until :meth:`activate` or :meth:`final_ramp`. A
        safe mode's hold stays as it was (its state may not be trusted)."""
        if self.state in (INACTIVE, WAITING):  # nothing commanded: nothing to hold
            self.deactivate(now, reason)
            return
        # A safe mode for stale states (not latched, no position hold) ends at the next
        # valid state while active; held, that state is trusted again: the position hold
        # starts there (accept_state), and the arm does not sag on gravity + damping.
        self.retrust = self.state == SAFE and not self.latched and self.hold.q is None \
            and not self.compliant
        if self.state != SAFE:
            self._choose_hold(now, trusted=True, where='the release position')
        self.release_reason = reason
        self._enter(HELD, f'{reason}; holding the arm: {self.hold_kind}', now)

    def fault(self, now, reason, latch, trusted=True, compliant=False):
        """Enter safe mode (``latch``: stay until deactivate/activate). ``trusted``: the
        last valid state is the arm's (a guard or the law tripped): hold its position;
        False (stale, or two sources): gravity + damping. ``compliant``: gravity + damping
        on a trusted state, chosen (a collision's reaction: the arm yields to what it
        hit)."""
        if self.state in (INACTIVE, WAITING):
            return
        self.latched = self.latched or latch
        entering = self.state != SAFE
        if entering:
            self.faults += 1
            self._choose_hold(now, trusted and not compliant)
            self.compliant = compliant
        elif not trusted and self.hold.q is not None:
            self.hold.q = None  # a hold on a state that is no longer trusted: gravity
        self._enter(SAFE, f'{reason}{" (latched until re-activation)" if latch else ""}; '
                          f'safe command: {self.hold_kind}', now)

    def _choose_hold(self, now, trusted, where='the trip position'):
        """The position hold at the last valid state when it is trusted and fresh
        (``where``: what that state was, for the diagnostics)."""
        self.hold.q, self.hold.where = None, where
        self.compliant = False
        if self.limits.safe_command != SafeCommand.HOLD or not trusted or self.q_valid is None or \
                now - self.valid_time > self.limits.stale_after:
            return
        self.hold.start(self.q_valid, where, self.qd_valid)

    @property
    def hold_q(self):
        """The position hold's target (chain order) [rad or m], or None."""
        return self.hold.q

    @property
    def hold_kind(self):
        """Which safe command is active: POSITION_HOLD, GRAVITY_HOLD or ZERO_TORQUE."""
        if self.limits.safe_command == SafeCommand.ZERO:
            return ZERO_TORQUE
        if self.hold_q is not None:
            return f'{POSITION_HOLD} at {self.hold.where}'
        if self.compliant:
            return f'{GRAVITY_HOLD} (compliant: the arm yields to the contact)'
        return f'{GRAVITY_HOLD} (state not trusted)' if self.gravity is not None else \
            'damping (state not trusted)'

    # -- inputs -----------------------------------------------------------------------
    def accept_state(self, now, q, qd, stamp_interval=0.0):
        """A valid state arrived (``stamp_interval`` [s] after the previous one's stamp; 0:
        unstamped). Returns True when it ends a (non-latched) safe mode or the wait for the
        first state: the caller restarts its reference there."""
        self.note_valid(now, q, qd, stamp_interval)
        if self.state == HELD and self.retrust:
            self.retrust = False
            self._choose_hold(now, trusted=True, where='the position the states resumed at')
            self._enter(HELD, f'{self.release_reason}; holding the arm: {self.hold_kind}', now)
        lim = self.limits
        if self.state in (SAFE, HELD) and self.hold.q is not None:
            self._watch_hold(now, qd)
        if self.state in (RAMP_IN, ACTIVE):
            j = first_violation(q, qd, lim.lower, lim.upper, lim.velocity)
            if 0 <= j < self.n:
                self.fault(now, f'joint {j + 1} position {q[j]:.4g} outside the guard band '
                                f'[{lim.lower[j]:.4g}, {lim.upper[j]:.4g}]', latch=True)
            elif j >= self.n:
                j -= self.n
                self.fault(now, f'joint {j + 1} velocity {qd[j]:.4g} above the guard '
                                f'{lim.velocity[j]:.4g}', latch=True)
            return False
        if self.state == WAITING:
            # Taking over an arm held by its brakes or its own controller: the blend starts
            # at the hold command (what keeps it where it is); the rate limit still applies.
            self._enter(RAMP_IN, 'valid joint state', now)
            self.ramp_from = self.safe_target(now)
            if self.output_time is None and self.limits.initial_output == InitialOutput.HOLD:
                # what the arm's driver applies (a model that misses a payload holds it
                # differently), else the hold of the model
                start = self.first_effort if self.first_effort is not None else \
                    self.safe_target(now, final=True)
                self.output = np.clip(start, -self.limits.effort, self.limits.effort)
            return True
        if self.state == SAFE and not self.latched:
            self._enter(RAMP_IN, 'valid joint states again; holding the current position', now)
            return True
        return False

    def _watch_hold(self, now, qd):
        """The position hold watches itself (PositionHold.watch): a softened or dropped
        hold is an ERROR event, and the state's reason (/diagnostics) says it."""
        text = self.hold.watch(now, qd)
        if text:
            self.reason = f'{self.reason.split("; " + RUNAWAY_PREFIX)[0]}; {text}'
            emit(self.events, EventKind.FAULT, Level.ERROR, f'{self.state}: {text}')

    def since_valid(self, now, stamp_interval=0.0):
        """Time between the last valid state and one received at ``now`` [s]: the longer of
        the receipt times' and the stamps' difference (``stamp_interval``; a stalled
        control thread takes a late state and then a fresh one, closer in receipt time than
        they were sampled)."""
        return max(now - self.valid_time, stamp_interval)

    def jump(self, now, q, names, stamp_interval=0.0, publishers=None):
        """'' when ``q`` is within reach of the last valid state at the velocity guard in
        the time between the two (:meth:`since_valid`); else the reason (the caller rejects
        the state), a lagging single stream accepted and said, or two disagreeing sources
        latched (state_jumps.judge_jump)."""
        if self.q_valid is None or self.state not in (RAMP_IN, ACTIVE, SAFE, HELD):
            return ''
        return judge_jump(self, now, q, names, self.since_valid(now, stamp_interval),
                          publishers)

    # -- the fused cycle's interface ---------------------------------------------------
    def fused_inputs(self, now, stamp_interval=0.0):
        """The inputs of a fused cycle at ``now``, or None when the general path must run
        the cycle: only an active supervisor that has published an output has a fused form
        (every transition, the watchdog and safe mode live on the general path)."""
        if self.state != ACTIVE or self.output_time is None or self.q_valid is None:
            return None
        return FusedInputs(self.output, now - self.output_time, self.q_valid,
                           self.since_valid(now, stamp_interval))

    def accept_fused(self, now, q, qd, flags, stamp_interval=0.0):
        """A fused cycle passed every check of :meth:`jump` and :meth:`accept_state` on
        (q, qd) and limited the output in place with limit_into's ``flags``: the state is
        the last valid one and the output is published at ``now``."""
        self.note_valid(now, q, qd, stamp_interval)
        self.record_output(now, flags)

    def continue_from(self, output, time):
        """Start the rate limit from ``output`` (chain order), published at monotonic
        ``time`` [s] by a previous controller: its first command steps from there."""
        self.output = np.clip(np.asarray(output, dtype=float), -self.limits.effort,
                              self.limits.effort)
        self.output_time = time

    def note_valid(self, now, q, qd, stamp_interval=0.0):
        """The last valid state (it feeds the watchdog and the hold command); the guards
        are :meth:`accept_state`'s. Counts how long the stream has repeated itself
        (kernels.frozen_state) on the states' stamps (``stamp_interval`` [s] since the
        previous one; receipt time when 0); :meth:`check_frozen` acts on it after the
        cycle."""
        if self.q_valid is not None and self.valid_time is not None:
            elapsed = stamp_interval if stamp_interval > 0.0 else now - self.valid_time
            self.frozen_for, self.frozen = frozen_state(
                q, qd, self.q_valid, self.qd_valid, elapsed, self.frozen_for)
        self.q_valid, self.qd_valid, self.valid_time = q, qd, now

    def recent_jump(self, now):
        """'; after <the jump>' when a jump was accepted from a single lagging stream within
        JUMP_WINDOW before ``now`` (a guard it trips names it as a cause), else ''."""
        if self.accepted_jump is None or now - self.accepted_jump[0] > JUMP_WINDOW:
            return ''
        return f'; {now - self.accepted_jump[0]:.3f} s after {self.accepted_jump[1]} ' \
               '(accepted from the one joint_states publisher as a lagging stream)'

    def check_frozen(self, now):
        """Safe mode (latched, state not trusted) when the valid states have repeated
        themselves while their velocities say the arm moves (a driver that stopped reading
        its encoders). Both paths call this after the cycle: the next one is safe."""
        if self.frozen and self.state in (RAMP_IN, ACTIVE):
            self.fault(now, f'the joint states repeated themselves for '
                            f'{self.frozen_for * 1e3:.0f} ms (>= {FROZEN_SECONDS * 1e3:.0f}) '
                            'while their velocities say the arm moves (a driver that '
                            'stopped reading its encoders?)', latch=True, trusted=False)

    def check_watchdog(self, now, why=''):
        """Safe mode when the last valid state is stale (see SafetyLimits.stale_after)."""
        if self.state in (RAMP_IN, ACTIVE) and self.valid_time is not None and \
                now - self.valid_time > self.limits.stale_after:
            age = (now - self.valid_time) * 1e3
            self.fault(now, f'{STATE_GAP} for {age:.0f} ms (state_timeout '
                            f'{self.limits.state_timeout * 1e3:.0f} ms){why}', latch=False,
                       trusted=False)

    def needs_timer(self, now):
        """With state-triggered cycles: True when the timer must publish instead: a
        command goes out every cycle (see :attr:`publishing`) and the last valid state is
        stale (the watchdog expired) or there is none. While valid states arrive they are
        answered, in safe mode and the hold too: one command per hardware cycle."""
        if self.state not in (RAMP_IN, ACTIVE, SAFE, HELD):
            return False
        return self.valid_time is None or now - self.valid_time > self.limits.stale_after

    @property
    def commanding(self):
        """True while the law (possibly blended) drives the output."""
        return self.state in (RAMP_IN, ACTIVE)

    @property
    def publishing(self):
        """True while a command must go out every cycle."""
        return self.state in (RAMP_IN, ACTIVE, SAFE, HELD)

    # -- outputs ----------------------------------------------------------------------
    def safe_target(self, now, final=False):
        """The safe command (see the module docstring) at the last valid state; ``final``:
        gravity only (it may be held forever by a controller that no longer reads the
        state, so no term may depend on the state). No damping on a stale or frozen
        state."""
        tau = np.zeros(self.n)
        if self.limits.safe_command == SafeCommand.ZERO or self.q_valid is None:
            return tau
        if self.gravity is not None:
            tau += self.gravity(self.q_valid)
        if final or now - self.valid_time > self.limits.stale_after or \
                self.frozen_for >= FROZEN_SECONDS:  # a frozen stream's velocity is no speed
            return tau
        qd = np.asarray(self.qd_valid, dtype=float)
        if self.hold.q is not None and self.state in (SAFE, HELD):
            tau += self.hold.torque(self.q_valid, qd)
        else:
            tau -= self.hold.damping(self.q_valid, self.limits.damping) * qd
        return tau

    def command(self, now, law_tau=None):
        """The torque to publish at ``now``: law (blended in ramp_in) or safe, limited."""
        if self.state in (SAFE, HELD) or law_tau is None:
            target = self.safe_target(now)
        elif self.state == RAMP_IN:
            s = (now - self.ramp_start) / self.limits.ramp_time \
                if self.limits.ramp_time > 0 else 1.0
            if s >= 1.0:
                target = law_tau
                self._enter(ACTIVE, 'ramp-in complete', now)
            else:
                s = s * s * (3.0 - 2.0 * s) if s > 0.0 else 0.0
                target = self.ramp_from + s * (law_tau - self.ramp_from)
        else:
            target = law_tau
        return self.limit(now, target)

    def limit(self, now, target):
        """Rate limit and clamp ``target`` against the last output; never non-finite (a
        non-finite element keeps its last value). Returns a copy of the new output."""
        flags = limit_into(target, self.output, self.step_at(now), self.limits.effort)
        if flags & NON_FINITE and self.state != SAFE:
            self.fault(now, 'non-finite torque from the control law', latch=True)
        self.record_output(now, flags)
        return self.output.copy()

    def step_at(self, now):
        """Largest change of any torque allowed for an output at ``now`` [N m or N]."""
        if self.output_time is None:
            return self._step
        return rate_step(self.limits.max_torque_rate, now - self.output_time,
                         self.limits.period)

    def record_output(self, now, flags):
        """The output was limited at ``now`` with limit_into's ``flags``."""
        if flags & RATE_LIMITED:
            self.rate_limited += 1
        if flags & CLAMPED:
            self.clamped += 1
        self.output_time = now

    def warm_up(self, q):
        """Compile (or load) the per-cycle kernels on a throw-away state."""
        lim = self.limits
        first_violation(q, np.zeros(self.n), lim.lower, lim.upper, lim.velocity)
        position_jump(q, q, lim.velocity, self.wrap, 0.0, JUMP_TOLERANCE)
        frozen_state(q, np.zeros(self.n), q, np.zeros(self.n), 0.0, 0.0)
        limit_into(np.zeros(self.n), np.zeros(self.n), self._step, lim.effort)
        rate_step(lim.max_torque_rate, 0.0, lim.period)

    def final_ramp(self, now):
        """Commands, one per nominal period from ``now``, that reach the final safe command
        within the rate limit; the last one equals it exactly (publish them in order)."""
        target = np.clip(self.safe_target(now, final=True), -self.limits.effort,
                         self.limits.effort)
        steps = int(math.ceil(float(np.max(np.abs(target - self.output))) /
                              self._step)) if self.n else 0
        out = []
        t = now if self.output_time is None else max(now, self.output_time)
        for _ in range(steps):
            t += self.limits.period
            out.append(self.limit(t, target))
        self.output = target.copy()
        if not out or not np.array_equal(out[-1], target):
            out.append(self.output.copy())
        return out
