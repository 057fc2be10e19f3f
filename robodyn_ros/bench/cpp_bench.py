"""The C++ controller's computed-torque step against Pinocchio's C++ ``rnea`` on the same
model and states, and every law of the C++ controller (joint_laws.hpp) beside Pinocchio
computing the same torque (robodyn_controllers/bench/dynamics_bench.cpp).

The benchmark is compiled here with g++ (-O3, as the package's Release build) from the
controller's own dynamics source and the headers and library the ``pin`` wheel carries; the
Pinocchio model is built from the exported DH rows, so both evaluate one model. The
acceleration of the computed-torque law is formed in the timed loop for both.
"""

from pathlib import Path
import shutil
import subprocess
import tempfile

import numpy as np

from ..control.controller_config import ControllerConfig
from ..control.laws import PLUGIN_MODES
from ..control.plugin_parameters import plugin_parameters, row_table
from ..errors import ConfigError
from ..model import load_robot
from ..package_share import share_dir

__all__ = ['cpp_bench', 'format_cpp_bench']

#: What Pinocchio computes for each law (dynamics_bench.cpp's pinocchio_law).
_PINOCCHIO_SIDE = {
    'computed_torque': 'rnea at the commanded acceleration',
    'feedforward': 'rnea at the reference, + PD',
    'gravity': 'computeGeneralizedGravity + PD',
    'joint_impedance': 'rnea at qdd_r, + PD',
    'passivity': 'rnea(q, 0, qdd_a) + computeCoriolisMatrix(q, qd) qd_a + K_D s',
    'adaptive': "passivity's + 3 forwardKinematics, bodyRegressor, computeJointJacobians: "
                'the payload term',
    'cartesian_impedance': 'computeJointJacobians at q and q_r, computeMinverse, log3, '
                           'nonLinearEffects',
    'operational_space': "cartesian_impedance's + 2 forwardKinematics (Jdot qd at q and "
                         'q_r)',
}
_SOURCES = ('bench/dynamics_bench.cpp', 'src/dh_dynamics.cpp', 'src/momentum_observer.cpp',
            'src/joint_laws.cpp', 'src/payload_adaptation.cpp', 'src/tip_kinematics.cpp',
            'src/task_laws.cpp', 'src/task_space.cpp')


def _package_dir() -> Path:
    """robodyn_controllers/ of the source tree (next to the robodyn_ros package)."""
    candidates = [Path(__file__).resolve().parents[2] / 'robodyn_controllers',
                  Path(share_dir()).parent / 'robodyn_controllers']
    for path in candidates:
        if (path / _SOURCES[0]).is_file():
            return path
    raise ConfigError('robodyn_controllers/bench/dynamics_bench.cpp not found: the C++ '
                      'benchmark runs from a source checkout')


def _compile(folder: Path) -> Path:
    """The benchmark executable, built into ``folder``."""
    import pinocchio
    prefix = Path(pinocchio.__file__).resolve().parents[4]  # .../cmeel.prefix
    if not (prefix / 'include' / 'pinocchio').is_dir() or shutil.which('g++') is None:
        raise ConfigError(f"the C++ benchmark needs g++ and the pin wheel's headers under "
                          f'{prefix}/include')
    package, exe = _package_dir(), folder / 'dynamics_bench'
    # the definitions pinocchio's CMake config exports to its users
    defines = ['-DBOOST_MPL_LIMIT_LIST_SIZE=30', '-DBOOST_MPL_LIMIT_VECTOR_SIZE=30',
               '-DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS', '-DBOOST_FUSION_INVOKE_MAX_ARITY=12',
               '-DPINOCCHIO_ENABLE_TEMPLATE_INSTANTIATION']
    command = ['g++', '-O3', '-DNDEBUG', '-std=c++17', *defines, f'-I{package / "include"}',
               f'-I{prefix / "include"}', '-I/usr/include/eigen3',
               *[str(package / s) for s in _SOURCES], f'-L{prefix / "lib"}',
               '-lpinocchio_default', f'-Wl,-rpath,{prefix / "lib"}', '-o', str(exe)]
    out = subprocess.run(command, capture_output=True, text=True)
    if out.returncode:
        raise ConfigError(f'compiling the C++ benchmark failed: {out.stderr[-600:]}')
    return exe


