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
from typing import NamedTuple

import numpy as np

from ..errors import ConfigError, InputError, RobodynError
from ..model import RobotModel
from .collision_watch import CollisionWatch
from .controller_config import (
    ControllerConfig,
    acceleration_limits,
    safety_limits,
    tracking_limit,
    velocity_limits,
)
from .controller_dynamics import controller_dynamics, payload_body
from .core_report import core_diagnostics
from .cycle_statistics import CycleStatistics
from .events import Event, EventKind, emit
from .joint_map import JointMap, command_order
from .levels import Level
from .payload_swap import (
    PreparedPayload,
    adopt_payload,
    check_payload,
    gravity_norm,
    prepare_payload,
)
from .reference.manager import ReferenceManager
from .reference.pose_target import PoseTargets, TargetBounds
from .reference.wrench_target import WrenchBounds, WrenchFeed
from .reference_inputs import ReferenceInputs
from .safety.safety_view import SafetyView
from .safety.supervisor import ACTIVE, WAITING, SafetySupervisor, SupervisorState
from .safety.tracking_guard import tracking_fault
from .state_clock import CLOCK_RESET, StateClock
from .warm_up import warm_up_core

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


class ControllerCore(ReferenceInputs):
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
        self.config = config
        self.model = model
        self.joint_map = JointMap(model.joint_names)
        self.out_order, self.in_order = command_order(model.joint_names, config.joints)
        self.payload = payload_body(config.payload_mass, config.payload_com,
                                    config.payload_inertia, model, gravity_norm(config))
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
        self.targets = PoseTargets(self.dyn, self.reference, TargetBounds(
            config.target_speed, config.target_rotation_speed, config.target_workspace,
            config.max_torque_rate),
            1.0 / config.rate)
        self.wrenches = WrenchFeed(WrenchBounds(
            config.wrench_max_force, config.wrench_max_torque, config.wrench_rise_time,
            config.wrench_timeout), model.base_link, model.dh_table('standard').base,
            self.law.law.takes_wrench)
        self.tracking_limit = tracking_limit(config)
        self.stats = CycleStatistics()
        self.cross_check = self._cross_check(self.dyn)
        from .fused_cycle import FusedCycle  # its kernels compile: imported when needed
        self.fused_cycle = FusedCycle.build(self)  # the fused active cycle, or None
        self.collision = CollisionWatch.from_config(self.dyn, config, model.joint_names)
        self.events: list[Event] = []
        self.safety = SafetyView(self.supervisor)  # what the node may ask of the supervisor
        self.q: np.ndarray | None = None  # the last valid state (class docstring)
        self.qd: np.ndarray | None = None
        self.clock = StateClock()
        self.last_rejection = ''
        self.rejected_at: float | None = None  # monotonic time of the last rejected state
        self.last_collision = 'none'  # the last contact's line (collision watch)
        #: joint_states publishers as the node counted them (None: unknown; collision.py)
        self.state_publishers: int | None = None

    def _mass_matrix(self, q):
        """M(q) of the current dynamics (payload included): the position hold's."""
        return self.dyn.mass_matrix(q)

    def _cross_check(self, dyn):
        """Pinocchio's RNEA against ``dyn`` every ``cross_check_every`` cycles, or None."""
        cfg = self.config
        if not cfg.cross_check_every:
            return None
        from .online_cross_check import OnlineCrossCheck
        return OnlineCrossCheck(dyn, cfg.gravity, cfg.cross_check_every,
                                cfg.cross_check_tolerance)

    def set_payload(self, mass: float, com: Sequence[float],
                    inertia: Sequence[float]) -> None:
        """Carry a new payload at the tip (payload_swap.py); call between cycles."""
        self.adopt_payload(self.prepare_payload(mass, com, inertia))

    def check_payload(self, mass: float, com: Sequence[float],
                      inertia: Sequence[float]) -> None:
        """ConfigError when the payload is not physical (payload_swap.check_payload)."""
        check_payload(self, mass, com, inertia)

    def prepare_payload(self, mass: float, com: Sequence[float],
                        inertia: Sequence[float]) -> PreparedPayload:
        """What a new payload changes, built off the control thread (payload_swap.py)."""
        return prepare_payload(self, mass, com, inertia)

    def adopt_payload(self, prepared: PreparedPayload) -> None:
        """Swap a prepared payload in (control thread, between cycles; payload_swap.py)."""
        adopt_payload(self, prepared)

    # -- lifecycle --------------------------------------------------------------------
    def warm_up(self) -> float:
        """Load every compiled path before the first cycle (warm_up.warm_up_core) [s]."""
        return warm_up_core(self)

    def verify_model(self) -> float:
        """M, g and inverse dynamics against Pinocchio once (online_cross_check.
        refuse_if_wrong): the worst relative difference, ModelError beyond LOAD_TOLERANCE;
        NaN when Pinocchio is not installed."""
        try:
            from .online_cross_check import refuse_if_wrong
        except ImportError:
            return float('nan')
        return refuse_if_wrong(self.dyn, self.config.gravity, self.model.name)

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
        interval = self.clock.stamp_interval(stamp)
        jump = self.supervisor.jump(now, q, self.model.joint_names, interval,
                                    self.state_publishers)
        if jump:
            self.reject(now, jump)
            return False
        self.q, self.qd = q, qd
        jump = self.clock.take(stamp, now, self.reference)
        if jump:
            emit(self.events, EventKind.CLOCK_JUMP, Level.WARN, jump)
        sup = self.supervisor
        was_waiting = sup.state == WAITING
        if sup.accept_state(now, q, qd, interval):
            self._restart_reference(self.clock.reference_time(now), q, was_waiting)
        return True

    def note_effort(self, names: Sequence[str], effort: Values) -> None:
        """The effort field of the state about to be cycled (``names``' order): what the
        collision watch takes as applied since the previous state (CollisionWatch.
        note_state_effort), and before the first valid state where the rate limit starts
        (the supervisor's first_effort: the torque the arm's driver applies)."""
        if self.collision is not None:
            self.collision.note_state_effort(self.joint_map, names, effort)
        if self.supervisor.state == WAITING:  # the rate limit's start (initial_output hold)
            self.supervisor.first_effort = self.joint_map.reported_effort(names, effort)[0]

    @property
    def wants_effort(self) -> bool:
        """Whether the next state's effort field is read (:meth:`note_effort`): by the
        collision watch, and before the first valid state."""
        return self.collision is not None or self.supervisor.state == WAITING

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
        interval = self.clock.stamp_interval(stamp)
        inputs = sup.fused_inputs(now, interval)
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
        sup.accept_fused(now, self.q, self.qd, flags, interval)
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
        self.rejected_at = now
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

    # -- the cycle --------------------------------------------------------------------
    def update(self, now: float) -> Command | None:
        """One cycle at monotonic time ``now`` [s]: a Command, or None while nothing may
        be published (inactive, or no valid state since activation)."""
        sup = self.supervisor
        if not sup.publishing:
            return None
        t0, c0 = time.perf_counter(), time.thread_time()
        if self.rejected_at is not None and (sup.valid_time is None or
                                            self.rejected_at >= sup.valid_time):
            # states came and were refused since the last valid one: that is the cause
            sup.check_watchdog(now, f'; last rejected state: {self.last_rejection}')
        else:
            sup.check_watchdog(now)
        t = self.clock.reference_time(now)
        q_r, qd_r, qdd_r = self.reference(t)
        law_tau = None
        if sup.commanding:
            law_tau = self._law(now, q_r, qd_r, qdd_r)
        else:
            self.wrenches.reset()  # commanding again starts the wrench from zero
        tau = sup.command(now, law_tau)
        self.stats.record(now, (time.thread_time() - c0) * 1e6,
                          (time.perf_counter() - t0) * 1e6)
        state = sup.state  # the state this command was made in (a tracking fault: the next)
        if law_tau is not None:
            self._check_tracking(now, q_r)
        sup.check_frozen(now)
        return self.command(tau, q_r, qd_r, t, state)

    def _check_tracking(self, now, q_r):
        """Safe mode (latched, position hold) when tracking_guard.tracking_fault says so;
        both paths call this after the cycle (the next cycle is the safe one)."""
        if self.tracking_limit is not None and self.q is not None:
            sup = self.supervisor
            reason = tracking_fault(q_r, self.q, self.tracking_limit, self.model.joint_names,
                                    sup.recent_jump(now))
            if reason:
                sup.fault(now, reason, latch=True)

    def _observe(self, now, stamp, applied):
        """The collision watch on this cycle's state (CollisionWatch.react)."""
        if self.collision is not None and self.q is not None and self.qd is not None:
            seen = self.collision.react(now, stamp, self.q, self.qd, applied,
                                        self.supervisor, self.events)
            self.last_collision = seen or self.last_collision

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
            tau = self.law(self.q, self.qd, q_r, qd_r, qdd_r, self.wrenches.value(now))
        except RobodynError as exc:
            self.supervisor.fault(now, f'control law failed: {exc}', latch=True)
            return None
        check = self.cross_check
        if check is not None and check.due() and \
                check.check(self.q, self.qd, qdd_r) > check.tolerance:
            self.supervisor.fault(now, f'cross-check: |tau - tau_pinocchio| = '
                                       f'{check.last:.3g} > {check.tolerance:.3g}', latch=True)
            return None
        if hasattr(self.law, 'adapt'):  # a law with state (ControlLaw.adapt)
            touching = self.collision is not None and self.collision.detector.contact is not None
            self.law.adapt(now, self.supervisor.state == ACTIVE and not touching)
        return tau

    # -- reporting --------------------------------------------------------------------
    def drain_events(self) -> list[Event]:
        """Transitions and rejections since the last call, each once."""
        events = self.supervisor.events + self.events
        self.supervisor.events, self.events = [], []
        return events

    def diagnostics(self, now: float) -> tuple[Level, str, dict[str, str]]:
        """(level, message, {key: value}) describing the controller now (core_report.py)."""
        return core_diagnostics(self, now)
