"""``robodyn validate``: time-aligned tracking error, timing, torques and model residual
from a rosbag2 directory, streamed chunk by chunk (bounded memory)."""

import os
import sys

import numpy as np

from ..errors import BagError, InputError
from ..io.bag_reader import BagReader
from ..io.cdr import float64_multi_array, parse_joint_state
from ..io.joint_state_batch import JointStateBatch
from .metrics import Decimator, ResidualStats, TimingStats, TrackingStats, hermite
from .thresholds import resolve_thresholds

__all__ = ['validate_bag', 'run_validate', 'choose_reference']

JOINT_STATE = 'sensor_msgs/msg/JointState'
TRAJECTORY = 'trajectory_msgs/msg/JointTrajectory'
JTC_STATE = 'control_msgs/msg/JointTrajectoryControllerState'
COMMAND = 'std_msgs/msg/Float64MultiArray'
DIAGNOSTICS = 'diagnostic_msgs/msg/DiagnosticArray'
CHUNK = 50_000


def choose_reference(topics, state_topic):
    """Reference topic by preference: a ``*/reference`` JointState, a JointTrajectory,
    a JointTrajectoryControllerState."""
    js = sorted(t for t, m in topics.items() if m == JOINT_STATE and t.endswith('/reference')
                and t != state_topic)
    if js:
        return js[0]
    for wanted in (TRAJECTORY, JTC_STATE):
        found = sorted(t for t, m in topics.items() if m == wanted)
        if found:
            return found[0]
    available = ', '.join(f'{t} ({m})' for t, m in sorted(topics.items())) or 'none'
    raise BagError(f'no reference topic (a */reference JointState, a JointTrajectory or a '
                   f'JointTrajectoryControllerState) in the bag; topics: {available}')


def _sec(stamp):
    return stamp.sec + stamp.nanosec * 1e-9


class _SampledReference:
    """Reference samples (t, q, qd) interpolated by cubic Hermite onto state times."""

    def __init__(self):
        self.t = np.zeros(0)
        self.q = None
        self.qd = None
        self.pending = []

    def add(self, t, q, qd):
        self.pending.append((np.array([t]), np.asarray(q)[None, :], np.asarray(qd)[None, :]))

    def add_arrays(self, t, q, qd):
        self.pending.append((t, q, qd))

    def _merge(self):
        if not self.pending:
            return
        t = np.concatenate([p[0] for p in self.pending])
        q = np.concatenate([p[1] for p in self.pending])
        qd = np.concatenate([p[2] for p in self.pending])
        self.pending = []
        if self.q is None:
            self.t, self.q, self.qd = t, q, qd
        else:
            self.t = np.concatenate([self.t, t])
            self.q = np.concatenate([self.q, q])
            self.qd = np.concatenate([self.qd, qd])
        order = np.argsort(self.t, kind='stable')
        self.t, self.q, self.qd = self.t[order], self.q[order], self.qd[order]
        keep = np.concatenate([np.diff(self.t) > 0, [True]])
        self.t, self.q, self.qd = self.t[keep], self.q[keep], self.qd[keep]

    def evaluate(self, ts, final=False):
        """(mask of evaluable states, q_ref) and drop consumed samples."""
        self._merge()
        if self.q is None or len(self.t) < 2:
            return np.zeros(len(ts), bool), None
        ok = (ts >= self.t[0]) & (ts <= self.t[-1])
        tsel = ts[ok]
        k = np.clip(np.searchsorted(self.t, tsel, side='right') - 1, 0, len(self.t) - 2)
        q = hermite(tsel, self.t[k], self.t[k + 1], self.q[k], self.q[k + 1], self.qd[k],
                    self.qd[k + 1])
        if not final and len(ts):
            cut = max(np.searchsorted(self.t, ts.max(), side='right') - 2, 0)
            self.t, self.q, self.qd = self.t[cut:], self.q[cut:], self.qd[cut:]
        return ok, q

    def pending_after(self, ts):
        """States later than the last reference sample (they wait for more samples)."""
        self._merge()
        return ts > (self.t[-1] if len(self.t) else -np.inf)


