"""Validation report: versioned JSON schema, Markdown summary, pass/fail, console summary."""

import json
import os
from typing import Any

import numpy as np

from ..io.sequence_gaps import MAX_GAPS, listed_gaps
from ..model import RobotModel
from .report_schema import SCHEMA_VERSION, ContactsSummary, ModelSummary, ValidationReport
from .thresholds import Thresholds

__all__ = ['SCHEMA_VERSION', 'ValidationReport', 'add_contacts', 'build_report', 'print_summary',
           'recovered_share', 'write_outputs']


def _diag_summary(diagnostics):
    if not diagnostics:
        return None
    rows = diagnostics[1:] if len(diagnostics) > 1 else diagnostics  # first window is warm-up
    # Timing only while commanding: before activation and after shutdown nothing runs.
    rows = [d for d in rows if d.get('state', 'active') == 'active'] or rows

    def col(key):
        vals = [float(d[key]) for d in rows if key in d]
        return vals

    rate = col('rate_hz')
    p99 = col('compute_p99_us')
    # the last status of a configured controller (a shutdown's 'unconfigured' has none)
    last: dict = next((d for d in reversed(diagnostics) if d.get('mode')), {})
    return dict(messages=len(diagnostics), mode=last.get('mode'),
                rate_hz_min=min(rate) if rate else None,
                rate_hz_median=float(np.median(rate)) if rate else None,
                compute_p50_us_median=float(np.median(col('compute_p50_us')))
                if col('compute_p50_us') else None,
                compute_p99_us_max=max(p99) if p99 else None,
                compute_max_us=max(col('compute_max_us')) if col('compute_max_us') else None,
                faults=int(float(last.get('faults', 0))),
                clamped=int(float(last.get('clamped', 0))))


def build_report(bag_path: str | os.PathLike, state_topic: str, ref_topic: str | None,
                 command_topic: str | None, result: dict[str, Any], model: RobotModel | None,
                 thresholds: Thresholds, tolerance: float) -> ValidationReport:
    """Assemble the report and decide pass/fail against ``thresholds``: a threshold
    exceeded or a non-finite sample fails. ``result``: the bag stream's figures."""
    tracking = result['tracking']
    failures = []
    for name, stats in tracking['joints'].items():
        limits = thresholds.for_joint(name)
        stats['thresholds'] = limits
        if stats['non_finite']:
            failures.append(f'{name}: {stats["non_finite"]} non-finite samples')
        for key, label in (('max_rms', 'rms'), ('max_abs', 'max_abs')):
            if limits[key] is not None and not stats[label] <= limits[key]:  # NaN fails
                failures.append(f'{name}: {label} {stats[label]:.3g} > {limits[key]:.3g}')
    unknown = sorted(set(thresholds.joints) - set(tracking['joints']))
    if unknown:
        from ..errors import ConfigError
        raise ConfigError(f'thresholds for unknown joints {unknown}; valid: '
                          f'{", ".join(tracking["joints"])}')
    events = _controller_events(result.get('events', []))
    failures += [f"controller in safe mode from {e['time']:.2f} s: {e['text']}"
                 for e in events if e['state'] == 'safe']
    command = dict(result['command'])
    if command.get('peak') is not None:
        command['peak'] = dict(zip(result['joints'], command['peak']))
    if command.get('at_limit_pct') is not None:
        command['at_limit_pct'] = dict(zip(result['joints'], command['at_limit_pct']))
    return {
        'schema_version': SCHEMA_VERSION,
        'bag': str(bag_path),
        'topics': dict(state=state_topic, reference=ref_topic, command=command_topic),
        'units': 'rad or m (per joint type); times in s',
        'tolerance_band': tolerance,
        'joints': tracking['joints'],
        'overall': tracking['overall'],
        'timing': dict(state=result['state_timing'], reference=result['ref_timing']),
        'torque': command,
        'diagnostics': _diag_summary(result['diagnostics']),
        'residual': result['residual'],
        'error_fit': result.get('error_fit') or {},
        'model': None if model is None else ModelSummary(name=model.name,
                                                         joints=list(model.joint_names)),
        'thresholds_source': thresholds.source,
        'events': events,
        'warnings': _warnings(result['state_timing'], result.get('recovered')) +
        _missing_topics(command_topic, result['diagnostics']) +
        _lost_in_recording(result.get('recording_gaps') or {}, result.get('start_ns')),
        'failures': failures,
        'passed': not failures,
    }