def _input(model, count, repeats, seed=0) -> str:
    config = ControllerConfig.from_parameters({'kp': [400.0], 'kd': [40.0]})
    values = plugin_parameters(model, config)
    rng = np.random.default_rng(seed)
    lower = np.where(np.isfinite(model.lower), model.lower, -np.pi)
    upper = np.where(np.isfinite(model.upper), model.upper, np.pi)
    lines = [f'{model.n} {count} {repeats}', ' '.join(map(repr, values['gravity']))]
    lines += [' '.join(map(repr, row.tolist())) for row in row_table(values)]
    for _ in range(count):
        q, q_ref = rng.uniform(lower, upper, (2, model.n))
        rest = rng.normal(0.0, 1.0, (3, model.n))
        state = np.concatenate([q, rest[0], q_ref, rest[1], rest[2]])  # q qd q_r qd_r qdd_r
        lines.append(' '.join(map(repr, state.tolist())))
    lines += [' '.join(map(repr, values['kp'])), ' '.join(map(repr, values['kd']))]
    return '\n'.join(lines) + '\n'


def cpp_bench(robot: str = 'panda', base: str | None = None, tip: str | None = None,
              count: int = 1000, repeats: int = 2000) -> dict:
    """{'robot', 'n', 'robodyn_ns', 'pinocchio_ns', 'ratio', 'max_abs_difference',
    'max_abs_torque', 'observer_ns', 'observer_terms_difference'}: mean time per
    computed-torque step [ns] over ``count`` random states, ``repeats`` passes each, the
    largest torque difference [N m], the momentum observer's time per sample [ns] (what the
    collision watch adds to a cycle) and the largest relative difference of its one-pass
    terms from the dual-number route."""
    model = load_robot(robot, base, tip)
    with tempfile.TemporaryDirectory(prefix='robodyn_cpp_bench_') as folder:
        exe = _compile(Path(folder))
        data = Path(folder) / 'input.txt'
        data.write_text(_input(model, count, repeats))
        out = subprocess.run([str(exe), str(data)], capture_output=True, text=True,
                             timeout=600)
    if out.returncode:
        raise ConfigError(f'the C++ benchmark failed: {out.stderr.strip()[-300:]}')
    values = dict(line.split() for line in out.stdout.splitlines())
    report = {'robot': model.name, 'n': model.n,
              **{k: float(v) for k, v in values.items() if k != 'sink'}}
    report['ratio'] = report['robodyn_ns'] / report['pinocchio_ns']
    report['laws'] = {mode: {'robodyn_ns': report.pop(f'law_{mode}_robodyn_ns'),
                             'pinocchio_ns': report.pop(f'law_{mode}_pinocchio_ns'),
                             'max_abs_difference': report.pop(f'law_{mode}_difference')}
                      for mode in PLUGIN_MODES}
    for law in report['laws'].values():
        law['ratio'] = law['robodyn_ns'] / law['pinocchio_ns']
    return report


def format_cpp_bench(report: dict) -> str:
    """One line per figure of :func:`cpp_bench`."""
    return (f'{report["robot"]} ({report["n"]} joints), C++ computed-torque step per call: '
            f'robodyn {report["robodyn_ns"] / 1e3:.3f} us, Pinocchio rnea '
            f'{report["pinocchio_ns"] / 1e3:.3f} us (ratio {report["ratio"]:.2f}); largest '
            f'torque difference {report["max_abs_difference"]:.2e} N m of '
            f'{report["max_abs_torque"]:.3g}\nmomentum observer per sample: '
            f'{report["observer_ns"] / 1e3:.3f} us (its terms within '
            f'{report["observer_terms_difference"]:.1e} relative of M qd and Mdot qd - C qd '
            '- g on dual numbers)' + ''.join(
                f'\n{mode}: robodyn {law["robodyn_ns"] / 1e3:.3f} us, Pinocchio '
                f'{law["pinocchio_ns"] / 1e3:.3f} us ({_PINOCCHIO_SIDE[mode]}; ratio '
                f'{law["ratio"]:.2f}), torques within {law["max_abs_difference"]:.1e} N m'
                for mode, law in report.get('laws', {}).items()) +
            (f'\npayload regressor (1.5 kg) within {report["payload_regressor_difference"]:.1e}'
             " N m of Pinocchio's" if 'payload_regressor_difference' in report else ''))

