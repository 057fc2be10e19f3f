"""``robodyn validate``: time-aligned tracking error, timing, torques and model residual
from a rosbag2 directory, streamed chunk by chunk (bounded memory).

Composition only: topics are chosen here; :class:`~.bag_stream.BagStream` routes the
messages through the stages (references -> alignment -> metrics, residual) and
:mod:`.report` judges against :mod:`.thresholds` and writes the report.
"""

import os

from ..defaults import JOINT_STATES
from ..errors import BagError, ConfigError
from ..io.bag_reader import BagReader
from ..io.sequence_gaps import listed_gaps
from ..model import RobotModel
from .bag_stream import (
    DIAGNOSTICS,
    JOINT_STATE,
    JTC_STATE,
    TRAJECTORY,
    BagStream,
    progress_printer,
)
from .report_schema import ContactsSummary, ValidationReport
from .thresholds import resolve_thresholds

__all__ = ['validate_bag', 'choose_reference']


def choose_reference(topics: dict[str, str], state_topic: str) -> str:
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


def _topics(bag, state_topic, reference_topic, command_topic):
    """{role: topic} checked against the bag, and the reference type."""
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
        command_topic = bag.effort_command_topic()
    else:
        bag.require(command_topic, 'command')
    diag_topic = '/diagnostics' if bag.topics.get('/diagnostics') == DIAGNOSTICS else None
    return dict(state=state_topic, reference=ref_topic, command=command_topic,
                diagnostics=diag_topic), ref_type


def _stream(bag, stream, wanted, progress):
    """Every message of the ``wanted`` topics through ``stream``'s handlers, in bag order
    (the percentage on stderr with ``progress``)."""
    show = progress_printer(sum(bag.counts.get(t, 0) for t in wanted)) if progress else None
    chunks = bag.chunks(wanted)
    if chunks is not None:  # an indexed MCAP file: whole chunks at a time
        seen = 0
        for topics, chunk in chunks:
            stream.add_chunk(topics, bag.topics, chunk)
            seen += len(chunk.channel)
            if show:
                show(seen)
        if show:
            show(0, done=True)
        return
    handlers = stream.handlers
    for seen, (topic, msgtype, stamp_ns, raw) in enumerate(bag.messages(wanted), 1):
        handlers[topic](raw, msgtype, stamp_ns)
        if show:
            show(seen)
    if show:
        show(0, done=True)


def validate_bag(bag_path: str | os.PathLike, state_topic: str = '/' + JOINT_STATES,
                 reference_topic: str | None = None, command_topic: str | None = None,
                 model: RobotModel | None = None, max_rms: float | None = None,
                 max_abs: float | None = None, tolerance: float = 1e-3,
                 out_dir: str | None = None, plots: bool = True, progress: bool = False,
                 thresholds_file: str | None = None, settle_after_stall: float = 0.0,
                 contacts: ContactsSummary | None = None,
                 max_torque_rate: float | None = None, recover: bool = False,
                 task_space: tuple | None = None,
                 tool_tracking: tuple | None = None) -> ValidationReport:
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
        progress: print the percentage done to stderr.
        settle_after_stall: states at most this long [s] after a gap of the state stream
            longer than alignment.STALL_GAP (the loop or the host stood still) are counted
            apart, not in the tracking metrics: on a busy machine the law's own error,
            without the host's. 0: every state counts.
        contacts: what the collision observer found in the same bag
            (contacts_report.contacts_summary); a contact fails the run unless allowed.
        max_torque_rate: [N m/s]; a change of the applied effort (validation.applied_steps)
            above this x the states' period in one cycle fails the run. None: reported.
        recover: judge what is complete in a bag whose storage is damaged (the verdict
            says on how much of what its metadata lists); False: BagError.
        task_space, tool_tracking: (task_space.TaskSpaceScan or tool_tracking.ToolTracking,
            max position RMS [mm], max orientation RMS [mrad]): the tool against the bag's
            pose targets, against the reference's tool (over a bound fails); or None.
        out_dir: default ``validation/<bag name>`` under the current directory: a bag
            archive may be read-only or shared, so nothing is written into the bag.

    Returns:
        The report (also written to report.json; keys in validation.report_schema).
    """
    from .report import build_report, write_outputs
    thresholds = resolve_thresholds(max_rms, max_abs, thresholds_file)
    _check_options(settle_after_stall, max_torque_rate)
    with BagReader(bag_path) as bag:
        _refuse_damaged(bag.recovered, recover)
        roles, ref_type = _topics(bag, state_topic, reference_topic, command_topic)
        stream = BagStream(roles, ref_type, model, tolerance, bag.deserialize,
                           settle_after_stall)
        result = _read(bag, stream, roles, progress)
    report = build_report(bag_path, state_topic, roles['reference'], roles['command'], result,
                          model, thresholds, tolerance)
    report['start_time'] = None if result['start_ns'] is None else result['start_ns'] * 1e-9
    _add_recovery(report, bag.recovered)
    _judge_applied(report, result, max_torque_rate)
    _add_scans(report, contacts, task_space, tool_tracking)
    write_outputs(report, result, out_dir or os.path.join(
        'validation', os.path.basename(os.path.normpath(bag_path))), plots)
    return report


def _add_scans(report: ValidationReport, contacts: ContactsSummary | None,
               task_space: tuple | None, tool_tracking: tuple | None) -> None:
    """The other passes over the bag, into ``report``: the collision observer's contacts,
    the tool pose against the targets and against the reference's (each may fail the
    run)."""
    if contacts is not None:
        from .report import add_contacts
        add_contacts(report, contacts)
    if task_space is not None:
        from .task_space import add_task_space
        add_task_space(report, *task_space)
    if tool_tracking is not None:
        from .tool_tracking import add_tool_tracking
        add_tool_tracking(report, *tool_tracking)


def _said_rate_limit(diagnostics: list[dict[str, str]]) -> float | None:
    """The last max_torque_rate [N m/s] the controller's /diagnostics stated, or None."""
    for values in reversed(diagnostics):
        try:
            rate = float(values['max_torque_rate'])
        except (KeyError, ValueError):
            continue
        if 0.0 < rate <= 1e5:
            return rate
    return None


