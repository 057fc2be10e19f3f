"""PNG plots of a validation: reference vs measured, error with band, torques, residual,
loop-timing histogram."""

import os

import numpy as np

__all__ = ['write_plots']


STAMPS = 't [s] from the first sample (state stamps)'
RECEIVED = 't [s] from the first command (bag receive time)'


def _from_zero(t):
    return t - t[0] if len(t) else t


#: Buckets per curve: each is drawn as its smallest and largest sample (the peaks stay
#: visible). As many as the widest plot area has pixel columns (11 in at 90 dpi less the
#: 3.6 in of margins: 666) and no more: a pixel column then shows exactly its samples'
#: range, and more buckets only lengthen the paths Agg rasterises, the plots' largest cost
#: on a long bag.
BUCKETS = 700


def _subplots(*args, figsize, **kwargs):
    """(figure, axes) as pyplot.subplots gives them, without pyplot: a figure that Agg
    draws straight to its file (no figure manager, no backend to select, no global state
    to clean up after each figure)."""
    from matplotlib.figure import Figure
    fig = Figure(figsize=figsize)
    return fig, fig.subplots(*args, **kwargs)


def _envelope(t, values):
    """(t (p, n), values (p, n)): per column each bucket's smallest and largest sample,
    in time order; the rows as they are when there are few."""
    m, n = values.shape
    width = m // BUCKETS
    if width < 3:
        return np.repeat(t[:, None], n, axis=1), values
    body = values[:BUCKETS * width].reshape(BUCKETS, width, n)
    base = (np.arange(BUCKETS) * width)[:, None, None]
    # a NaN is its bucket's argmin and argmax: the curve shows a gap there
    picks = np.stack([np.argmin(body, axis=1), np.argmax(body, axis=1)], axis=1)
    rows = np.sort(picks, axis=1) + base  # (BUCKETS, 2, n) row indices
    rows = np.concatenate([rows.reshape(-1, n),
                           np.repeat(np.arange(BUCKETS * width, m)[:, None], n, axis=1)])
    return t[rows], np.take_along_axis(values, rows, axis=0)


#: Margins of every figure [inches]: the legends sit outside the axes, to their right
#: (they would cover the curves). Fixed margins instead of ``bbox_inches='tight'``, which
#: draws each figure twice (once to measure it): the plots' largest cost on a long bag.
LEFT, RIGHT, TOP, BOTTOM = 1.0, 2.6, 0.55, 0.6


def _margins(fig, legend=True):
    """Place the axes within the fixed margins (``legend``: room for one at the right)."""
    width, height = fig.get_size_inches()
    fig.subplots_adjust(left=LEFT / width, right=1.0 - (RIGHT if legend else 0.3) / width,
                        top=1.0 - TOP / height, bottom=BOTTOM / height)


def _per_joint(joints, t, rows, title, unit, band=None):
    """One axis per joint; ``rows``: [(values (m, n), style, label)]; the worst sample of
    each joint marked (where and when it went wrong)."""
    from matplotlib.ticker import MaxNLocator
    n = len(joints)
    fig, axes = _subplots(n, 1, figsize=(10, 1.6 * n + 1.3), sharex=True, squeeze=False)
    fig.suptitle(title, fontsize=10)
    curves = [(*_envelope(t, values), style, label) for values, style, label in rows]
    for j, ax in enumerate(axes[:, 0]):
        for tc, values, style, label in curves:
            ax.plot(tc[:, j], values[:, j], style, label=label)
        if band is not None:
            ax.axhspan(-band, band, color='green', alpha=0.15,
                       label=f'tolerance band \u00b1{band:g} {unit}' if j == 0 else None)
            worst = int(np.argmax(np.abs(rows[0][0][:, j]))) if len(t) else None
            if worst is not None:
                ax.plot(t[worst], rows[0][0][worst, j], 'rx',
                        label='largest |error|' if j == 0 else None)
        ax.set_ylabel(f'{joints[j]}\n[{unit}]', fontsize=7)
        ax.yaxis.set_major_locator(MaxNLocator(nbins=4))
        # the time axis is drawn once, under the last panel (sharex: same ticks); an axis
        # drawn without labels still builds its ticks, the plots' largest cost
        ax.xaxis.set_visible(j == n - 1)
    if any(ax.get_legend_handles_labels()[1] for ax in axes[:1, 0]):
        axes[0, 0].legend(fontsize=7, loc='upper left', bbox_to_anchor=(1.0, 1.0))
    axes[-1, 0].set_xlabel(STAMPS)
    _margins(fig)
    return fig


