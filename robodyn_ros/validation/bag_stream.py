"""One pass over a bag's messages for validation: states, reference, commands and
diagnostics are routed to the reference, alignment, metrics and residual stages."""

from dataclasses import dataclass
import sys
from typing import Any

import numpy as np

from ..defaults import CONTROLLER_NAME
from ..errors import BagError
from ..io.cdr import float64_multi_array, parse_joint_state
from ..io.joint_state_batch import JointStateBatch
from ..io.mcap_chunks import byte_rows
from .alignment import Aligner
from .applied_steps import AppliedSteps
from .metrics import Decimator, TimingStats
from .references import SampledReference, TrajectoryReference

__all__ = ['BagStream', 'JOINT_STATE', 'TRAJECTORY', 'JTC_STATE', 'DIAGNOSTICS']

JOINT_STATE = 'sensor_msgs/msg/JointState'
TRAJECTORY = 'trajectory_msgs/msg/JointTrajectory'
JTC_STATE = 'control_msgs/msg/JointTrajectoryControllerState'
DIAGNOSTICS = 'diagnostic_msgs/msg/DiagnosticArray'
CHUNK = 20_000  # states decoded and compared per batch
EARLY = 1000  # states kept while no reference has named the joints yet


#: Each routed role's code in add_chunk's lookup of a chunk's channels.
_ROLE_CODES = {'state': 1, 'reference': 2, 'command': 3, 'diagnostics': 4}


def _sec(stamp):
    return stamp.sec + stamp.nanosec * 1e-9


def error_fit_table(joints, fits):
    """ErrorFit.result per joint name: offset [rad], velocity_term [s], acceleration_term
    [s^2], residual_rms [rad]; None where the rates did not separate the terms."""
    keys = ('offset', 'velocity_term', 'acceleration_term', 'residual_rms')
    return {name: None if fit is None else dict(zip(keys, fit))
            for name, fit in zip(joints, fits)}


@dataclass
class CommandStats:
    """The command topic so far: messages, peak |value| per joint, messages at the effort
    limit per joint (None before the first message), and the largest change of any value
    between two consecutive messages [N m or N] with its receive time [ns]; a pair with
    messages lost between them in the recording (``gaps``) is not one published step and
    is only counted (``across_gaps``); when the recording's gaps are not all listed
    (``steps_known`` False) no step is reported."""

    count: int = 0
    peak: np.ndarray | None = None
    hits: np.ndarray | None = None
    last: np.ndarray | None = None
    largest_step: float = 0.0
    step_ns: int | None = None
    across_gaps: int = 0
    gaps: frozenset[int] = frozenset()
    steps_known: bool = True

    def add(self, stamps: np.ndarray, values: np.ndarray, limits: np.ndarray | None,
            plot: 'Decimator') -> None:
        """A run of consecutive messages of one length: receive times [ns] (m,), values
        (m, n); ``limits`` the effort limits (n,) or None; the plot's decimator. The same
        figures as message by message, in a few array operations (a 1 kHz command topic
        is millions of messages an hour)."""
        m, n = values.shape
        self.count += m
        last, self.last = self.last, values[-1].copy()
        chained = np.vstack([last[None, :], values]) if last is not None and \
            len(last) == n else values
        if len(chained) > 1:
            steps = np.abs(np.diff(chained, axis=0)).max(axis=1, initial=0.0)
            later = stamps[len(stamps) - len(steps):]
            lost = np.isin(later, np.fromiter(self.gaps, np.int64, len(self.gaps)))
            self.across_gaps += int(lost.sum())
            steps = np.where(lost | np.isnan(steps), -np.inf, steps)  # NaN: never a step
            k = int(np.argmax(steps))
            if steps[k] > self.largest_step:
                self.largest_step, self.step_ns = float(steps[k]), int(later[k])
        if self.peak is None or self.hits is None:
            self.peak, self.hits = np.zeros(n), np.zeros(n)
        if n != len(self.peak):
            return  # another length than the first message's: counted, not summarised
        self.peak = np.maximum(self.peak, np.abs(values).max(axis=0))
        if limits is not None and len(limits) == n:
            self.hits += (np.abs(values) >= limits * (1 - 1e-9)).sum(axis=0)
        plot.add(stamps * 1e-9, values)


