"""The controller, free of ROS: states and trajectories in, safe torque commands out.

The node converts messages to plain arrays and calls this core with ``now``, a monotonic
time [s] (watchdog, ramps, rate limit). The reference runs on the joint states' own time
base: ``t_ref = now + (stamp - receipt time)`` of the last valid state, so a state stamped
10 s ahead (a robot PC without time sync) neither stops the watchdog nor shifts the
reference, and the published reference shares the states' stamps (validation aligns on
them). States with a zero stamp use ``now``; a jump of the states' clock (reset, stamps
switched on) shifts the reference with it.
"""

from collections.abc import Sequence
import time
from typing import Any, NamedTuple

import numpy as np

from ..errors import ConfigError, InputError, ModelError, RobodynError
from ..model import RobotModel
from .collision import Reaction
from .collision_watch import CollisionWatch
from .controller_config import (
    ControllerConfig,
    acceleration_limits,
    safety_limits,
    velocity_limits,
)
from .controller_dynamics import controller_dynamics, payload_body
from .cycle_statistics import CycleStatistics
from .events import Event, EventKind, emit
from .joint_map import JointMap
from .levels import Level
from .reference.manager import PreparedTrajectory, ReferenceManager
from .reference.trajectories import Hold
from .safety.supervisor import (
    ACTIVE,
    HELD,
    LEVELS,
    RAMP_IN,
    SAFE,
    WAITING,
    SafetySupervisor,
    SupervisorState,
)
from .state_clock import CLOCK_RESET, StateClock

__all__ = ['ControllerCore', 'Command', 'PreparedPayload', 'CLOCK_RESET']

_F64 = np.dtype(float)
#: A JointState's position or velocity field: rclpy's array('d'), a list, or an array.
Values = Sequence[float] | np.ndarray


class Command(NamedTuple):
    """One cycle's output: ``effort`` in the command joint order, the reference in chain
    order at reference time ``t_ref`` [s], the supervisor's ``state`` it was made in."""

    effort: np.ndarray
    q_ref: np.ndarray
    qd_ref: np.ndarray
    t_ref: float
    state: SupervisorState


class PreparedPayload(NamedTuple):
    """A payload's body and the dynamics, law, cross-check and fused cycle carrying it
    (:meth:`ControllerCore.prepare_payload`)."""

    body: Any
    dyn: Any
    law: Any
    cross_check: Any
    fused: Any
    text: str


