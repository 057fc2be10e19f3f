"""Figures of the seed 000 reproduction, in the style of the paper's Fig. 5 (input torques)
and Fig. 6 (references vs responses; tracking errors)."""

import os

import numpy as np

__all__ = ['write_figures']


def write_figures(runs: dict, joints: list, out: str) -> dict:
    """fig5_torques.png, fig6a_tracking.png, fig6b_errors.png in ``out``; {name: path}."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    os.makedirs(out, exist_ok=True)
    ode = runs['recursive + ABA/DOP853']
    paths = {}
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for j, name in enumerate(joints):
        ax.plot(ode['t'], ode['tau'][:, j], label=f'$\\tau_{j + 1}$ ({name})')
    ax.set_xlabel('t [s]')
    ax.set_ylabel('input torque [N m]')
    ax.legend(fontsize=8)
    paths['fig5'] = _save(fig, plt, out, 'fig5_torques')
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for j in range(len(joints)):
        ax.plot(ode['t'], ode['q_ref'][:, j], label=f'$q_{{{j + 1}r}}$')
        ax.plot(ode['t'], ode['q'][:, j], '--', label=f'$q_{j + 1}$')
    ax.set_xlabel('t [s]')
    ax.set_ylabel('[rad]')
    ax.legend(fontsize=8, ncol=3)
    paths['fig6a'] = _save(fig, plt, out, 'fig6a_tracking')
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for name, run in runs.items():
        worst = np.abs(run['error']).max(axis=1)
        ax.semilogy(run['t'], np.maximum(worst, 1e-18), label=name)
    ax.set_xlabel('t [s]')
    ax.set_ylabel('max$_j$ |q$_j$ - q$_{jr}$| [rad]')
    ax.legend(fontsize=7)
    paths['fig6b'] = _save(fig, plt, out, 'fig6b_errors')
    return paths


def _save(fig, plt, out, name):
    path = os.path.join(out, f'{name}.png')
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
