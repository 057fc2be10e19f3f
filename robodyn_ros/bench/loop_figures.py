"""Figures of the loop benchmark (bench/loop_bench.py): the answered share, latency and
compute figures, the machine's steal time, the printed table. Pure: no ROS."""

import numpy as np

__all__ = ['loop_figures', 'cpu_times', 'steal_percent', 'format_loop_bench']


def loop_figures(stamps, answers, compute):
    """Answered share and latency [ms] of the states a node answered (``stamps``: the
    stamps sent [s]; ``answers``: (stamp, receipt time) rows [s]; ``compute``: the
    controller's diagnostics rows, see nodes.loop_bench_nodes) and its compute figures [us]."""
    sent = set(np.round(stamps, 6))
    latency = {}
    for stamp, received in answers:
        key = round(stamp, 6)
        if key in sent and key not in latency:
            latency[key] = received - stamp
    lat = np.array(list(latency.values())) * 1e3 if latency else np.zeros(1)
    start, end = stamps.min(), stamps.max()
    inside = compute[(compute[:, 0] > start + 1.0) & (compute[:, 0] < end)] \
        if len(compute) else compute
    return {
        'states': int(len(stamps)), 'answered': int(len(latency)),
        'answered_pct': 100.0 * len(latency) / max(len(stamps), 1),
        'latency_ms': {'p50': float(np.percentile(lat, 50)),
                       'p99': float(np.percentile(lat, 99)), 'max': float(lat.max())},
        'compute_us': None if not len(inside) else {
            'p50': float(inside[-1, 5]), 'p99': float(inside[-1, 6]),
            'worst_window_p99': float(inside[:, 2].max())},
        'cycle_wall_us': None if not len(inside) else {
            'p50': float(np.median(inside[:, 3])), 'p99': float(inside[:, 4].max())},
    }


def cpu_times():
    """This machine's CPU time counters (all CPUs, /proc/stat's first line, in ticks), or
    None where there is no /proc/stat."""
    try:
        with open('/proc/stat') as f:
            return [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None


def steal_percent(before, after):
    """Share [%] of the CPU time between two :func:`cpu_times` that the hypervisor gave to
    other guests ('steal', the 8th counter), or None when unknown: on a shared VM, the
    noise a run was measured under."""
    if not before or not after or len(before) < 8 or len(after) < 8:
        return None
    total = sum(after[:8]) - sum(before[:8])  # guest time is already inside user/nice
    return 100.0 * (after[7] - before[7]) / total if total > 0 else None


def format_loop_bench(result):
    """Human-readable table of nodes.loop_bench.run_loop_bench's result."""
    lines = [f'loop: {result["duration_s"]:.0f} s of joint states at {result["rate_hz"]:.0f} Hz '
             'per run, each node in its own process'
             + (', node under test pinned to its own CPU' if result['pinned'] else '')
             + (f', SCHED_FIFO {result["fifo"]}' if result['fifo'] else ''),
             f'{"node":<12}{"answered":>16}{"p50 ms":>9}{"p99 ms":>9}{"max ms":>9}'
             f'{"compute p50/p99 us":>22}{"wall p50/p99 us":>20}']
    names = ('echo', 'echo_raw', 'controller')
    for name in names:
        r = result[name]
        lat = r['latency_ms']
        comp, wall = r['compute_us'], r['cycle_wall_us']
        lines.append(f'{name:<12}{r["answered"]:>7}/{r["states"]:<5} {r["answered_pct"]:5.1f}%'
                     f'{lat["p50"]:>6.2f}{lat["p99"]:>9.2f}{lat["max"]:>9.2f}'
                     + (f'{comp["p50"]:>13.1f} / {comp["p99"]:<6.1f}'
                        f'{wall["p50"]:>11.1f} / {wall["p99"]:<6.1f}' if comp else ''))
    lines.append('publisher ticks skipped (late by more than a period, as an rcl timer '
                 'skips them): ' + ', '.join(f'{name} {result[name]["ticks_skipped"]}'
                                            for name in names))
    steal = [result[name]['steal_pct'] for name in names]
    if None not in steal:
        lines.append("CPU time stolen by the hypervisor during each run (a shared VM's "
                     'noise): ' + ', '.join(f'{n} {v:.2f}%' for n, v in zip(names, steal)))
    comp = result['controller']['compute_us']
    if comp:
        lines.append(f'compute = CPU time of a cycle, p50/p99 over the whole run (1 us bins); '
                     f'worst 2000-cycle window p99 {comp["worst_window_p99"]:.1f} us')
    ratio, raw = result['latency_ratio'], result['latency_ratio_raw']
    lines.append(f'latency controller / echo: p50 {ratio["p50"]:.2f}x, p99 {ratio["p99"]:.2f}x; '
                 f'/ echo_raw (serialized like the controller): p50 {raw["p50"]:.2f}x, '
                 f'p99 {raw["p99"]:.2f}x')
    return '\n'.join(lines)
