"""PNG plots of a validation: reference vs measured, error with band, torques, residual,
loop-timing histogram."""

import os

import numpy as np

__all__ = ['write_plots']


STAMPS = 't [s] from the first sample (state stamps)'
RECEIVED = 't [s] from the first command (bag receive time)'


def _from_zero(t):
    return t - t[0] if len(t) else t


#: Points drawn per curve at most: a bucket's smallest and largest sample each (the peaks
#: stay visible), far more than the figure's pixels across and a fraction of the samples
#: kept for plotting (40 000 rows draw several times slower).
BUCKETS = 1500


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


def _per_joint(plt, joints, t, rows, title, unit, band=None):
    """One axis per joint; ``rows``: [(values (m, n), style, label)]; the worst sample of
    each joint marked (where and when it went wrong)."""
    from matplotlib.ticker import MaxNLocator
    n = len(joints)
    fig, axes = plt.subplots(n, 1, figsize=(10, 1.6 * n + 1.3), sharex=True, squeeze=False)
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


def _all_joints(plt, labels, t, values, ylabel, xlabel, title):
    """Every joint on one axis, the legend outside it (it would cover the curves)."""
    fig, ax = plt.subplots(figsize=(11, 4))
    tc, values = _envelope(t, values)
    for j in range(values.shape[1]):
        ax.plot(tc[:, j], values[:, j], label=labels[j] if j < len(labels) else str(j))
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    ax.legend(fontsize=6, loc='upper left', bbox_to_anchor=(1.0, 1.0))
    ax.grid(alpha=0.3)
    _margins(fig)
    return fig


#: Below this spread of the state periods [s] (lock step, a simulator's stamps) a
#: histogram would show floating-point rounding: no timing plot.
PERIOD_SPREAD = 1e-6


def _histogram(plt, periods):
    """The state periods' deviation from their median [us], log counts: jitter and late
    states at a glance; None when they do not vary (lock step)."""
    median = float(np.median(periods))
    deviation = (periods - median) * 1e6
    if float(np.ptp(periods)) < PERIOD_SPREAD:
        return None
    fig, ax = plt.subplots(figsize=(6, 3.5))
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
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    joints = result['joints']
    figures = {}
    if result['plot'] is not None:
        t, q_ref, q = result['plot']
        t = _from_zero(t)
        figures['tracking'] = _per_joint(
            plt, joints, t, [(q_ref, '-', 'reference'), (q, '--', 'measured')],
            'reference and measured position (they overlap when tracking is good: the '
            'error is in error.png)', 'rad or m')
        figures['error'] = _per_joint(
            plt, joints, t, [(q_ref - q, '-', 'reference - measured')],
            'tracking error per joint', 'rad or m', band=report['tolerance_band'])
    if result['command_plot'] is not None:
        t, tau = result['command_plot']
        figures['torques'] = _all_joints(plt, joints, _from_zero(t), tau, 'command [N m or N]',
                                         RECEIVED, 'effort commands')
    if result['residual_plot'] is not None:
        t, residual = result['residual_plot']
        figures['residual'] = _all_joints(plt, joints, _from_zero(t), residual,
                                          'effort - model [N m or N]', STAMPS,
                                          'model residual: measured effort minus the model')
    if result['periods'].size:
        timing = _histogram(plt, result['periods'])
        if timing is not None:
            figures['timing'] = timing
    paths = {}
    for name, fig in figures.items():
        paths[name] = os.path.join(out_dir, f'{name}.png')
        fig.savefig(paths[name], dpi=90)  # one draw: the margins are fixed (_margins)
        plt.close(fig)
    return paths
