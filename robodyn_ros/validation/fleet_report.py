"""The fleet report: one table of every bag's row (fleet.json for machines, fleet.md, and
fleet.html, one self-contained page: the table sortable by any column, the plots inline,
no server and no network), the worst bag, and each arm's drift.

Drift is the slope of a least-squares line through an arm's bags over their start times:
of the worst joint's model residual RMS [N m per day] when a model was given (a joint whose
friction grows shows there first), else of the worst tracking RMS [rad per day]. The arm
with the steepest rise is named; the plots show every arm's line, so one that rises
stands out.
"""

import base64
import html
import io
import json
import os
from typing import Any

import numpy as np

__all__ = ['FLEET_SCHEMA_VERSION', 'fleet_summary', 'write_fleet_report']

FLEET_SCHEMA_VERSION = 1
DAY = 86400.0
Row = dict[str, Any]
COLUMNS = (('bag', 'bag'), ('arm', 'arm'), ('robot', 'robot'), ('start', 'start [UTC]'),
           ('duration', 'duration [s]'), ('verdict', 'verdict'),
           ('worst_joint', 'worst joint'), ('worst_rms', 'RMS [rad]'),
           ('worst_residual', 'residual RMS [N m]'), ('contacts', 'contacts'),
           ('safe_entries', 'safe-mode entries'), ('gaps', 'gaps'), ('reason', 'why'))


def _metric(rows: list[Row]) -> tuple[str, str]:
    if any(r['worst_residual'] is not None for r in rows):
        return 'worst_residual', 'N m'
    return 'worst_rms', 'rad'


def fleet_summary(rows: list[Row]) -> dict[str, Any]:
    """Counts, the worst bag and each arm's drift (see the module docstring)."""
    key, unit = _metric(rows)
    scored = [r for r in rows if r[key] is not None]
    worst = max(scored, key=lambda r: r[key]) if scored else None
    drift = {}
    for arm in sorted({r['arm'] for r in scored}):
        points = [(r['start'], r[key]) for r in scored if r['arm'] == arm and r['start']]
        if len({t for t, _ in points}) >= 2:
            t, v = np.array(points).T
            drift[arm] = float(np.polyfit((t - t.min()) / DAY, v, 1)[0])
    rising = max(drift, key=lambda arm: drift[arm]) if drift else None
    return {'bags': len(rows), 'passed': sum(r['verdict'] == 'PASS' for r in rows),
            'failed': sum(r['verdict'] == 'FAIL' for r in rows),
            'errors': sum(r['verdict'] == 'ERROR' for r in rows),
            'bag_hours': sum(r['duration'] for r in rows) / 3600.0,
            'metric': key, 'unit': unit, 'worst_bag': worst['bag'] if worst else None,
            'worst_value': worst[key] if worst else None,
            'drift_per_day': drift, 'drifting_arm': rising}


def write_fleet_report(rows: list[Row], out_dir: str, plots: bool = True) -> dict[str, str]:
    """fleet.json, fleet.md, fleet.html (and the plots) into ``out_dir``; their paths."""
    os.makedirs(out_dir, exist_ok=True)
    summary = fleet_summary(rows)
    images = _plots(rows, summary) if plots else {}
    paths = {name: os.path.join(out_dir, f'fleet.{name}') for name in ('json', 'md', 'html')}
    with open(paths['json'], 'w', encoding='utf-8') as handle:
        json.dump({'schema_version': FLEET_SCHEMA_VERSION, 'summary': summary, 'bags': rows},
                  handle, indent=2)
    for name, png in images.items():
        paths[name] = os.path.join(out_dir, f'fleet_{name}.png')
        with open(paths[name], 'wb') as handle:
            handle.write(png)
    with open(paths['md'], 'w', encoding='utf-8') as handle:
        handle.write(_markdown(rows, summary, images))
    with open(paths['html'], 'w', encoding='utf-8') as handle:
        handle.write(_html(rows, summary, images))
    return paths


def _worst_first(rows: list[Row]) -> list[Row]:
    """The bags that did not pass first (unreadable, then failed), then by worst RMS,
    largest first: the page opens on what needs a look."""
    rank = {'ERROR': 0, 'FAIL': 1}
    return sorted(rows, key=lambda r: (rank.get(r['verdict'], 2),
                                       -(r['worst_rms'] if r.get('worst_rms') is not None
                                         else float('inf'))))


def _cell(row: Row, key: str) -> str:
    value = row[key]
    if value is None:
        return ''
    if key == 'start':
        import datetime
        return datetime.datetime.fromtimestamp(value, datetime.UTC).strftime('%Y-%m-%d %H:%M:%S')
    if isinstance(value, float):
        return f'{value:.4g}'
    return str(value)


def _headline(summary: dict[str, Any]) -> list[str]:
    s = summary
    lines = [f"{s['bags']} bags ({s['bag_hours']:.2f} bag-hours): {s['passed']} passed, "
             f"{s['failed']} failed, {s['errors']} unreadable."]
    if s['worst_bag']:
        lines.append(f"Worst bag by {s['metric']}: {s['worst_bag']} "
                     f"({s['worst_value']:.4g} {s['unit']}).")
    if s['drifting_arm']:
        lines.append(f"Steepest rise: arm {s['drifting_arm']}, "
                     f"{s['drift_per_day'][s['drifting_arm']]:+.4g} {s['unit']} per day.")
    return lines