class ControllerCore:
    """Joint mapping, reference, law, safety supervisor and statistics of one arm.

    Args:
        model: RobotModel of the chain.
        config: ControllerConfig (validated).

    Attributes:
        q, qd: the last valid state, chain order [rad or m, rad/s or m/s]; None before
            the first. The fused cycle writes states into two buffers in turn: copy them
            to keep them past the next cycle.

    Raises:
        ConfigError: joints that do not match the chain, per-joint lists of the wrong
            length, effort limits missing or 0 without an ``effort_limits`` override.
    """

    def __init__(self, model: RobotModel, config: ControllerConfig) -> None:
        if not isinstance(config, ControllerConfig):
            raise ConfigError(f'config: expected a ControllerConfig, got {type(config)}')
        n = model.n
        self.config = config
        self.model = model
        self.joint_map = JointMap(model.joint_names)
        joints = list(config.joints) or list(model.joint_names)
        if sorted(joints) != sorted(model.joint_names):
            raise ConfigError(f'joints: {joints} does not match the chain '
                              f'{list(model.joint_names)}')
        order = [model.joint_names.index(j) for j in joints]
        self.out_order = None if order == list(range(n)) else np.array(order)
        self.in_order = None if self.out_order is None else np.argsort(order)
        self.payload = payload_body(config.payload_mass, config.payload_com,
                                    config.payload_inertia, model, self._gravity_norm())
        self.dyn, self.law = controller_dynamics(model, config, self.payload)
        self.supervisor = SafetySupervisor(safety_limits(model, config),
                                           self.dyn.gravity_vector
                                           if config.include_gravity else None,
                                           self._mass_matrix)
        margin = config.reference_margin
        self.reference = ReferenceManager(self.joint_map, model.lower + margin,
                                          model.upper - margin, config.interpolation,
                                          velocity_limits(model, config),
                                          acceleration_limits(model, config,
                                                              self._mass_matrix))
        self.tracking_limit = config.max_tracking_error if config.max_tracking_error > 0 \
            and not (config.mode == 'gravity' or (config.mode == 'feedforward' and
                                                 not config.feedforward_pd)) else None
        self.stats = CycleStatistics()
        self.cross_check = self._cross_check(self.dyn)
        self.fused_cycle = self._build_fused_cycle()
        self.collision = CollisionWatch.from_config(self.dyn, config, model.joint_names)
        self.events: list[Event] = []
        self.q: np.ndarray | None = None
        self.qd: np.ndarray | None = None
        self.clock = StateClock()
        self.last_rejection = ''
        self.last_collision = 'none'  # the last contact's line (collision watch)
        #: Publishers of the joint states as the node last counted them (None: unknown):
        #: tells two sources that disagree from one whose stamps lag its motion.
        self.state_publishers: int | None = None

    def _mass_matrix(self, q):
        """M(q) of the current dynamics (payload included): the position hold's."""
        return self.dyn.mass_matrix(q)

    def _gravity_norm(self):
        return float(np.linalg.norm(self.config.gravity))

    def _cross_check(self, dyn):
        """Pinocchio's RNEA against ``dyn`` every ``cross_check_every`` cycles, or None."""
        cfg = self.config
        if not cfg.cross_check_every:
            return None
        from .online_cross_check import OnlineCrossCheck
        return OnlineCrossCheck(dyn, cfg.gravity, cfg.cross_check_every,
                                cfg.cross_check_tolerance)

    def _build_fused_cycle(self):
        """The fused active cycle (fused_cycle.py) of the current dynamics, or None."""
        from .fused_cycle import FusedCycle
        return FusedCycle.build(self)

    def set_payload(self, mass: float, com: Sequence[float],
                    inertia: Sequence[float]) -> None:
        """Carry a new payload at the tip (mass [kg], com [m] and inertia about the com
        [kg m^2] in the tip frame; mass 0: none). Call between cycles: the next cycle uses
        it. ConfigError (nothing changed) when it is not physical."""
        self.adopt_payload(self.prepare_payload(mass, com, inertia))

    def check_payload(self, mass: float, com: Sequence[float],
                      inertia: Sequence[float]) -> None:
        """ConfigError when the payload is not physical (cheap: the parameter callback
        answers with it before the payload is prepared off the control thread)."""
        payload_body(mass, com, inertia, self.model, self._gravity_norm())

    def prepare_payload(self, mass: float, com: Sequence[float],
                        inertia: Sequence[float]) -> 'PreparedPayload':
        """Everything a new payload changes, built without changing anything (about 2.5 ms
        for the Panda: any thread may call it; :meth:`adopt_payload` swaps it in).
        ConfigError when it is not physical."""
        from .fused_cycle import FusedCycle
        body = payload_body(mass, com, inertia, self.model, self._gravity_norm())
        dyn, law = controller_dynamics(self.model, self.config, body)
        cross_check = self._cross_check(dyn)
        fused = FusedCycle.build(self, dyn, law, cross_check)
        return PreparedPayload(body, dyn, law, cross_check, fused,
                               f'payload now {mass:g} kg at {list(com)} m')

    def adopt_payload(self, prepared: 'PreparedPayload') -> None:
        """Swap a prepared payload in (the control thread, between cycles; O(1))."""
        self.payload, self.dyn, self.law = prepared.body, prepared.dyn, prepared.law
        self.cross_check, self.fused_cycle = prepared.cross_check, prepared.fused
        if self.config.include_gravity:
            self.supervisor.gravity = prepared.dyn.gravity_vector
        if self.collision is not None:
            self.collision.observer.dyn = prepared.dyn
        emit(self.events, EventKind.PAYLOAD_ADOPTED, Level.OK, prepared.text)

    # -- lifecycle --------------------------------------------------------------------
    def warm_up(self) -> float:
        """Run every compiled path once at a mid-range state (loads numba's kernels before
        the first cycle); returns the time it took [s]."""
        t0 = time.perf_counter()
        q = self.model.mid_range
        z = np.zeros(self.model.n)
        references = [(q, z, z), Hold(q)(0.0)]  # writeable, and Hold's read-only arrays
        for reference in references:
            self.law(q, z, *reference)
        self.dyn.gravity_vector(q)
        self.dyn.inverse_dynamics(q, z, z)
        self.dyn.friction_torque(z)
        self._mass_matrix(np.array(q, dtype=float))  # the position hold's (PositionHold)
        if self.cross_check is not None:
            self.cross_check.check(q, z, z)
        self.supervisor.warm_up(q)
        if self.fused_cycle is not None:
            for reference in references:
                self.fused_cycle.warm_up(q, reference)
        return time.perf_counter() - t0

    def verify_model(self) -> float:
        """M, g and inverse dynamics against Pinocchio once (check_at_load); returns the
        worst relative difference. Raises ModelError beyond LOAD_TOLERANCE: a model that
        loaded wrong is refused before it commands a torque. Skipped (returns NaN) when
        Pinocchio is not installed."""
        try:
            from .online_cross_check import LOAD_TOLERANCE, check_at_load
        except ImportError:
            return float('nan')
        worst = check_at_load(self.dyn, self.config.gravity)
        if not worst <= LOAD_TOLERANCE:
            raise ModelError(f'model {self.model.name!r}: M, g or inverse dynamics differ from '
                             f"Pinocchio's by {worst:.3g} relative (tolerance "
                             f'{LOAD_TOLERANCE:g}); refusing it')
        return worst

    def activate(self, now: float) -> None:
        """Start commanding at the first valid state; ramps in from the current output."""
        self.supervisor.activate(now)
        if self.collision is not None:
            self.collision.restart()

    def release(self, now: float, reason: str) -> None:
        """Deactivate without letting go: stop following the reference and hold the arm
        where it is (SafetySupervisor.release), still one command a cycle; the final ramp
        (:meth:`final_commands`) ends it."""
        self.supervisor.release(now, reason)

    def final_commands(self, now: float, reason: str) -> list[np.ndarray]:
        """Deactivate: commands (command order), one per period, ramping to the final safe
        command within the rate limit; publish them all."""
        ramp = self.supervisor.final_ramp(now)
        self.supervisor.deactivate(now, reason)
        return [self._ordered(tau) for tau in ramp]

    # -- inputs -----------------------------------------------------------------------
    def on_state(self, now: float, names: Sequence[str], position: Values,
                 velocity: Values, stamp: float = 0.0) -> bool:
        """A JointState's fields (any joint order; ``stamp`` [s], 0 = unset). Returns True
        when the state is valid (it feeds the watchdog); False with the reason recorded."""
        try:
            q, qd = self.joint_map.extract(names, position, velocity)
            self.clock.check(stamp)
        except InputError as exc:
            self.reject(now, str(exc))
            return False
        jump = self.supervisor.jump(now, q, self.model.joint_names,
                                    self.clock.stamp_interval(stamp), self.state_publishers)
        if jump:
            self.reject(now, jump)
            return False
        self.q, self.qd = q, qd
        jump = self.clock.take(stamp, now, self.reference)
        if jump:
            emit(self.events, EventKind.CLOCK_JUMP, Level.WARN, jump)
        sup = self.supervisor
        was_waiting = sup.state == WAITING
        if sup.accept_state(now, q, qd):
            self._restart_reference(self.clock.reference_time(now), q, was_waiting)
        return True

    def cycle(self, now: float, names: Sequence[str], position: Values,
              velocity: Values, stamp: float = 0.0) -> Command | None:
        """A state-triggered cycle, :meth:`on_state` then :meth:`update`: the Command, or
        None when nothing is to be published."""
        # Every valid state is answered while a command goes out every cycle (the safe
        # command and the hold too): one command per hardware cycle. A timer's command
        # lands in the hardware's cycles at random, and two in one cycle apply two steps.
        if self.on_state(now, names, position, velocity, stamp) and \
                self.supervisor.publishing:
            # held since the previous state (copied only for the collision watch)
            applied = self.supervisor.output.copy() if self.collision is not None else None
            command = self.update(now)
            self._observe(now, stamp, applied)
            return command
        return None

    def cycle_packed(self, now: float, names: Sequence[str], data: bytes,
                     offsets: tuple[int, int], stamp: float = 0.0) -> Command | None:
        """:meth:`cycle` on a packed state: ``data`` holds len(names) little-endian float64
        positions from byte ``offsets[0]`` and as many velocities from ``offsets[1]`` (a
        JointState's CDR bytes, as the node receives them). While active it runs fused
        (:meth:`_cycle_fused`), with the same result; a ``data`` too short is a rejected
        state."""
        if self.fused_cycle is not None:
            command = self._cycle_fused(now, names, data, offsets, stamp)
            if command is not None:
                return command
        m = len(names)
        if min(offsets) < 0 or max(offsets) + 8 * m > len(data):
            self.reject(now, f'packed state: {m} values at byte offsets {tuple(offsets)} '
                              f'do not fit in {len(data)} bytes')
            return None
        position, velocity = (np.frombuffer(data, '<f8', m, offset) for offset in offsets)
        return self.cycle(now, names, position, velocity, stamp)

    def _cycle_fused(self, now, names, data, offsets, stamp):
        """The cycle in one compiled call (fused_cycle.py): its Command, or None with
        nothing changed, when the general path must decide (cycle_events.py lists when)."""
        fused = self.fused_cycle
        sup = self.supervisor
        inputs = sup.fused_inputs(now, self.clock.stamp_interval(stamp))
        if inputs is None or type(data) is not bytes:
            return None
        layout = fused.layout(names, offsets)
        if layout is None:
            return None
        offset = self.clock.steady_offset(stamp, now)
        if offset is None:
            return None
        t0, c0 = time.perf_counter(), time.thread_time()
        t = self.clock.peek(now, offset)  # remembered below, once the cycle is the fused one's
        reference = self.reference(t)
        q_r, qd_r, qdd_r = reference
        if q_r.dtype is not _F64 or qd_r.dtype is not _F64 or qdd_r.dtype is not _F64:
            return None
        buffer = fused.buffer_besides(inputs.previous)
        # run() writes the new output into it: kept only for the collision watch
        applied = inputs.output.copy() if self.collision is not None else None
        flags = fused.run(data, layout, reference, buffer, inputs)
        if flags < 0:
            return None
        self.q, self.qd = buffer[1], buffer[2]
        self.clock.reference_time(now, offset)  # = t: a declined cycle left no trace
        self.clock.take_steady(stamp, offset)
        sup.accept_fused(now, self.q, self.qd, flags)
        fused.cycles += 1
        self.stats.record(now, (time.thread_time() - c0) * 1e6,
                          (time.perf_counter() - t0) * 1e6)
        self._check_tracking(now, q_r)
        sup.check_frozen(now)
        self._observe(now, stamp, applied)
        return self.command(inputs.output.copy(), q_r, qd_r, t, ACTIVE)

    def reject(self, now: float, reason: str) -> None:
        """Count a state that cannot be used (logged once per distinct reason); it does not
        feed the watchdog."""
        self.stats.bump('rejected_states')
        if reason != self.last_rejection:
            emit(self.events, EventKind.STATE_REJECTED, Level.WARN,
                 f'joint state rejected: {reason}')
            self.last_rejection = reason

    def _restart_reference(self, t, q, first):
        cfg = self.config
        if not first:
            self.reference.hold(q, t)
            return
        try:  # the reference starts moving once ramp-in is over
            self.reference.start(cfg.reference, q, t + cfg.ramp_time,
                                 list(cfg.amplitudes) or None,
                                 list(cfg.periods) or None, cfg.ramp)
        except RobodynError as exc:
            emit(self.events, EventKind.REFERENCE_REJECTED, Level.ERROR,
                 f'reference {cfg.reference} rejected: {exc}; holding the current position')
            self.reference.hold(q, t)

    def on_trajectory(self, now: float, msg: Any) -> tuple[bool, str]:
        """Follow a JointTrajectory (duck-typed). Returns (accepted, one-line text)."""
        if not self.supervisor.commanding:
            return self._refuse(f'trajectory rejected: controller is {self.supervisor.state}')
        prepared = self.prepare_trajectory(now, msg)
        if isinstance(prepared, str):
            return self._refuse(prepared)
        return self.adopt_trajectory(now, prepared)

    def _refuse(self, text):
        emit(self.events, EventKind.TRAJECTORY_REFUSED, Level.WARN, text)
        return False, text

    def prepare_trajectory(self, now: float, msg: Any) -> 'PreparedTrajectory | str':
        """A JointTrajectory converted to start at ``now`` (monotonic [s]), or the text of
        its rejection. Changes nothing: call it from any thread (a long trajectory is
        converted off the control thread), then :meth:`adopt_trajectory` on the control
        thread."""
        if len(msg.points) > self.config.max_trajectory_points:
            return (f'trajectory rejected: {len(msg.points)} points, more than '
                    f'max_trajectory_points ({self.config.max_trajectory_points})')
        try:
            return self.reference.prepare(msg, self.clock.peek(now))
        except (InputError, TypeError, AttributeError, ValueError) as exc:
            return f'trajectory rejected: {exc}'

    def adopt_trajectory(self, now: float, prepared: PreparedTrajectory) -> tuple[bool, str]:
        """Follow a prepared trajectory (control thread; O(1)). (accepted, text)."""
        if not self.supervisor.commanding:
            return self._refuse(f'trajectory rejected: controller is {self.supervisor.state}')
        try:
            duration = self.reference.adopt(prepared)
        except InputError as exc:
            return self._refuse(f'trajectory rejected: {exc}')
        text = f'following a {len(prepared.spline.knots) - 1}-point trajectory over ' \
            f'{duration:.3f} s'
        emit(self.events, EventKind.TRAJECTORY_ADOPTED, Level.OK, text)
        return True, text

    # -- the cycle --------------------------------------------------------------------
    def update(self, now: float) -> Command | None:
        """One cycle at monotonic time ``now`` [s]: a Command, or None while nothing may
        be published (inactive, or no valid state since activation)."""
        sup = self.supervisor
        if not sup.publishing:
            return None
        t0, c0 = time.perf_counter(), time.thread_time()
        if self.last_rejection:
            sup.check_watchdog(now, f'; last rejected state: {self.last_rejection}')
        else:
            sup.check_watchdog(now)
        t = self.clock.reference_time(now)
        q_r, qd_r, qdd_r = self.reference(t)
        law_tau = None
        if sup.commanding:
            law_tau = self._law(now, q_r, qd_r, qdd_r)
        tau = sup.command(now, law_tau)
        self.stats.record(now, (time.thread_time() - c0) * 1e6,
                          (time.perf_counter() - t0) * 1e6)
        state = sup.state  # the state this command was made in (a tracking fault: the next)
        if law_tau is not None:
            self._check_tracking(now, q_r)
        sup.check_frozen(now)
        return self.command(tau, q_r, qd_r, t, state)

    def _check_tracking(self, now, q_r):
        """Safe mode (latched, position hold) when |q_r - q| exceeds max_tracking_error on
        a joint: the arm does not do what it is commanded, and a law that keeps pushing
        would drive it into its limits once it does (both paths call this after the
        cycle; the next cycle is the safe one)."""
        limit = self.tracking_limit
        if limit is None or self.q is None:
            return
        error = np.abs(q_r - self.q)
        j = int(np.argmax(error))
        if error[j] > limit:
            self.supervisor.fault(
                now, f'tracking error {error[j]:.3g} on {self.model.joint_names[j]} above '
                     f'max_tracking_error {limit:g}: the arm does not follow the commands '
                     '(not applied: a paused simulation, an inactive effort controller, a '
                     'joint not in effort mode; or a model far from the arm)', latch=True)

    def _observe(self, now, stamp, applied):
        """The collision watch on this cycle's state (``stamp`` [s], 0: unset, ``now``
        used), ``applied`` the torque held since the previous state: a contact while
        commanding is collision.reaction (a latched safe mode, taking effect next cycle
        as every guard's, or a report)."""
        watch, sup = self.collision, self.supervisor
        if watch is None or self.q is None or self.qd is None:
            return
        watch.applied[:] = applied
        try:
            contact = watch.observe(stamp if stamp > 0.0 else now, self.q, self.qd,
                                    sup.state in (ACTIVE, RAMP_IN))
        except RobodynError as exc:
            sup.fault(now, f'collision observer failed: {exc}', latch=True)
            return
        if contact is None:
            return
        text = watch.describe(contact)
        self.last_collision = f'{text} (state stamp {stamp:.3f} s)'
        if watch.reaction == Reaction.REPORT:
            emit(self.events, EventKind.COLLISION, Level.WARN, text)
        else:
            sup.fault(now, text, latch=True, compliant=watch.reaction == Reaction.COMPLIANT)

    def command(self, tau: np.ndarray, q_ref: np.ndarray, qd_ref: np.ndarray, t_ref: float,
                state: SupervisorState) -> Command:
        """The Command of a cycle's chain-order torque ``tau`` (reordered for output)."""
        return Command(self._ordered(tau), q_ref, qd_ref, t_ref, state)

    def _ordered(self, tau):
        return tau if self.out_order is None else tau[self.out_order]

    def chain_order(self, effort: np.ndarray) -> np.ndarray:
        """A command-order torque (Command.effort) in chain order, as the reference and
        controller_state messages name their joints."""
        return effort if self.out_order is None else effort[self.in_order]

    def _law(self, now, q_r, qd_r, qdd_r):
        try:
            tau = self.law(self.q, self.qd, q_r, qd_r, qdd_r)
        except RobodynError as exc:
            self.supervisor.fault(now, f'control law failed: {exc}', latch=True)
            return None
        check = self.cross_check
        if check is not None and check.due() and \
                check.check(self.q, self.qd, qdd_r) > check.tolerance:
            self.supervisor.fault(now, f'cross-check: |tau - tau_pinocchio| = '
                                       f'{check.last:.3g} > {check.tolerance:.3g}', latch=True)
            return None
        return tau

    # -- reporting --------------------------------------------------------------------
    def drain_events(self) -> list[Event]:
        """Transitions and rejections since the last call, each once."""
        events = self.supervisor.events + self.events
        self.supervisor.events, self.events = [], []
        return events

    def diagnostics(self, now: float) -> tuple[Level, str, dict[str, str]]:
        """(level, message, {key: value}) describing the controller now."""
        sup = self.supervisor
        values = {'state': sup.state, 'reason': sup.reason, 'mode': self.config.mode,
                  'reference': self.reference.kind, 'safe_command': sup.hold_kind,
                  'state_age_ms': 'none' if sup.valid_time is None
                  else f'{(now - sup.valid_time) * 1e3:.3f}',
                  'faults': str(sup.faults), 'clamped': str(sup.clamped),
                  'rate_limited': str(sup.rate_limited),
                  'last_rejection': self.last_rejection or 'none'}
        if sup.state in (SAFE, HELD) and sup.hold_q is not None:
            values['hold_position'] = ' '.join(f'{v:.5f}' for v in sup.hold_q)
        values.update(self.stats.summary())
        if self.cross_check is not None:
            values.update(self.cross_check.summary())
        level, message = LEVELS[sup.state], f'{sup.state}: {sup.reason}'
        if self.collision is not None:
            values['external_torque'] = ' '.join(f'{v:.3f}'
                                                 for v in self.collision.observer.residual)
            values['last_collision'] = self.last_collision
            if self.collision.detector.contact is not None and level == Level.OK:
                level, message = Level.WARN, f'{message}; in contact: {self.last_collision}'
        return level, message, values
