"""Outputs of ``robodyn identify``: the parameters YAML, report.json, report.md and the
measured-vs-predicted torque plot (held-out samples)."""

import json
import os

import numpy as np

from ..defaults import CONTROLLER_NAME
from ..io.params_yaml import dump_parameters
from ..model.inertial_parameters import from_vector

__all__ = ['write_identification']


def _parameters(model, result):
    params: dict[str, object] = {}
    if result.viscous is not None:
        params['viscous'] = [round(float(v), 6) for v in result.viscous]
        params['coulomb'] = [round(float(v), 6) for v in result.coulomb]
    if result.payload is not None:  # the controller's payload.mass / .com / .inertia
        body = from_vector(result.payload)
        i = body.inertia
        params['payload'] = dict(mass=float(body.mass), com=body.com.tolist(),
                                 inertia=[float(i[0, 0]), float(i[0, 1]), float(i[0, 2]),
                                          float(i[1, 1]), float(i[1, 2]), float(i[2, 2])])
    return params


def write_identification(model, result, source, out):
    """Write the four outputs into ``out``; return the report dict."""
    os.makedirs(out, exist_ok=True)
    params = _parameters(model, result)
    with open(os.path.join(out, 'identified.yaml'), 'w', encoding='utf-8') as handle:
        handle.write(f'# robodyn identify: {model.name}, friction per joint '
                     f'{list(model.joint_names)} (viscous [N m s/rad], Coulomb [N m]); '
                     f'payload in the {model.tip_link} '
                     'frame (mass [kg], com [m], inertia about the com [kg m^2]: xx xy xz yy '
                     'yz zz)\n')
        dump_parameters({CONTROLLER_NAME: {'ros__parameters': params}}, handle)
    report = dict(robot=model.name, joints=list(model.joint_names), tip_link=model.tip_link,
                  effort_source=source, samples=result.samples, held_out=result.held_out,
                  condition_number=result.condition_number, parameters=params,
                  standard_errors=result.standard_errors,
                  residual_rms_before=result.rms_before.tolist(),
                  residual_rms_after=result.rms_after.tolist())
    with open(os.path.join(out, 'report.json'), 'w', encoding='utf-8') as handle:
        json.dump(report, handle, indent=2)
    lines = [f'# Identification: {model.name}', '',
             f'Effort: {source}; {result.samples} samples fitted, {result.held_out} held out; '
             f'condition number {result.condition_number:.3g}.', '',
             '| joint | viscous | Coulomb | residual RMS before | after |',
             '|---|---|---|---|---|']
    for j, name in enumerate(model.joint_names):
        k = params.get('viscous', ['-'] * model.n)[j]
        c = params.get('coulomb', ['-'] * model.n)[j]
        lines.append(f'| {name} | {k} | {c} | {result.rms_before[j]:.3g} | '
                     f'{result.rms_after[j]:.3g} |')
    if 'payload' in params:
        com = np.round(params['payload']['com'], 4).tolist()
        lines += ['', f'Payload: {params["payload"]["mass"]:.4g} kg at {com} m in '
                  f'{model.tip_link}.']
    with open(os.path.join(out, 'report.md'), 'w', encoding='utf-8') as handle:
        handle.write('\n'.join(lines) + '\n')
    _plot(model, result, os.path.join(out, 'torques.png'))
    return report


def _plot(model, result, path):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    k, tau, before, after = result.plot
    n = model.n
    fig, axes = plt.subplots(n, 1, figsize=(8, 1.5 * n + 1), sharex=True, squeeze=False)
    for j, ax in enumerate(axes[:, 0]):
        ax.plot(k, tau[:, j], label='measured')
        ax.plot(k, before[:, j], ':', label='URDF model')
        ax.plot(k, after[:, j], '--', label='identified')
        ax.set_ylabel(model.joint_names[j], fontsize=7)
    axes[0, 0].legend(fontsize=7)
    axes[-1, 0].set_xlabel('held-out sample')
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