def validate_bag(bag_path, state_topic='/joint_states', reference_topic=None,
                 command_topic=None, model=None, max_rms=None, max_abs=None, tolerance=1e-3,
                 out_dir=None, plots=True, progress=False, thresholds_file=None):
    """Validate one bag; write report.json, report.md and plots into ``out_dir``.

    Args:
        bag_path: rosbag2 directory (mcap or sqlite3).
        state_topic: measured sensor_msgs/JointState topic.
        reference_topic: explicit reference topic (else :func:`choose_reference`).
        command_topic: Float64MultiArray effort commands (else the first */commands).
        model: RobotModel for the model residual and effort-limit statistics (optional).
        max_rms, max_abs: global thresholds [rad or m]; thresholds_file: YAML with
            per-joint overrides (validation.thresholds); none of the three: the stated
            defaults (DEFAULT_MAX_RMS, DEFAULT_MAX_ABS).
        tolerance: band for time-in-band and settling time [rad or m].

    Returns:
        The report dict (also written to report.json).
    """
    from .report import build_report, write_outputs
    thresholds = resolve_thresholds(max_rms, max_abs, thresholds_file)
    with BagReader(bag_path) as bag:
        bag.require(state_topic, 'state')
        if bag.topics[state_topic] != JOINT_STATE:
            raise BagError(f'state topic {state_topic!r} is {bag.topics[state_topic]}, '
                           f'expected {JOINT_STATE}')
        ref_topic = reference_topic or choose_reference(bag.topics, state_topic)
        bag.require(ref_topic, 'reference')
        ref_type = bag.topics[ref_topic]
        if ref_type not in (JOINT_STATE, TRAJECTORY, JTC_STATE):
            raise BagError(f'reference topic {ref_topic!r} has unsupported type {ref_type}; '
                           f'valid: {JOINT_STATE}, {TRAJECTORY}, {JTC_STATE}')
        if command_topic is None:
            found = sorted(t for t, m in bag.topics.items() if m == COMMAND
                           and t.endswith('/commands'))
            command_topic = found[0] if found else None
        else:
            bag.require(command_topic, 'command')
        diag_topic = '/diagnostics' if bag.topics.get('/diagnostics') == DIAGNOSTICS else None
        topics = [t for t in (state_topic, ref_topic, command_topic, diag_topic) if t]
        total = sum(bag.counts.get(t, 0) for t in topics)
        result = _stream(bag, topics, state_topic, ref_topic, ref_type, command_topic,
                         diag_topic, model, tolerance, progress, total)
        result['recovered'] = bag.recovered
    report = build_report(bag_path, state_topic, ref_topic, command_topic, result, model,
                          thresholds, tolerance)
    if out_dir is None:
        out_dir = os.path.join(str(bag_path), 'validation')
    write_outputs(report, result, out_dir, plots)
    return report


class _Chunker:
    """State arrays waiting for reference coverage, processed chunk by chunk."""

    def __init__(self, n, tolerance, dyn):
        self.t = np.zeros(0)
        self.q = np.zeros((0, n))
        self.qd = np.zeros((0, n))
        self.eff = np.zeros((0, n))
        self.tracking = TrackingStats(n, tolerance)
        self.plot = Decimator()
        self.dyn = dyn
        self.residual = ResidualStats(n) if dyn is not None else None
        self.residual_plot = Decimator()

    def add(self, t, q, qd, eff):
        """States strictly increasing in t (JointStateBatch drops repeats and jumps)."""
        self.t = np.concatenate([self.t, t])
        self.q = np.concatenate([self.q, q])
        self.qd = np.concatenate([self.qd, qd])
        self.eff = np.concatenate([self.eff, eff])

    def process(self, reference, final=False):
        """Compare every state the reference covers; keep later ones for the next chunk."""
        if not len(self.t):
            return
        ts = self.t
        ok, q_ref = reference.evaluate(ts, final)
        wait = reference.pending_after(ts) if not final else np.zeros(len(ts), bool)
        if ok.any():
            self.tracking.add(ts[ok], q_ref - self.q[ok])
            self.plot.add(ts[ok], q_ref, self.q[ok])
        done = int(np.count_nonzero(~wait))  # waiting states are a suffix
        if self.dyn is not None and done > 31 and np.isfinite(self.eff[:done]).all():
            _residual_chunk(self.dyn, ts[:done], self.q[:done], self.qd[:done],
                            self.eff[:done], self.residual, self.residual_plot)
        self.t, self.q, self.qd, self.eff = (a[done:] for a in (self.t, self.q, self.qd,
                                                                  self.eff))


class _TrajectoryReference:
    """JointTrajectory messages, interpolated as the controller does."""

    def __init__(self, joints):
        self.joints = joints
        self.active = None

    def update(self, msg, t, last_q):
        if self.active is None:
            self.start = t
        self.active = _trajectory_from_msg(msg, self.joints, t, self.active, last_q)

    def evaluate(self, ts, final=False):
        if self.active is None:
            return np.zeros(len(ts), bool), np.zeros((0, len(self.joints)))
        ok = ts >= self.start  # no reference before the first trajectory message
        return ok, np.array([self.active(t)[0] for t in ts[ok]]).reshape(-1, len(self.joints))

    def pending_after(self, ts):
        return np.zeros(len(ts), bool)