class BagStream:
    """Consumes a bag's messages in time order through :attr:`handlers`; :meth:`result`.

    Args:
        topics: dict role -> topic: 'state', 'reference', 'command', 'diagnostics' (the
            last two may be None).
        ref_type: the reference topic's message type.
        model: RobotModel (joint order, residual, effort limits) or None.
        tolerance: band for time-in-band [rad or m].
        deserialize: callable (raw, msgtype) -> message, for the generic types.
    """

    def __init__(self, topics, ref_type, model, tolerance, deserialize,
                 settle_after_stall=0.0):
        self.topics, self.ref_type, self.model = topics, ref_type, model
        self.settle_after_stall = settle_after_stall
        self.tolerance, self.deserialize = tolerance, deserialize
        self.dyn = None
        if model is not None:
            from ..dynamics import RigidBodyDynamics
            self.dyn = RigidBodyDynamics(model, friction_smoothing=0.01)
        self.joints: list[str] | None = list(model.joint_names) if model is not None \
            else None
        self.states = JointStateBatch(self.joints)
        self.refs = JointStateBatch(self.joints) if ref_type == JOINT_STATE else None
        self.sampled = SampledReference()
        # a TrajectoryReference for JointTrajectory topics
        self.reference: SampledReference | TrajectoryReference = self.sampled
        self.state_timing, self.ref_timing = TimingStats(), TimingStats()
        self.aligner: Aligner | None = None
        self.cmd = CommandStats()
        self.applied = AppliedSteps()  # the effort the states report, per cycle
        self.cmd_plot = Decimator()
        # (receive times [ns] (m,), values (m, n)) blocks, cmd_buffered messages in all
        self.cmd_buffer: list[tuple[np.ndarray, np.ndarray]] = []
        self.cmd_buffered = 0
        self.diagnostics: list[dict[str, str]] = []
        # (bag time [ns], level, message) each time the controller's (state, reason) changed
        self.events: list[tuple[int, int, str, tuple]] = []
        self.first_ns: int | None = None  # bag time of the first message routed
        self.states_seen = 0
        self.last_state_raw: bytes | None = None
        self.early: list[tuple[bytes, int]] = []

    @property
    def handlers(self):
        """{topic: handler(raw, msgtype, bag time [ns])} for the bag's message loop."""
        routes = dict(state=self._on_state, reference=self._on_reference,
                      command=self._on_command, diagnostics=self._on_diagnostics)
        return {topic: routes[role] for role, topic in self.topics.items() if topic}

    def add_chunk(self, topics: dict[int, str], msgtypes: dict[str, str], chunk) -> None:
        """One chunk of messages (io.mcap_chunks.ChunkMessages, ``topics`` by channel id):
        the same as its messages one by one through :attr:`handlers`, to the bit, with the
        JointState states and references and the commands queued as arrays (cut where the
        one-by-one path flushes). A JointTrajectory or controller-state reference orders
        the states around it: then message by message."""
        roles = {topic: role for role, topic in self.topics.items() if topic}
        # channel ids are small integers: one count and one lookup instead of sets
        present = np.flatnonzero(np.bincount(chunk.channel)).tolist()
        kinds = {c: roles[topics[c]] for c in present}
        code = np.zeros(present[-1] + 1 if present else 1, np.int8)
        for c, role in kinds.items():
            code[c] = _ROLE_CODES[role]
        role_of = code[chunk.channel]
        is_state = role_of == _ROLE_CODES['state']
        if self.refs is None or is_state.any() and (
                self.early or self.states.joints is None or self.joints is None):
            self._chunk_one_by_one(topics, msgtypes, chunk)
            return
        is_ref = role_of == _ROLE_CODES['reference']
        if self.first_ns is None:
            firsts = np.flatnonzero(is_state | (role_of == _ROLE_CODES['diagnostics']))
            self.first_ns = int(chunk.log_time[firsts[0]]) if firsts.size else None
        pos, m = 0, len(chunk.channel)
        states, refs = np.cumsum(is_state), np.cumsum(is_ref)
        while pos < m:  # up to where a queue reaches CHUNK (there the one-by-one path flushes)
            done_s, done_r = (states[pos - 1], refs[pos - 1]) if pos else (0, 0)
            end = min(m, int(np.searchsorted(states, done_s + CHUNK - self.states.count)) + 1,
                      int(np.searchsorted(refs, done_r + CHUNK - len(self.refs))) + 1)
            self._chunk_part(chunk, kinds, slice(pos, end))
            if self.states.count >= CHUNK or len(self.refs) >= CHUNK:
                self.flush()
            pos = end

    def _chunk_part(self, chunk, kinds, part):
        channel = chunk.channel[part]
        for c, role in kinds.items():
            mask = channel == c
            if not mask.any():
                continue
            start, length = chunk.start[part][mask], chunk.length[part][mask]
            stamps = chunk.log_time[part][mask]
            if role == 'reference' and self.refs is not None:
                self.refs.add_many(chunk.data, start, length, stamps)
            elif role == 'state':
                self.states.add_many(chunk.data, start, length, stamps)
                self.states_seen += len(start)
            elif role == 'command':
                self._command_block(chunk.data, start, length, stamps)
            else:
                for s, n, t in zip(start.tolist(), length.tolist(), stamps.tolist()):
                    self._on_diagnostics(chunk.data[s:s + n].tobytes(), DIAGNOSTICS, t)

    def _chunk_one_by_one(self, topics, msgtypes, chunk):
        handlers = self.handlers
        for c, s, n, t in zip(chunk.channel.tolist(), chunk.start.tolist(),
                              chunk.length.tolist(), chunk.log_time.tolist()):
            topic = topics[c]
            handlers[topic](chunk.data[s:s + n].tobytes(), msgtypes[topic], t)

    def _command_block(self, data, start, length, stamps):
        """Commands of one length and one layout as one array (else one by one)."""
        size = int(length[0])
        first = data[start[0]:start[0] + size].tobytes()
        n = len(float64_multi_array(first))
        rows = byte_rows(data, start, size) if (length == size).all() else None
        head = size - 8 * n
        if rows is None or not (rows[:, :head] == rows[0, :head]).all() or \
                not np.array_equal(rows[0, head:].view('<f8'), float64_multi_array(first),
                                   equal_nan=True):
            for s, m, t in zip(start.tolist(), length.tolist(), stamps.tolist()):
                self._on_command(data[s:s + m].tobytes(), None, t)
            return
        values = rows[:, head:].copy().view('<f8').reshape(len(rows), n)
        stamps = np.asarray(stamps, np.int64)
        while len(stamps):  # flushed where the one-by-one path flushes
            room = CHUNK - self.cmd_buffered
            self.cmd_buffer.append((stamps[:room], values[:room]))
            self.cmd_buffered += len(stamps[:room])
            stamps, values = stamps[room:], values[room:]
            if self.cmd_buffered >= CHUNK:
                self._flush_commands()

    def _on_diagnostics(self, raw, msgtype, stamp_ns):
        if self.first_ns is None:
            self.first_ns = stamp_ns
        for status in self.deserialize(raw, msgtype).status:
            if status.name == CONTROLLER_NAME:
                values = {kv.key: kv.value for kv in status.values}
                self.diagnostics.append(values)
                self._note_event(stamp_ns, status, values)

    def _note_event(self, stamp_ns, status, values):
        """Keep the controller's transitions: a change of its state or reason."""
        key = (values.get('state'), values.get('reason'))
        if self.events and self.events[-1][3] == key:
            return
        level = status.level[0] if isinstance(status.level, bytes) else int(status.level)
        self.events.append((stamp_ns, level, status.message, key))

    # -- states and references ----------------------------------------------------------
    def _on_state(self, raw, msgtype, stamp_ns):
        if self.first_ns is None:
            self.first_ns = stamp_ns
        states = self.states
        if not self.early and states.joints is not None and self.joints is not None:
            states.add(raw, stamp_ns)  # the usual case, once per state: keep it short
        else:
            self._on_early_state(raw, stamp_ns)
        self.states_seen += 1
        if states.count >= CHUNK:
            self.flush()

    def _on_early_state(self, raw, stamp_ns):
        """States before the joints are known wait (a reference may start at their
        stamps); the first state after that takes them along."""
        if self.joints is None and self.refs is not None and len(self.refs):
            self.joints = self.refs.joints
        if self.joints is None:
            self.last_state_raw = raw
            self.early.append((raw, stamp_ns))
            del self.early[:-EARLY]
            self.states_seen -= 1
            return
        self.states.joints = self.joints
        for early_raw, early_ns in self.early:
            self.states.add(early_raw, early_ns)
        self.early.clear()
        self.states.add(raw, stamp_ns)

    def _on_reference(self, raw, msgtype, stamp_ns):
        if self.refs is not None:
            self.refs.add(raw, stamp_ns)
            if len(self.refs) >= CHUNK:
                self.flush()
            return
        msg = self.deserialize(raw, msgtype)
        t = _sec(msg.header.stamp) or stamp_ns * 1e-9
        if self.joints is None:
            self.joints = list(msg.joint_names)
        self.ref_timing.add([t])
        if self.ref_type == JTC_STATE:
            self._on_controller_state(msg, t)
            return
        self.flush()  # states before this message follow the previous trajectory
        if not isinstance(self.reference, TrajectoryReference):
            self.reference = TrajectoryReference(self.joints)
        self.reference.update(msg, t, self._last_q())

    def _known_joints(self) -> list[str]:
        """The compared joints, once the model or a reference has named them."""
        if self.joints is None:
            raise BagError('no reference message has named the joints yet')
        return self.joints

    def _on_controller_state(self, msg, t):
        joints = self._known_joints()
        names = tuple(msg.joint_names)
        ref = msg.reference if hasattr(msg, 'reference') else msg.desired
        lookup = {name: i for i, name in enumerate(names)}
        idx = [lookup[j] for j in joints if j in lookup]
        if len(idx) != len(joints):
            raise BagError(f'controller_state lacks joints of {joints}')
        vel = np.asarray(ref.velocities)[idx] if len(ref.velocities) == len(names) \
            else np.zeros(len(joints))
        self.sampled.add(t, np.asarray(ref.positions)[idx], vel)

    def _last_q(self):
        """The latest measured position (a trajectory starts from it), or None."""
        if self.aligner is not None and len(self.aligner.q):
            return self.aligner.q[-1]
        if self.last_state_raw is None or self.joints is None:
            return None
        _, names, pos, _, _ = parse_joint_state(self.last_state_raw)
        lookup = dict(zip(names, pos))
        if all(j in lookup for j in self.joints):
            return np.array([lookup[j] for j in self.joints])
        return None

    def flush(self, final=False):
        """Decode what is queued and compare every state the reference covers."""
        if self.refs is not None and len(self.refs):
            batch = self.refs.take()
            self.joints = self.joints or self.refs.joints
            self.sampled.add_arrays(batch.t, batch.q,
                                    np.where(np.isfinite(batch.qd), batch.qd, 0.0))
            self.ref_timing.add(batch.arrival_t)
        if len(self.states):
            if self.states.joints is None or self.states.joints != self.joints:
                self.states.joints = self.joints
            batch = self.states.take()
            self.state_timing.add(batch.arrival_t)
            self.applied.add(batch.t, batch.effort)
            if self.aligner is None:
                self.aligner = Aligner(len(self._known_joints()), self.tolerance, self.dyn,
                                       self.settle_after_stall)
            self.aligner.add(batch.t, batch.q, batch.qd, batch.effort)
        if self.aligner is not None:
            self.aligner.process(self.reference, final)

    # -- commands -----------------------------------------------------------------------
    def _on_command(self, raw, msgtype, stamp_ns):
        values = float64_multi_array(raw)
        self.cmd_buffer.append((np.array([stamp_ns], np.int64), values[None, :]))
        self.cmd_buffered += 1
        if self.cmd_buffered >= CHUNK:
            self._flush_commands()

    def _flush_commands(self):
        """The buffered commands into CommandStats, one run of equal lengths at a time."""
        items, self.cmd_buffer, self.cmd_buffered = self.cmd_buffer, [], 0
        limits = None if self.model is None else self.model.effort_limits
        start = 0
        while start < len(items):
            n, end = items[start][1].shape[1], start + 1
            while end < len(items) and items[end][1].shape[1] == n:
                end += 1
            stamps = np.concatenate([t for t, _ in items[start:end]])
            values = np.concatenate([v for _, v in items[start:end]]).astype(float)
            self.cmd.add(stamps, values, limits, self.cmd_plot)
            start = end

    # -- the end ------------------------------------------------------------------------
    def result(self):
        """Everything the report needs (BagError when nothing could be compared)."""
        state_topic, ref_topic = self.topics['state'], self.topics['reference']
        if self.joints is None and self.refs is not None and len(self.refs):
            self.joints = self.refs.joints
        if self.joints is None:
            raise BagError(f'reference topic {ref_topic!r} has no messages')
        self.flush(final=True)
        if self.states_seen == 0:
            raise BagError(f'state topic {state_topic!r} has no messages after the first '
                           'reference')
        missing = [j for j in self.joints if j not in self.states.names_seen()]
        if missing:
            raise BagError(f'joints {missing} are not in any {state_topic} message (they '
                           f'carry {sorted(self.states.names_seen())})')
        aligner = self.aligner
        if aligner is None or aligner.tracking.count == 0:
            raise BagError('no state message falls within the reference time span; '
                           'are the stamps on the same clock?')
        return dict(joints=self.joints, tracking=aligner.tracking.result(self.joints),
                    error_fit=error_fit_table(self.joints, aligner.fit.result()),
                    state_timing=self._state_timing(), ref_timing=self.ref_timing.result(),
                    periods=self.state_timing.periods(), plot=aligner.plot.get(),
                    command=self._command(), command_plot=self.cmd_plot.get(),
                    diagnostics=self.diagnostics,
                    events=[(self._since_first(t), level, text, key[0])
                            for t, level, text, key in self.events],
                    residual=aligner.residual.result(self.joints) if aligner.residual
                    else None,
                    residual_plot=aligner.residual_plot.get(), applied=self.applied)

    def _state_timing(self):
        timing = self.state_timing.result()
        if timing is not None:
            states = self.states
            timing.update(duplicate_stamps=states.duplicates, out_of_order=states.out_of_order,
                          backward_jumps=states.backward_jumps, other_messages=states.ignored,
                          in_reference_gaps=self.sampled.in_gaps)
        return timing

    def _since_first(self, stamp_ns: int) -> float:
        """Seconds from the bag's first routed message (a bag on simulated time starts at
        stamp 0, which is a time, not a missing one)."""
        first = stamp_ns if self.first_ns is None else self.first_ns
        return 1e-9 * (stamp_ns - first)

    def _command(self) -> dict[str, Any]:
        self._flush_commands()
        cmd = self.cmd
        return dict(topic=self.topics.get('command'), messages=cmd.count,
                    peak=None if cmd.peak is None else cmd.peak.tolist(),
                    at_limit_pct=None if cmd.hits is None or self.model is None else
                    (100.0 * cmd.hits / max(cmd.count, 1)).tolist(),
                    largest_step=cmd.largest_step if cmd.count > 1 and cmd.steps_known
                    else None,
                    largest_step_time=None if cmd.step_ns is None or not cmd.steps_known else
                    self._since_first(cmd.step_ns),
                    pairs_across_gaps=cmd.across_gaps)


def progress_printer(total):
    """A callable(seen) printing the percentage to stderr (20 steps)."""
    step = max(total // 20, 1)
    shown = [0]

    def show(seen, done=False):
        if done:
            print('\rvalidate: 100.0 %', file=sys.stderr)
        elif seen // step > shown[0]:  # a step crossed (seen grows by one or by a chunk)
            shown[0] = seen // step
            print(f'\rvalidate: {100 * seen / max(total, 1):5.1f} %', end='', file=sys.stderr)
    return show
