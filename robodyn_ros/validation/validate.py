"""``robodyn validate``: time-aligned tracking error, timing, torques and model residual
from a rosbag2 directory, streamed chunk by chunk (bounded memory)."""

import os
import sys

import numpy as np

from ..errors import BagError, ConfigError
from .bag_reader import BagReader, parse_joint_state
from .metrics import Decimator, ResidualStats, TimingStats, TrackingStats, hermite

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
        self.pending.append((t, q, qd))

    def _merge(self):
        if not self.pending:
            return
        t = np.array([p[0] for p in self.pending])
        q = np.array([p[1] for p in self.pending])
        qd = np.array([p[2] for p in self.pending])
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
        """(mask of evaluable states, q_ref, qd_ref) and drop consumed samples."""
        self._merge()
        if self.q is None or len(self.t) < 2:
            return np.zeros(len(ts), bool), None, None
        ok = (ts >= self.t[0]) & (ts <= self.t[-1])
        tsel = ts[ok]
        k = np.clip(np.searchsorted(self.t, tsel, side='right') - 1, 0, len(self.t) - 2)
        q = hermite(tsel, self.t[k], self.t[k + 1], self.q[k], self.q[k + 1], self.qd[k],
                    self.qd[k + 1])
        qd = self.qd[k] + (self.qd[k + 1] - self.qd[k]) * \
            ((tsel - self.t[k]) / (self.t[k + 1] - self.t[k]))[:, None]
        if not final and len(ts):
            cut = max(np.searchsorted(self.t, ts.max(), side='right') - 2, 0)
            self.t, self.q, self.qd = self.t[cut:], self.q[cut:], self.qd[cut:]
        return ok, q, qd


def _state_index(cache, names, joints):
    if names not in cache:
        lookup = {name: i for i, name in enumerate(names)}
        missing = [j for j in joints if j not in lookup]
        if missing:
            raise BagError(f'joints {missing} of the reference are not in the state topic '
                           f'(it has {list(names)})')
        cache[names] = np.array([lookup[j] for j in joints])
    return cache[names]


def validate_bag(bag_path, state_topic='/joint_states', reference_topic=None,
                 command_topic=None, model=None, max_rms=None, max_abs=None, tolerance=1e-3,
                 out_dir=None, plots=True, progress=False, joint_thresholds=None):
    """Validate one bag; write report.json, report.md and plots into ``out_dir``.

    Args:
        bag_path: rosbag2 directory (mcap or sqlite3).
        state_topic: measured sensor_msgs/JointState topic.
        reference_topic: explicit reference topic (else :func:`choose_reference`).
        command_topic: Float64MultiArray effort commands (else the first */commands).
        model: RobotModel for the model residual and effort-limit statistics (optional).
        max_rms, max_abs: global thresholds [rad or m]; joint_thresholds:
            {joint: {'max_rms':..., 'max_abs':...}} overrides.
        tolerance: band for time-in-band and settling time [rad or m].

    Returns:
        The report dict (also written to report.json).
    """
    from .report import build_report, write_outputs
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
        elif command_topic not in bag.topics:
            bag.require(command_topic, 'command')
        diag_topic = '/diagnostics' if bag.topics.get('/diagnostics') == DIAGNOSTICS else None
        topics = [t for t in (state_topic, ref_topic, command_topic, diag_topic) if t]
        total = sum(bag.counts.get(t, 0) for t in topics)
        result = _stream(bag, topics, state_topic, ref_topic, ref_type, command_topic,
                         diag_topic, model, tolerance, progress, total)
    report = build_report(bag_path, state_topic, ref_topic, command_topic, result, model,
                          max_rms, max_abs, joint_thresholds, tolerance)
    if out_dir is None:
        out_dir = os.path.join(str(bag_path), 'validation')
    write_outputs(report, result, out_dir, plots)
    return report