def _all_joints(labels, t, values, ylabel, xlabel, title, dashed=None):
    """Every joint on one axis, the legend outside it (it would cover the curves);
    ``dashed``: a second series per joint, drawn dashed in the joint's colour."""
    fig, ax = _subplots(figsize=(11, 4))
    tc, values = _envelope(t, values)
    second = _envelope(t, dashed) if dashed is not None else None
    for j in range(values.shape[1]):
        line, = ax.plot(tc[:, j], values[:, j], label=labels[j] if j < len(labels) else str(j))
        if second is not None:
            ax.plot(second[0][:, j], second[1][:, j], '--', color=line.get_color())
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    ax.legend(fontsize=6, loc='upper left', bbox_to_anchor=(1.0, 1.0))
    ax.grid(alpha=0.3)
    _margins(fig)
    return fig


#: Below this spread of the state periods [s] (lock step, a simulator's stamps) a
#: histogram would show floating-point rounding: no timing plot.
PERIOD_SPREAD = 1e-6


def _histogram(periods):
    """The state periods' deviation from their median [us], log counts: jitter and late
    states at a glance; None when they do not vary (lock step)."""
    median = float(np.median(periods))
    deviation = (periods - median) * 1e6
    if float(np.ptp(periods)) < PERIOD_SPREAD:
        return None
    fig, ax = _subplots(figsize=(6, 3.5))
    ax.hist(deviation, bins=60)
    ax.set_yscale('log')
    ax.ticklabel_format(axis='x', useOffset=False, style='plain')
    ax.set_xlabel(f'state period minus its median ({median * 1e3:.3f} ms) [us]')
    ax.set_ylabel('states (log)')
    ax.set_title('loop timing: how late each state came (gaps and their times: '
                 'report.json timing)', fontsize=9)
    _margins(fig, legend=False)
    return fig


def write_plots(result, report, out_dir):
    """Write the plots; return {name: path}."""
    joints = result['joints']
    figures = {}
    if result['plot'] is not None:
        t, q_ref, q = result['plot']
        t = _from_zero(t)
        # one axis: the two curves overlap when tracking is good; seven panels of them
        # showed the motion no better than one and cost more to draw (error.png has the
        # panel per joint)
        figures['tracking'] = _all_joints(
            joints, t, q_ref, 'position [rad or m]', STAMPS,
            'reference (solid) and measured (dashed) position; the error per joint is in '
            'error.png', dashed=q)
        figures['error'] = _per_joint(
            joints, t, [(q_ref - q, '-', 'reference - measured')],
            'tracking error per joint', 'rad or m', band=report['tolerance_band'])
    if result['command_plot'] is not None:
        t, tau = result['command_plot']
        figures['torques'] = _all_joints(joints, _from_zero(t), tau, 'command [N m or N]',
                                         RECEIVED, 'effort commands')
    if result['residual_plot'] is not None:
        t, residual = result['residual_plot']
        figures['residual'] = _all_joints(joints, _from_zero(t), residual,
                                          'effort - model [N m or N]', STAMPS,
                                          'model residual: measured effort minus the model')
    if result['periods'].size:
        timing = _histogram(result['periods'])
        if timing is not None:
            figures['timing'] = timing
    paths = {}
    for name, fig in figures.items():
        paths[name] = os.path.join(out_dir, f'{name}.png')
        fig.savefig(paths[name], dpi=90)  # one draw: the margins are fixed (_margins)
    return paths
