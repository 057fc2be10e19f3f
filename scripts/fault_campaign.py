#!/usr/bin/env python3
"""The controller's fault campaign: every case of test/faults/cases.py against a real
controller process, then a summary table.

  ROS_DOMAIN_ID=61 ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST \
      .venv/bin/python scripts/fault_campaign.py [--fast] [--case NAME ...] [--json FILE]

Exit 0 when every case passed, 1 otherwise.
"""

import argparse
import json
import os
from pathlib import Path
import sys
import time

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'test' / 'faults'))
os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
os.environ.setdefault('ROS_DOMAIN_ID', '61')

from cases import CASES, FAST  # noqa: E402
from harness import run_case  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--fast', action='store_true', help='the CI subset only')
    parser.add_argument('--case', action='append', default=[], help='run this case (repeat)')
    parser.add_argument('--json', help='write the results to this file')
    args = parser.parse_args(argv)
    cases = [c for c in CASES if (not args.fast or c.name in FAST) and
             (not args.case or c.name in args.case)]
    if not cases:
        print(f'fault_campaign: no such case; valid: {", ".join(c.name for c in CASES)}')
        return 2
    results, t0 = [], time.monotonic()
    for case in cases:
        t = time.monotonic()
        result = run_case(case)
        results.append((case, result))
        verdict = 'pass' if result.passed else 'FAIL: ' + '; '.join(result.failures())
        print(f'{case.name:<32} {time.monotonic() - t:5.1f} s  {verdict}', flush=True)
    _table(results, time.monotonic() - t0)
    if args.json:
        Path(args.json).write_text(json.dumps([dict(
            case=c.name, path=c.path, passed=r.passed, checks=r.checks,
            worst_step=r.worst_step, longest_silence=r.longest_silence,
            exit_time=r.exit_time, commands=r.commands) for c, r in results], indent=1))
    return 0 if all(r.passed for _, r in results) else 1


def _table(results, elapsed):
    print()
    print('| case | path | invariants | commands | worst step [N m] | longest silence [ms] '
          '| exit [s] | verdict |')
    print('|---|---|---|---|---|---|---|---|')
    for case, r in results:
        exit_time = '' if r.exit_time is None else f'{r.exit_time:.2f}'
        silence = 'not checked' if r.longest_silence is None else \
            f'{r.longest_silence * 1e3:.1f}'
        print(f'| {case.name} | {case.path or "-"} | {len(r.checks)} | {r.commands} | '
              f'{r.worst_step:.3f} | {silence} | {exit_time} | '
              f'{"pass" if r.passed else "FAIL"} |')
    passed = sum(r.passed for _, r in results)
    checks = sum(len(r.checks) for _, r in results)
    worst = max((r.worst_step for _, r in results), default=0.0)
    silence = max((r.longest_silence for _, r in results if r.longest_silence is not None),
                  default=0.0)
    exits = [r.exit_time for _, r in results if r.exit_time is not None]
    print(f'\n{passed}/{len(results)} cases passed, {checks} invariant checks; worst step '
          f'{worst:.3f} N m, longest silence while commanding {silence * 1e3:.1f} ms, '
          f'longest exit {max(exits, default=0.0):.2f} s; {elapsed:.0f} s')


if __name__ == '__main__':
    raise SystemExit(main())