def _controller_events(events):
    """The controller's transitions from /diagnostics: [{time [s] from the bag's first
    message, level, state, text}], at most 50 (the first ones: they explain the rest)."""
    return [dict(time=float(t), level=int(level), state=state or '', text=text)
            for t, level, text, state in events[:50]]


def _missing_topics(command_topic, diagnostics):
    """What the verdict could not look at: each topic the bag lacks, and what it means."""
    out = []
    if command_topic is None:
        out.append('no effort command topic (a Float64MultiArray */commands) in the bag: '
                   'torques, clamping and the effort limits were not checked')
    if not diagnostics:
        out.append('no /diagnostics from robodyn_controller in the bag: whether the '
                   'controller entered safe mode (and why) is unknown')
    return out


def _lost_in_recording(gaps, start_ns=None):
    """Each topic whose recorder lost messages (io.sequence_gaps), or received nothing for
    a while although it was published, and what that means (times [s] from ``start_ns``,
    the bag's first message)."""
    out = []
    for topic, entry in sorted(gaps.items()):
        lost = entry.get('lost', 0) if isinstance(entry, dict) else 0
        if lost:
            count = entry.get('gap_count', len(entry.get('gaps', [])))
            out.append(f'{lost} messages of {topic} were lost in recording ({count} gaps: '
                       'the recorder lagged and the publisher overwrote them); a change '
                       'across a gap is not one published step'
                       + ('' if listed_gaps(entry) is not None else
                          f'; the gaps beyond the first {MAX_GAPS} are not listed, so no '
                          'command step is reported'))
        for start, end in _silences(entry):
            out.append(f'the recorder received nothing of {topic} from '
                       f'{_since(start, start_ns)} '
                       + (f'to {_since(end, start_ns)}' if end else 'to the end of the bag')
                       + ' although a publisher offered it: the bag does not cover that '
                       'stretch of the run')
    return out


def _silences(entry):
    """The well-formed [start ns, end ns or None] pairs of a topic's summary (the bag's
    metadata is input: anything else is skipped)."""
    silences = entry.get('silences') if isinstance(entry, dict) else None
    out = []
    for pair in silences if isinstance(silences, list) else []:
        if isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], int) and \
                (pair[1] is None or isinstance(pair[1], int)):
            out.append((pair[0], pair[1]))
    return out


def _since(ns, start_ns):
    """A receive time [ns] as seconds from the bag's first message."""
    return f'{(ns - (start_ns or ns)) * 1e-9:.1f} s'


def _warnings(timing, recovered=None):
    """Things the verdict does not hide: a recovered bag, clock jumps, skipped messages."""
    out = []
    if recovered and recovered.get('damaged'):
        out.append(f'the bag\'s storage is damaged ({recovered["damaged"][:150]}): '
                   f'{recovered["messages"]} complete messages recovered')
    elif recovered:
        out.append(f'the bag had no metadata.yaml (its recorder was killed?): '
                   f'{recovered["messages"]} complete messages recovered')
    if not timing:
        return out
    if timing.get('backward_jumps'):
        out.append(f'state stamps jumped back {timing["backward_jumps"]} time(s); '
                   f'{timing["out_of_order"]} states stamped earlier than one already seen '
                   'were not compared')
    if timing.get('in_reference_gaps'):
        out.append(f'{timing["in_reference_gaps"]} states fell where the recorded reference '
                   'has a gap over 50 ms (the recorder lost it) and were not compared')
    if timing.get('duplicate_stamps'):
        out.append(f'{timing["duplicate_stamps"]} states repeated a stamp (counted once)')
    if timing.get('other_messages'):
        out.append(f'{timing["other_messages"]} state messages without the tracked joints '
                   '(other publishers) were ignored')
    return out


def _controller_line(report, d):
    """The controller's figures a run is judged by: commands against states (did it
    answer each one), its compute time per cycle, faults and clamped commands. Its cycle
    rate over wall-clock time is not among them: in lock step (the demo) the simulation,
    not the controller, sets the pace."""
    commands = report['torque'].get('messages') or 0
    states = report['overall'].get('samples') or 0
    answered = f', {commands} commands for {states} states' if commands and states else ''
    p50 = d.get('compute_p50_us_median')
    p99 = d.get('compute_p99_us_max')
    compute = f', compute per cycle p50 {p50:.1f} us, p99 {p99:.1f} us' \
        if p50 is not None and p99 is not None else ''
    return (f'controller: mode {d["mode"]}{answered}{compute}, faults {d["faults"]}, '
            f'clamped {d["clamped"]}')


