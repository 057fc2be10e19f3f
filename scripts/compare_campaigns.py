"""Two fault campaigns side by side: the cases of the first and whether the second ran each
with the same invariants to the same verdicts (each check's pass or fail), then the cases
only the second has.

  .venv/bin/robodyn faults --json before.json      # in a checkout of the older commit
  .venv/bin/robodyn faults --json after.json
  .venv/bin/python scripts/compare_campaigns.py before.json after.json

Exit 0 when every case of the first is in the second with the same checks and verdicts, 1
otherwise; 2 with one line on a file that is not a campaign's JSON.
"""

import json
import sys


def _load(path):
    try:
        with open(path, encoding='utf-8') as handle:
            rows = json.load(handle)
        return {row['case']: row for row in rows}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f'compare_campaigns: {path}: not a campaign JSON ({exc})', file=sys.stderr)
        raise SystemExit(2) from None


def _verdicts(row):
    """{invariant: passed} of one case."""
    return {name: bool(value[0]) for name, value in row['checks'].items()}


def compare(before: dict, after: dict) -> tuple[list[str], bool]:
    """(the table's lines, whether every case of ``before`` is in ``after`` with the same
    checks and verdicts)."""
    lines = ['| case | checks before / after | verdict before / after | same |',
             '|---|---|---|---|']
    same_all = True
    for name, row in before.items():
        other = after.get(name)
        if other is None:
            lines.append(f'| {name} | {len(row["checks"])} / - | - | no: not run after |')
            same_all = False
            continue
        a, b = _verdicts(row), _verdicts(other)
        same = a == b and row['passed'] == other['passed']
        same_all &= same
        verdict = f'{_word(row)} / {_word(other)}'
        lines.append(f'| {name} | {len(a)} / {len(b)} | {verdict} | '
                     f'{"yes" if same else "no: " + _difference(a, b)} |')
    extra = [name for name in after if name not in before]
    lines.append(f'\n{len(before)} cases before, {len(after)} after; only after: '
                 + (', '.join(f'{n} ({_word(after[n])})' for n in extra) or 'none'))
    return lines, same_all


def _word(row):
    return 'pass' if row['passed'] else 'FAIL'


def _difference(a, b):
    gone = sorted(set(a) - set(b))
    new = sorted(set(b) - set(a))
    changed = sorted(k for k in set(a) & set(b) if a[k] != b[k])
    parts = [f'{label} {", ".join(keys)}' for label, keys in
             (('gone', gone), ('new', new), ('changed', changed)) if keys]
    return '; '.join(parts) or 'the case verdict'


def main(argv):
    if len(argv) != 2:
        print('usage: compare_campaigns.py BEFORE.json AFTER.json', file=sys.stderr)
        return 2
    lines, same = compare(_load(argv[0]), _load(argv[1]))
    print('\n'.join(lines))
    return 0 if same else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