def _read(bag: BagReader, stream: BagStream, roles: dict, progress: bool) -> dict:
    """The bag stream's figures of ``bag``, with what the recorder knew it lost."""
    gaps = listed_gaps(bag.recording_gaps.get(roles['command'] or ''))
    stream.cmd.gaps = gaps if gaps is not None else frozenset()
    stream.cmd.steps_known = gaps is not None
    _stream(bag, stream, [t for t in roles.values() if t], progress)
    result = stream.result()
    result['recovered'] = bag.recovered
    start_ns = bag.reader.start_time if bag.reader.message_count else None
    result.update(recording_gaps=bag.recording_gaps, start_ns=start_ns)
    return result


def _add_recovery(report: ValidationReport, recovered: dict | None) -> None:
    """Whether the bag was recovered, and of a damaged one how much was complete."""
    report['recovered'] = recovered is not None
    if recovered is not None and recovered.get('damaged'):
        report['recovered_share'] = {'messages': recovered['messages'],
                                     'listed': recovered.get('listed')}


def _judge_applied(report: ValidationReport, result: dict,
                   max_torque_rate: float | None) -> None:
    """The applied torque's worst step per cycle into the report's torque section; a step
    over ``max_torque_rate``'s budget (None: the one the controller's /diagnostics stated,
    if any) fails the run."""
    applied, joints = result['applied'], result['joints']
    if max_torque_rate is None:
        max_torque_rate = _said_rate_limit(result['diagnostics'])
        report['torque']['rate_limit_source'] = None if max_torque_rate is None else \
            "the controller's /diagnostics"
    report['torque']['applied_step'] = applied.worst if applied.period is not None else None
    report['torque']['applied_step_budget'] = None if max_torque_rate is None or \
        applied.period is None else max_torque_rate * applied.period
    report['torque']['applied_step_time'] = None if applied.at is None or \
        applied.first is None else applied.at - applied.first
    source = report['torque'].get('rate_limit_source') or '--max-torque-rate'
    reason = None if max_torque_rate is None else \
        applied.failure(max_torque_rate, joints, source)
    if reason:
        report['failures'].append(reason)
        report['passed'] = False


def _refuse_damaged(recovered: dict | None, recover: bool) -> None:
    """BagError for a bag whose storage is damaged, unless ``recover``: a verdict on part
    of a run must be asked for."""
    if recovered is None or not recovered.get('damaged') or recover:
        return
    from .report import recovered_share
    share = recovered_share(recovered['messages'], recovered.get('listed'))
    raise BagError(f"bag {recovered['original']} is damaged ({recovered['damaged'][:120]}): "
                   f'{share} are complete; --recover judges those')


def _check_options(settle_after_stall: float, max_torque_rate: float | None) -> None:
    """ConfigError naming an option out of its range."""
    if max_torque_rate is not None and not 0.0 < max_torque_rate <= 1e5:
        raise ConfigError(f'max_torque_rate must be within (0, 1e5] N m/s, got '
                          f'{max_torque_rate}')
    if not 0.0 <= settle_after_stall <= 10.0:
        raise ConfigError(f'settle_after_stall must be within [0, 10] s, got '
                          f'{settle_after_stall}')