def _fit_lines(fits):
    """The error fitted to the reference's rates (validation.error_fit), one row a joint."""
    rows = [f'| {name} | {f["offset"]:.2e} | {f["velocity_term"]:.2e} | '
            f'{f["acceleration_term"]:.2e} | {f["residual_rms"]:.2e} |'
            for name, f in fits.items() if f is not None]
    if not rows:
        return []
    return ['', 'The error fitted as e = offset + c_v qd_r + c_a qdd_r (a time shift: c_v; '
            'an acceleration error or a velocity measured at another instant: c_a):', '',
            '| joint | offset [rad] | c_v [s] | c_a [s^2] | residual RMS [rad] |',
            '|---|---|---|---|---|'] + rows


def _markdown(report):
    lines = [f'# Tracking validation: `{report["bag"]}`', '',
             f'Reference `{report["topics"]["reference"]}` vs measured '
             f'`{report["topics"]["state"]}`; band ±{report["tolerance_band"]:g}.', '',
             '| joint | RMS | max abs | final | in band | settling [s] |',
             '|---|---|---|---|---|---|']
    for name, s in report['joints'].items():
        lines.append(f'| {name} | {s["rms"]:.3e} | {s["max_abs"]:.3e} | {s["final"]:.2e} | '
                     f'{100 * s["time_in_band"]:.1f} % | {s["settling_time"]:.3f} |')
    lines += _fit_lines(report.get('error_fit') or {})
    o = report['overall']
    lines += ['', f'Overall RMS {o["rms"]:.3e}, max {o["max_abs"]:.3e} over {o["samples"]} '
              f'samples ({o["duration"]:.2f} s).{_excluded(o)}', '']
    t = report['timing']['state']
    if t:
        lines.append(f'State loop: {t["rate_hz"]:.2f} Hz, jitter p50/p99 '
                     f'{t["jitter_p50_ms"]:.4f}/{t["jitter_p99_ms"]:.4f} ms, {t["gaps"]} gaps, '
                     f'{t["dropped_cycles"]} dropped cycles.')
    step, at = report['torque'].get('largest_step'), report['torque'].get('largest_step_time')
    if step is not None:
        lines.append(f'Largest command step between consecutive messages: {step:.4g} N m'
                     + (f' (at {at:.3f} s from the first message).' if at is not None
                        else '.'))
    applied, at = report['torque'].get('applied_step'), report['torque'].get('applied_step_time')
    if applied is not None and at is not None:
        budget = report['torque'].get('applied_step_budget')
        source = report['torque'].get('rate_limit_source') or '--max-torque-rate'
        judged = f' (the limit: {budget:.4g} N m a cycle, from {source})' \
            if budget is not None else ' (not judged: no rate limit given or stated)'
        lines.append(f'Largest applied torque step in one cycle (the effort the states report): '
                     f'{applied:.4g} N m, {at:.3f} s after the first state{judged}.')
    d = report['diagnostics']
    if d:
        rate = d.get('rate_hz_min')
        lines.append(_controller_line(report, d).replace('controller:', 'Controller:') + (
            f' (cycle rate over wall-clock time: min {rate:.2f} Hz; in lock step the '
            'simulation sets the pace).' if rate is not None else ''))
    if report.get('events'):
        lines += ['', '| time [s] | controller event |', '|---|---|']
        lines += [f'| {e["time"]:.2f} | {e["text"]} |' for e in report['events']]
    if report.get('warnings'):
        lines += [''] + [f'Warning: {w}' for w in report['warnings']]
    if report['residual']:
        lines += ['', '| joint | residual RMS | R² |', '|---|---|---|']
        for name, r in report['residual']['joints'].items():
            lines.append(f'| {name} | {r["rms"]:.3e} | {r["r2"]:.5f} |')
    if 'contacts' in report:
        lines += _contacts_markdown(report['contacts'])
    if 'tool_tracking' in report:
        from .tool_tracking import tool_tracking_lines
        lines += tool_tracking_lines(report['tool_tracking'])
    if 'task_space' in report:
        from .task_space import task_space_lines
        lines += task_space_lines(report['task_space'])
    lines += ['', f'**{"PASS" if report["passed"] else "FAIL"}**{_on_share(report)}'
              + ('' if report['passed'] else ': ' + '; '.join(report['failures']))]
    return '\n'.join(lines) + '\n'