def _markdown(rows: list[Row], summary: dict[str, Any], images: dict[str, bytes]) -> str:
    lines = ['# Fleet validation', '', *_headline(summary), '',
             '| ' + ' | '.join(title for _, title in COLUMNS) + ' |',
             '|' + '---|' * len(COLUMNS)]
    for row in _worst_first(rows):
        lines.append('| ' + ' | '.join(_cell(row, key).replace('|', '\\|')
                                       for key, _ in COLUMNS) + ' |')
    lines += [''] + [f'![{name}](fleet_{name}.png)' for name in images]
    return '\n'.join(lines) + '\n'


_SORT = """<script>
document.querySelectorAll('th').forEach((th, col) => th.addEventListener('click', () => {
  const body = th.closest('table').tBodies[0], up = th.dataset.up !== '1';
  const key = r => { const t = r.cells[col].textContent, v = parseFloat(t);
    return isNaN(v) || /[^0-9.eE+-]/.test(t) ? t : v; };
  [...body.rows].sort((a, b) => { const x = key(a), y = key(b);
    return (x > y ? 1 : x < y ? -1 : 0) * (up ? 1 : -1); }).forEach(r => body.appendChild(r));
  th.dataset.up = up ? '1' : '0'; }));
</script>"""


def _html(rows: list[Row], summary: dict[str, Any], images: dict[str, bytes]) -> str:
    head = ''.join(f'<th>{html.escape(title)}</th>' for _, title in COLUMNS)
    body = ''.join('<tr class="{}">'.format(row['verdict'].lower()) +
                   ''.join(_html_cell(row, key) for key, _ in COLUMNS)
                   + '</tr>' for row in _worst_first(rows))
    pictures = ''.join(f'<h2>{html.escape(name)}</h2><img alt="{name}" src="data:image/png;'
                       f'base64,{base64.b64encode(png).decode()}">'
                       for name, png in images.items())
    return ('<!DOCTYPE html><html><head><meta charset="utf-8"><title>Fleet validation'
            '</title><style>body{font-family:sans-serif;margin:1em}table{border-collapse:'
            'collapse}td,th{border:1px solid #999;padding:2px 6px}th{cursor:pointer;'
            'background:#eee}tr.fail td{background:#fdd}tr.error td{background:#fec}'
            'img{max-width:100%}</style></head><body><h1>Fleet validation</h1>'
            + ''.join(f'<p>{html.escape(line)}</p>' for line in _headline(summary))
            + f'<table id="fleet"><thead><tr>{head}</tr></thead><tbody>{body}</tbody>'
            '</table>' + pictures + _SORT + '</body></html>\n')


def _html_cell(row: Row, key: str) -> str:
    """One table cell; the bag's cell links to its own report (relative to the page)."""
    text = html.escape(_cell(row, key))
    if key == 'bag' and row.get('report'):
        link = html.escape(os.path.join(row['report'], 'report.md'), quote=True)
        return f'<td><a href="{link}">{text}</a></td>'
    return f'<td>{text}</td>'


def _plots(rows: list[Row], summary: dict[str, Any]) -> dict[str, bytes]:
    """Per joint, the tracking RMS and the model residual RMS over the bags' start times,
    one line per arm (the drifting arm's line rises)."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    dated = [r for r in rows if r['start'] is not None and r['verdict'] != 'ERROR']
    images = {}
    for name, field, unit in (('residual', 'residual', 'N m'), ('rms', 'worst_rms', 'rad')):
        if not any(r[field] for r in dated):
            continue
        fig, ax = plt.subplots(figsize=(9, 4.5))
        t0 = min(r['start'] for r in dated)
        for arm in sorted({r['arm'] for r in dated}):
            mine = sorted((r for r in dated if r['arm'] == arm), key=lambda r: r['start'])
            values = [max(r[field].values()) if isinstance(r[field], dict) else r[field]
                      for r in mine]
            # a marker on every bag: an arm with one bag is a point, not an empty line
            ax.plot([(r['start'] - t0) / 3600.0 for r in mine], values, '-o', markersize=4,
                    linewidth=2.5 if arm == summary['drifting_arm'] else 1.0, label=arm)
        what = 'worst joint model residual RMS' if name == 'residual' else \
            'worst joint tracking RMS'
        ax.set(title=f'{what} per arm over the bags (rising: drifting)',
               xlabel='bag start [h from the first bag]', ylabel=f'{what} [{unit}]')
        ax.legend(fontsize='small', loc='upper left', ncol=2)
        ax.grid(alpha=0.3)
        buffer = io.BytesIO()
        fig.savefig(buffer, format='png', dpi=90, metadata={'Software': None})
        plt.close(fig)
        images[name] = buffer.getvalue()
    return images
