"""PNG plots of a validation: reference vs measured, error with band, torques, residual,
loop-timing histogram."""

import os

__all__ = ['write_plots']


def write_plots(result, report, out_dir):
    """Write the plots; return {name: path}."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    joints = result['joints']
    n = len(joints)
    paths = {}

    def save(fig, name):
        path = os.path.join(out_dir, f'{name}.png')
        fig.tight_layout()
        fig.savefig(path, dpi=90)
        plt.close(fig)
        paths[name] = path

    if result['plot'] is not None:
        t, q_ref, q = result['plot']
        fig, axes = plt.subplots(n, 1, figsize=(8, 1.6 * n + 1), sharex=True, squeeze=False)
        for j, ax in enumerate(axes[:, 0]):
            ax.plot(t, q_ref[:, j], label='reference')
            ax.plot(t, q[:, j], '--', label='measured')
            ax.set_ylabel(joints[j], fontsize=7)
        axes[0, 0].legend(fontsize=7)
        axes[-1, 0].set_xlabel('t [s]')
        save(fig, 'tracking')
        tol = report['tolerance_band']
        fig, axes = plt.subplots(n, 1, figsize=(8, 1.6 * n + 1), sharex=True, squeeze=False)
        for j, ax in enumerate(axes[:, 0]):
            ax.plot(t, q_ref[:, j] - q[:, j])
            ax.axhspan(-tol, tol, color='green', alpha=0.15)
            ax.set_ylabel(joints[j], fontsize=7)
        axes[-1, 0].set_xlabel('t [s]')
        save(fig, 'error')
    if result['command_plot'] is not None:
        t, tau = result['command_plot']
        fig, ax = plt.subplots(figsize=(8, 4))
        for j in range(tau.shape[1]):
            ax.plot(t, tau[:, j], label=joints[j] if j < n else str(j))
        ax.set_xlabel('t [s]')
        ax.set_ylabel('command [N m or N]')
        ax.legend(fontsize=6, ncol=2)
        save(fig, 'torques')
    if result['residual_plot'] is not None:
        t, res = result['residual_plot']
        fig, ax = plt.subplots(figsize=(8, 4))
        for j in range(res.shape[1]):
            ax.plot(t, res[:, j], label=joints[j])
        ax.set_xlabel('t [s]')
        ax.set_ylabel('effort - model [N m or N]')
        ax.legend(fontsize=6, ncol=2)
        save(fig, 'residual')
    periods = result['periods']
    if periods.size:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.hist(periods * 1e3, bins=60)
        ax.set_yscale('log')
        ax.set_xlabel('state period [ms]')
        ax.set_ylabel('count')
        save(fig, 'timing')
    return paths