def add_contacts(report: ValidationReport, contacts: ContactsSummary) -> None:
    """Put the collision observer's findings in ``report``; contacts not allowed fail it."""
    report['contacts'] = contacts
    if contacts['count'] and not contacts['allowed']:
        first = contacts['contacts'][0]
        report['failures'].append(
            f"{contacts['count']} contacts over the collision thresholds of "
            f"{contacts['thresholds_file']}, the first at {first['start']:.3f} s "
            f"({', '.join(first['peak'])}); --allow-contacts if they were expected")
        report['passed'] = False


def _contacts_markdown(contacts: ContactsSummary) -> list[str]:
    allowed = ' (expected: --allow-contacts)' if contacts['allowed'] else ''
    lines = ['', f"Contacts over the collision thresholds of `{contacts['thresholds_file']}`: "
             f"{contacts['count']}{allowed}."]
    if contacts['contacts']:
        lines += ['', '| start [s] | end [s] | declared [s] | joints: peak \\|r\\| [N m] |',
                  '|---|---|---|---|']
        for c in contacts['contacts']:
            end = 'end of bag' if c['end'] is None else f"{c['end']:.3f}"
            peaks = ', '.join(f'{j} {v:.2f}' for j, v in c['peak'].items())
            lines.append(f"| {c['start']:.3f} | {end} | {c['detected']:.3f} | {peaks} |")
    return lines


def write_outputs(report: ValidationReport, result: dict[str, Any], out_dir: str,
                  plots: bool = True) -> None:
    """report.json, report.md and (optionally) PNG plots into ``out_dir``."""
    os.makedirs(out_dir, exist_ok=True)
    if plots:
        from .plots import write_plots
        report['plots'] = write_plots(result, report, out_dir)
    with open(os.path.join(out_dir, 'report.json'), 'w', encoding='utf-8') as handle:
        json.dump(report, handle, indent=2)
    with open(os.path.join(out_dir, 'report.md'), 'w', encoding='utf-8') as handle:
        handle.write(_markdown(report))
    report['out_dir'] = out_dir


def print_summary(report: ValidationReport) -> None:
    """Short console summary."""
    o = report['overall']
    print(f'tracking ({report["topics"]["reference"]} vs {report["topics"]["state"]}): '
          f'overall RMS {o["rms"]:.3e}, max {o["max_abs"]:.3e} over {o["samples"]} samples'
          f'{_excluded(o)}')
    for name, s in report['joints'].items():
        print(f'  {name:<24} rms {s["rms"]:.3e}  max {s["max_abs"]:.3e}  '
              f'in band {100 * s["time_in_band"]:.1f} %')
    d = report.get('diagnostics')
    if d:
        print(_controller_line(report, d))
    t = report['timing']['state']
    if t:
        print(f'state stream: {t["rate_hz"]:.2f} Hz, {t["gaps"]} gaps, '
              f'{t["dropped_cycles"]} dropped cycles')
    residual = report['residual']
    if residual:
        worst = max(r['rms'] for r in residual['joints'].values())
        print(f'model residual: worst joint RMS {worst:.3e}')
    for what, k in (("the reference's tool", report.get('tool_tracking')),
                    ('the targets', report.get('task_space'))):
        if k:
            print(f"tool to {what}: position RMS per axis {_mm(k['position_rms_mm'])} mm, "
                  f"orientation {_mm(k['orientation_rms_mrad'])} mrad")
    for warning in report.get('warnings', []):
        print(f'warning: {warning}')
    if report.get('thresholds_source') == 'default':
        print('thresholds: defaults (no --max-rms / --max-abs / --thresholds given)')
    print(f'{"PASS" if report["passed"] else "FAIL"}{_on_share(report)}'
          + ('' if report['passed'] else ': ' + '; '.join(report['failures']))
          + (f'  (report in {report["out_dir"]})' if 'out_dir' in report else ''))


def _mm(values) -> str:
    return '(' + ', '.join(f'{v:.3f}' for v in values) + ')'


def recovered_share(messages: int, listed: int | None) -> str:
    """'N of M messages (x %)' of a recovered bag ('N messages' when M is not known)."""
    if not listed:
        return f'{messages} messages (its metadata lists none)'
    return f'{messages} of {listed} messages ({100.0 * messages / listed:.1f} %)'


def _on_share(report) -> str:
    """' on N of M messages (x %)' of a damaged bag judged on what was complete."""
    share = report.get('recovered_share')
    if not share:
        return ''
    return f" on {recovered_share(share['messages'], share.get('listed'))}"


def _excluded(overall) -> str:
    """The states counted apart after stalls (--settle-after-stall), said when there are."""
    n = overall.get('excluded_after_stalls', 0)
    return f' ({n} states just after stalls counted apart)' if n else ''