def _stream(bag, topics, state_topic, ref_topic, ref_type, command_topic, diag_topic, model,
            tolerance, progress, total):
    joints = None
    tracking = None
    state_timing, ref_timing = TimingStats(), TimingStats()
    sampled = _SampledReference()
    trajectory = None
    cache = {}
    buf_t, buf_q, buf_qd, buf_eff = [], [], [], []
    plot = Decimator()
    cmd_peak = None
    cmd_limit_hits = None
    cmd_count = 0
    cmd_plot = Decimator()
    diagnostics = []
    residual_plot = Decimator()
    dyn = None
    if model is not None:
        from ..dynamics import RigidBodyDynamics
        dyn = RigidBodyDynamics(model, friction_smoothing=0.01)
    seen = 0
    step = max(total // 20, 1)
    states_seen = 0
    state_stamps = []

    def flush(final=False):
        nonlocal tracking
        if not buf_t:
            return
        ts = np.asarray(buf_t)
        q = np.asarray(buf_q)
        if trajectory is None:
            ok, q_ref, _ = sampled.evaluate(ts, final)
            # States after the last reference sample wait for the next chunk.
            wait = ts > sampled.t[-1] if (not final and len(sampled.t)) else \
                np.zeros(len(ts), bool)
        else:
            ok, q_ref = np.ones(len(ts), bool), np.asarray(ref_values)
            wait = np.zeros(len(ts), bool)
        if tracking is None:
            tracking = TrackingStats(len(joints), tolerance)
        if ok.any():
            tracking.add(ts[ok], q_ref - q[ok])
            plot.add(ts[ok], q_ref, q[ok])
        done = int(np.count_nonzero(~wait))  # waiting states are a suffix
        if dyn is not None and done > 31 and len(buf_eff[0]) == len(joints):
            _residual_chunk(dyn, ts[:done], q[:done], np.asarray(buf_qd[:done]),
                            np.asarray(buf_eff[:done]), residual_stats, residual_plot)
        for lst in (buf_t, buf_q, buf_qd, buf_eff):
            del lst[:done]
        ref_values.clear()

    ref_values = []
    residual_stats = None
    for topic, msgtype, stamp_ns, raw in bag.messages(topics):
        seen += 1
        if progress and seen % step == 0:
            print(f'\rvalidate: {100 * seen / max(total, 1):5.1f} %', end='', file=sys.stderr)
        if topic == ref_topic:
            if ref_type == JOINT_STATE:
                t, names, pos, vel, _ = parse_joint_state(raw)
                if t == 0.0:
                    t = stamp_ns * 1e-9
                if joints is None:
                    joints = list(names)
                    residual_stats = ResidualStats(len(joints)) if dyn is not None else None
                    if dyn is not None and list(model.joint_names) != joints:
                        raise BagError(f'reference joints {joints} differ from the model '
                                       f'chain {list(model.joint_names)}')
                idx = _state_index(cache, tuple(names), joints)
                vel = vel[idx] if len(vel) == len(names) else np.zeros(len(joints))
                sampled.add(t, pos[idx], vel)
                ref_timing.add([t])
            else:
                msg = bag.deserialize(raw, msgtype)
                t = _sec(msg.header.stamp) or stamp_ns * 1e-9
                if ref_type == JTC_STATE:
                    names = tuple(msg.joint_names)
                    ref = msg.reference if hasattr(msg, 'reference') else msg.desired
                    if joints is None:
                        joints = list(names)
                        residual_stats = ResidualStats(len(joints)) if dyn else None
                    idx = _state_index(cache, names, joints)
                    pos = np.asarray(ref.positions)[idx]
                    vel = np.asarray(ref.velocities)[idx] if len(ref.velocities) == \
                        len(names) else np.zeros(len(joints))
                    sampled.add(t, pos, vel)
                    ref_timing.add([t])
                else:
                    if joints is None:
                        joints = list(msg.joint_names)
                        residual_stats = ResidualStats(len(joints)) if dyn else None
                    trajectory = _trajectory_from_msg(msg, joints, t, trajectory, buf_q,
                                                      cache)
                    ref_timing.add([t])
            continue
        if topic == state_topic:
            t, names, pos, vel, eff = parse_joint_state(raw)
            if t == 0.0:
                t = stamp_ns * 1e-9
            state_stamps.append(t)
            states_seen += 1
            if joints is None:
                continue  # no reference yet: nothing to compare against
            idx = _state_index(cache, tuple(names), joints)
            if len(pos) != len(names):
                raise BagError(f'{state_topic}: {len(names)} names but {len(pos)} positions')
            buf_t.append(t)
            buf_q.append(pos[idx])
            buf_qd.append(vel[idx] if len(vel) == len(names) else np.zeros(len(joints)))
            buf_eff.append(eff[idx] if len(eff) == len(names) else np.zeros(0))
            if trajectory is not None:
                ref_values.append(trajectory(t)[0])
            if len(buf_t) >= CHUNK:
                flush()
            if len(state_stamps) >= CHUNK:
                state_timing.add(state_stamps)
                state_stamps = []
            continue
        if topic == command_topic:
            msg_data = np.frombuffer(raw, dtype=np.uint8)
            values = _float64_multi_array(msg_data)
            cmd_count += 1
            if cmd_peak is None:
                cmd_peak = np.abs(values)
                cmd_limit_hits = np.zeros(len(values))
            if len(values) == len(cmd_peak):
                cmd_peak = np.maximum(cmd_peak, np.abs(values))
                if model is not None and len(values) == model.n:
                    cmd_limit_hits += np.abs(values) >= model.effort_limits * (1 - 1e-9)
                cmd_plot.add(np.array([stamp_ns * 1e-9]), values[None, :])
            continue
        if topic == diag_topic:
            msg = bag.deserialize(raw, msgtype)
            for status in msg.status:
                if status.name == 'robodyn_controller':
                    diagnostics.append({kv.key: kv.value for kv in status.values})
    if progress:
        print('\rvalidate: 100.0 %', file=sys.stderr)
    if state_stamps:
        state_timing.add(state_stamps)
    if states_seen == 0:
        raise BagError(f'state topic {state_topic!r} has no messages')
    if joints is None:
        raise BagError(f'reference topic {ref_topic!r} has no messages')
    flush(final=True)
    if tracking is None or tracking.count == 0:
        raise BagError('no state message falls within the reference time span; '
                       'are the stamps on the same clock?')
    return dict(joints=joints, tracking=tracking.result(joints),
                state_timing=state_timing.result(), ref_timing=ref_timing.result(),
                periods=state_timing.periods(), plot=plot.get(),
                command=dict(topic=command_topic, messages=cmd_count,
                             peak=None if cmd_peak is None else cmd_peak.tolist(),
                             at_limit_pct=None if cmd_limit_hits is None or model is None else
                             (100.0 * cmd_limit_hits / max(cmd_count, 1)).tolist()),
                command_plot=cmd_plot.get(), diagnostics=diagnostics,
                residual=residual_stats.result(joints) if residual_stats is not None else None,
                residual_plot=residual_plot.get())


def _float64_multi_array(raw):
    """Decode std_msgs/Float64MultiArray CDR (layout dims, data_offset, data)."""
    import struct
    data = raw[4:].tobytes()
    off = 0
    (ndim,) = struct.unpack_from('<I', data, off)
    off += 4
    for _ in range(ndim):
        off = (off + 3) // 4 * 4
        (slen,) = struct.unpack_from('<I', data, off)
        off += 4 + slen
        off = (off + 3) // 4 * 4
        off += 8  # size, stride
    off = (off + 3) // 4 * 4
    off += 4  # data_offset
    off = (off + 3) // 4 * 4
    (count,) = struct.unpack_from('<I', data, off)
    off += 4
    if count:
        off = (off + 7) // 8 * 8
    return np.frombuffer(data, dtype='<f8', count=count, offset=off).copy()


def _trajectory_from_msg(msg, joints, t, previous, buf_q, cache):
    """A SplineTrajectory from a JointTrajectory, starting at the current reference."""
    from ..control import SplineTrajectory
    n = len(joints)
    if previous is not None:
        start = previous(t)
    elif buf_q:
        start = (np.asarray(buf_q[-1]), np.zeros(n), np.zeros(n))
    else:
        first = msg.points[0]
        lookup = {name: i for i, name in enumerate(msg.joint_names)}
        start = (np.array([first.positions[lookup[j]] for j in joints]), np.zeros(n),
                 np.zeros(n))
    lookup = {name: i for i, name in enumerate(msg.joint_names)}
    missing = [j for j in joints if j not in lookup]
    if missing:
        raise BagError(f'JointTrajectory lacks joints {missing}')
    times, pos, vel = [], [], []
    for point in msg.points:
        times.append(point.time_from_start.sec + point.time_from_start.nanosec * 1e-9)
        pos.append([point.positions[lookup[j]] for j in joints])
        vel.append([point.velocities[lookup[j]] for j in joints]
                   if len(point.velocities) == len(msg.joint_names) else [0.0] * n)
    if times and times[0] <= 0:
        start = (np.asarray(pos[0], float), np.asarray(vel[0], float), np.zeros(n))
        times, pos, vel = times[1:], pos[1:], vel[1:]
        if not times:
            return lambda s, p=start: (p[0], np.zeros(n), np.zeros(n))
    return SplineTrajectory(start, times, pos, vel, None, t0=t)


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


def _thresholds_from_yaml(path):
    import yaml
    try:
        with open(path, encoding='utf-8') as handle:
            data = yaml.safe_load(handle) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f'thresholds file {path}: {exc}') from None
    return data.get('max_rms'), data.get('max_abs'), data.get('joints', {})


def run_validate(args):
    """CLI body of ``robodyn validate``; exit 0 pass, 1 fail (2 via RobodynError)."""
    from .report import print_summary
    model = None
    if args.robot:
        from ..model import load_urdf
        from ..robots import robot_path
        path, base, tip = robot_path(args.robot)
        model = load_urdf(path, base, args.tip or tip)
    max_rms, max_abs, per_joint = args.max_rms, args.max_abs, None
    if args.thresholds:
        y_rms, y_abs, per_joint = _thresholds_from_yaml(args.thresholds)
        max_rms = max_rms if max_rms is not None else y_rms
        max_abs = max_abs if max_abs is not None else y_abs
    report = validate_bag(args.bag, args.state_topic, args.reference_topic, args.command_topic,
                          model, max_rms, max_abs, args.tolerance, args.out,
                          not args.no_plots, progress=sys.stderr.isatty(),
                          joint_thresholds=per_joint)
    print_summary(report)
    return 0 if report['passed'] else 1
