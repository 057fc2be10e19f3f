"""The whole fault campaign and its summary table (``robodyn faults``; the CI subset runs
as test/robodyn_testing/faults/test_campaign.py)."""

from collections.abc import Sequence
import json
from pathlib import Path
import time

from robodyn_ros.errors import InputError

from .cases import CASES, FAST
from .checks import run_case

__all__ = ['run_campaign']


def run_campaign(fast: bool = False, names: Sequence[str] = (),
                 json_path: str | None = None, mode: str | None = None) -> int:
    """Run the cases (all, the CI subset ``FAST``, or those named) with the law ``mode``
    (None: the node's default), print one line per case and the summary table; write the
    results to ``json_path`` if given.

    Returns:
        0 when every case passed, 1 otherwise.

    Raises:
        InputError: a name that is no case (the valid ones listed).
    """
    from robodyn_ros.control.laws import MODES
    if mode is not None and mode not in MODES:
        raise InputError(f'no such mode {mode!r}; valid: {", ".join(MODES)}')
    unknown = [n for n in names if n not in {c.name for c in CASES}]
    if unknown:
        raise InputError(f'no such case {unknown[0]!r}; valid: '
                         f'{", ".join(c.name for c in CASES)}')
    cases = [c for c in CASES if (not fast or c.name in FAST) and
             (not names or c.name in names)]
    if not cases:
        raise InputError('no case is both named and in the fast subset')
    if json_path:  # an unwritable path fails now, not after the campaign
        Path(json_path).write_text('[]')
    results, t0 = [], time.monotonic()
    for case in cases:
        t = time.monotonic()
        result = run_case(case, mode)
        results.append((case, result))
        verdict = 'pass' if result.passed else 'FAIL: ' + '; '.join(result.failures())
        if result.machine_stall > 0.0:
            verdict += (f' (a machine-wide stall of {result.machine_stall * 1e3:.1f} ms inside '
                        "a silence, not counted as the controller's)")
        print(f'{case.name:<32} {time.monotonic() - t:5.1f} s  {verdict}', flush=True)
    _table(results, time.monotonic() - t0)
    if json_path:
        Path(json_path).write_text(json.dumps([dict(
            case=c.name, path=c.path, passed=r.passed, checks=r.checks,
            worst_step=r.worst_step, longest_silence=r.longest_silence,
            machine_stall=r.machine_stall,
            exit_time=r.exit_time, commands=r.commands) for c, r in results], indent=1))
    return 0 if all(r.passed for _, r in results) else 1


def _table(results, elapsed):
    print()
    print('| case | path | invariants | commands | worst step [N m] | longest silence [ms] '
          '| exit [s] | verdict |')
    print('|---|---|---|---|---|---|---|---|')
    for case, r in results:
        exit_time = '' if r.exit_time is None else f'{r.exit_time:.2f}'
        print(f'| {case.name} | {case.path or "-"} | {len(r.checks)} | {r.commands} | '
              f'{r.worst_step:.3f} | {r.longest_silence * 1e3:.1f} | {exit_time} | '
              f'{"pass" if r.passed else "FAIL"} |')
    passed = sum(r.passed for _, r in results)
    checks = sum(len(r.checks) for _, r in results)
    worst = max((r.worst_step for _, r in results), default=0.0)
    silence = max((r.longest_silence for _, r in results), default=0.0)
    exits = [r.exit_time for _, r in results if r.exit_time is not None]
    stalls = [r.machine_stall for _, r in results if r.machine_stall > 0.0]
    witnessed = (f'; machine-wide stalls inside a silence: {len(stalls)} (longest '
                 f'{max(stalls) * 1e3:.1f} ms)' if stalls else '')
    print(f'\n{passed}/{len(results)} cases passed, {checks} invariant checks; worst step '
          f'{worst:.3f} N m, longest silence while commanding {silence * 1e3:.1f} ms, '
          f'longest exit {max(exits, default=0.0):.2f} s{witnessed}; {elapsed:.0f} s')