def _stream(bag, topics, state_topic, ref_topic, ref_type, command_topic, diag_topic, model,
            tolerance, progress, total):
    dyn = None
    if model is not None:
        from ..dynamics import RigidBodyDynamics
        dyn = RigidBodyDynamics(model, friction_smoothing=0.01)
    joints = list(model.joint_names) if model is not None else None
    states = JointStateBatch(joints)
    refs = JointStateBatch(joints) if ref_type == JOINT_STATE else None
    sampled = _SampledReference()
    reference = sampled  # replaced by a _TrajectoryReference for JointTrajectory topics
    state_timing, ref_timing = TimingStats(), TimingStats()
    chunker = None
    cmd = dict(count=0, peak=None, hits=None)
    cmd_plot = Decimator()
    diagnostics = []
    seen = 0
    states_seen = 0
    last_state_raw = None
    early = []
    step = max(total // 20, 1)

    def flush(final=False):
        nonlocal chunker, joints
        if refs is not None and len(refs):
            batch = refs.take()
            joints = joints or refs.joints
            sampled.add_arrays(batch.t, batch.q,
                               np.where(np.isfinite(batch.qd), batch.qd, 0.0))
            ref_timing.add(batch.arrival_t)
        if len(states):
            if states.joints is None or (joints and states.joints != joints):
                states.joints = joints
            batch = states.take()
            state_timing.add(batch.arrival_t)
            if chunker is None:
                chunker = _Chunker(len(joints), tolerance, dyn)
            chunker.add(batch.t, batch.q, batch.qd, batch.effort)
        if chunker is not None:
            chunker.process(reference, final)

    for topic, msgtype, stamp_ns, raw in bag.messages(topics):
        seen += 1
        if progress and seen % step == 0:
            print(f'\rvalidate: {100 * seen / max(total, 1):5.1f} %', end='', file=sys.stderr)
        if topic == state_topic:
            if joints is None and refs is not None and len(refs):
                joints = refs.joints
            if joints is None:
                # No reference yet: keep the latest states, the reference may start at
                # their stamps.
                last_state_raw = raw
                early.append((raw, stamp_ns))
                del early[:-1000]
                continue
            if early:
                states.joints = joints
                for early_raw, early_ns in early:
                    states.add(early_raw, early_ns)
                early.clear()
            states.joints = joints
            states.add(raw, stamp_ns)
            states_seen += 1
            if len(states) >= CHUNK:
                flush()
        elif topic == ref_topic:
            if refs is not None:
                refs.add(raw, stamp_ns)
                if len(refs) >= CHUNK:
                    flush()
                continue
            msg = bag.deserialize(raw, msgtype)
            t = _sec(msg.header.stamp) or stamp_ns * 1e-9
            if joints is None:
                joints = list(msg.joint_names)
            ref_timing.add([t])
            if ref_type == JTC_STATE:
                names = tuple(msg.joint_names)
                ref = msg.reference if hasattr(msg, 'reference') else msg.desired
                lookup = {name: i for i, name in enumerate(names)}
                idx = [lookup[j] for j in joints if j in lookup]
                if len(idx) != len(joints):
                    raise BagError(f'controller_state lacks joints of {joints}')
                vel = np.asarray(ref.velocities)[idx] if len(ref.velocities) == len(names) \
                    else np.zeros(len(joints))
                sampled.add(t, np.asarray(ref.positions)[idx], vel)
            else:
                flush()  # states before this message follow the previous trajectory
                if not isinstance(reference, _TrajectoryReference):
                    reference = _TrajectoryReference(joints)
                last_q = chunker.q[-1] if chunker is not None and len(chunker.q) else None
                if last_q is None and last_state_raw is not None:
                    _, names, pos, _, _ = parse_joint_state(last_state_raw)
                    lookup = dict(zip(names, pos))
                    if all(j in lookup for j in joints):
                        last_q = np.array([lookup[j] for j in joints])
                reference.update(msg, t, last_q)
        elif topic == command_topic:
            values = float64_multi_array(raw)
            cmd['count'] += 1
            if cmd['peak'] is None:
                cmd['peak'] = np.abs(values)
                cmd['hits'] = np.zeros(len(values))
            if len(values) == len(cmd['peak']):
                cmd['peak'] = np.maximum(cmd['peak'], np.abs(values))
                if model is not None and len(values) == model.n:
                    cmd['hits'] += np.abs(values) >= model.effort_limits * (1 - 1e-9)
                cmd_plot.add(np.array([stamp_ns * 1e-9]), values[None, :])
        elif topic == diag_topic:
            msg = bag.deserialize(raw, msgtype)
            for status in msg.status:
                if status.name == 'robodyn_controller':
                    diagnostics.append({kv.key: kv.value for kv in status.values})
    if progress:
        print('\rvalidate: 100.0 %', file=sys.stderr)
    if joints is None and refs is not None and len(refs):
        joints = refs.joints
    if joints is None:
        raise BagError(f'reference topic {ref_topic!r} has no messages')
    flush(final=True)
    if states_seen == 0:
        raise BagError(f'state topic {state_topic!r} has no messages after the first '
                       'reference')
    missing = [j for j in joints if j not in states.names_seen()]
    if missing:
        raise BagError(f'joints {missing} are not in any {state_topic} message (they carry '
                       f'{sorted(states.names_seen())})')
    if chunker is None or chunker.tracking.count == 0:
        raise BagError('no state message falls within the reference time span; '
                       'are the stamps on the same clock?')
    timing = state_timing.result()
    if timing is not None:
        timing.update(duplicate_stamps=states.duplicates, out_of_order=states.out_of_order,
                      backward_jumps=states.backward_jumps, other_messages=states.ignored)
    return dict(joints=joints, tracking=chunker.tracking.result(joints),
                state_timing=timing, ref_timing=ref_timing.result(),
                periods=state_timing.periods(), plot=chunker.plot.get(),
                command=dict(topic=command_topic, messages=cmd['count'],
                             peak=None if cmd['peak'] is None else cmd['peak'].tolist(),
                             at_limit_pct=None if cmd['hits'] is None or model is None else
                             (100.0 * cmd['hits'] / max(cmd['count'], 1)).tolist()),
                command_plot=cmd_plot.get(), diagnostics=diagnostics,
                residual=chunker.residual.result(joints) if chunker.residual else None,
                residual_plot=chunker.residual_plot.get())


def _trajectory_from_msg(msg, joints, t, previous, last_q):
    """The reference a JointTrajectory gives, by the controller's own conversion
    (control.trajectory_message), from the current reference; a message the controller
    would reject leaves the previous reference (the controller kept it too)."""
    from ..control import JointMap, trajectory_from_message
    n = len(joints)
    joint_map = JointMap(joints)
    try:
        if previous is not None:
            start = previous(t)
        elif last_q is not None:
            start = (np.asarray(last_q, dtype=float), np.zeros(n), np.zeros(n))
        elif msg.points:
            first = joint_map.positions(msg.joint_names, msg.points[0].positions,
                                        np.zeros(n))
            start = (first, np.zeros(n), np.zeros(n))
        else:
            raise InputError('no points')
        return trajectory_from_message(msg, joint_map, start, t)
    except InputError as exc:
        if previous is None:
            raise BagError(f'JointTrajectory at {t:.3f} s: {exc}') from None
        return previous


def _residual_chunk(dyn, ts, q, qd, eff, stats, plot):
    """Model residual on one chunk: effort - (ID(q, qd, qdd) + friction), qdd by
    Savitzky-Golay differentiation of qd (window 21, cubic)."""
    from scipy.signal import savgol_filter
    dt = float(np.median(np.diff(ts)))
    if dt <= 0:
        return
    qdd = savgol_filter(qd, 21, 3, deriv=1, delta=dt, axis=0)
    qs = savgol_filter(qd, 21, 3, axis=0)
    pred = np.empty_like(eff)
    for k in range(len(ts)):
        pred[k] = dyn.inverse_dynamics(q[k], qs[k], qdd[k]) + dyn.friction_torque(qs[k])
    inner = slice(10, len(ts) - 10)  # drop the filter's edge samples
    stats.add(eff[inner], pred[inner])
    plot.add(ts[inner], eff[inner] - pred[inner])


def run_validate(args):
    """CLI body of ``robodyn validate``; exit 0 pass, 1 fail (2 via RobodynError)."""
    from .report import print_summary
    model = None
    if args.robot:
        from ..model import load_robot
        model = load_robot(args.robot, tip_link=args.tip)
    report = validate_bag(args.bag, args.state_topic, args.reference_topic, args.command_topic,
                          model, args.max_rms, args.max_abs, args.tolerance, args.out,
                          not args.no_plots, progress=sys.stderr.isatty(),
                          thresholds_file=args.thresholds)
    print_summary(report)
    return 0 if report['passed'] else 1
