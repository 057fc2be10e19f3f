"""``robodyn bench``: per-call timings against Pinocchio, scaling in n, start-up, heap growth.

Timings are taken call by call with ``perf_counter_ns`` (the timer's own cost, measured
on an empty call, is subtracted), interleaving methods and operations round by round so
that a load change on the machine hits all of them alike.
"""

from collections.abc import Callable
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import tracemalloc
from typing import Any

import numpy as np

from ..dynamics import RigidBodyDynamics
from ..dynamics.verification.pinocchio_chain import PinocchioChain
from ..errors import InputError
from ..model import load_robot

__all__ = ['bench', 'format_bench', 'time_operations', 'scaling', 'startup', 'heap_growth',
           'validate_benchmark']

OPS = ('M', 'C', 'g', 'MCg', 'ID', 'CT')


def _calls(dyn, pin_chain, state):
    q, qd, qdd, kp, kd = state
    n = len(q)
    out = np.zeros((2 * n + 1, n))
    calls: dict[str, dict[str, Callable[..., Any]]] = {}
    for method, d in dyn.items():
        calls[method] = {
            'M': lambda d=d: d.mass_matrix(q),
            'C': lambda d=d: d.coriolis_matrix(q, qd),
            'g': lambda d=d: d.gravity_vector(q),
            'MCg': (lambda d=d: d.terms_into(q, qd, out)) if method == 'recursive'
            else (lambda d=d: d.terms(q, qd)),
            'ID': lambda d=d: d.inverse_dynamics(q, qd, qdd),
            'CT': lambda d=d: d.computed_torque(q, qd, q, qd, qdd, kp, kd),
        }
    pin, model, data = pin_chain.pin, pin_chain.model, pin_chain.data
    qp = pin_chain.q(q)

    def pin_terms():
        pin.crba(model, data, qp)
        pin.computeCoriolisMatrix(model, data, qp, qd)
        pin.computeGeneralizedGravity(model, data, qp)

    def pin_ct():
        aq = qdd + kd * (qd - qd) + kp * (q - q)
        return pin.rnea(model, data, qp, qd, aq)

    calls['pinocchio'] = {
        'M': lambda: pin.crba(model, data, qp),
        'C': lambda: pin.computeCoriolisMatrix(model, data, qp, qd),
        'g': lambda: pin.computeGeneralizedGravity(model, data, qp),
        'MCg': pin_terms,
        'ID': lambda: pin.rnea(model, data, qp, qd, qdd),
        'CT': pin_ct,
    }
    return calls


def _timer_overhead():
    def empty():
        return None
    samples = []
    for _ in range(20000):
        t0 = time.perf_counter_ns()
        empty()
        samples.append(time.perf_counter_ns() - t0)
    return float(np.median(samples))


def time_operations(model, methods=('recursive', 'kronecker', 'christoffel', 'pinocchio'),
                    repeats=2000, slow_repeats=100, seed=0):
    """Median and p99 [us] per method and operation, interleaved.

    Returns:
        {method: {op: {'median_us', 'p99_us', 'calls'}}}
    """
    rng = np.random.default_rng(seed)
    n = model.n
    state = (rng.uniform(-1, 1, n), rng.uniform(-1, 1, n), rng.uniform(-1, 1, n),
             np.full(n, 400.0), np.full(n, 40.0))
    dyn = {m: RigidBodyDynamics(model, m) for m in methods if m != 'pinocchio'}
    calls = _calls(dyn, PinocchioChain(model), state)
    calls = {m: calls[m] for m in methods}
    overhead = _timer_overhead()
    samples: dict[str, dict[str, list[int]]] = {m: {op: [] for op in OPS} for m in methods}
    for fn_map in calls.values():  # warm-up (compilation, caches)
        for fn in fn_map.values():
            fn()
    rounds = 20
    for _ in range(rounds):
        for method in methods:
            count = max(1, (repeats if method in ('recursive', 'pinocchio') else slow_repeats)
                        // rounds)
            for op in OPS:
                fn = calls[method][op]
                out = samples[method][op]
                for _ in range(count):
                    t0 = time.perf_counter_ns()
                    fn()
                    out.append(time.perf_counter_ns() - t0 - overhead)
    result: dict[str, dict[str, dict[str, float]]] = {}
    for method in methods:
        result[method] = {}
        for op in OPS:
            arr = np.asarray(samples[method][op]) / 1000.0
            result[method][op] = {'median_us': float(np.median(arr)),
                                  'p99_us': float(np.percentile(arr, 99)), 'calls': len(arr)}
    return result


def scaling(sizes=(2, 4, 8, 16, 32), methods=('recursive', 'pinocchio', 'kronecker',
                                              'christoffel'), repeats=600, seed=0):
    """Median MCg time [us] against n on random chains, and the fitted exponent (n >= 8)."""
    from ..model.random_chain import random_chain
    times: dict[str, list[float]] = {m: [] for m in methods}
    for n in sizes:
        model = load_robot(random_chain(n, seed + n, branches=False), tip_link='tip')
        res = time_operations(model, methods, repeats=repeats,
                              slow_repeats=max(20, repeats // (n * 4)), seed=seed)
        for m in methods:
            times[m].append(res[m]['MCg']['median_us'])
    fit = {}
    sel = [i for i, n in enumerate(sizes) if n >= 8]
    for m in methods:
        if len(sel) >= 2:
            slope = np.polyfit(np.log([sizes[i] for i in sel]), np.log([times[m][i]
                                                                         for i in sel]), 1)[0]
            fit[m] = float(slope)
    return {'sizes': list(sizes), 'median_us': times, 'exponent_n8_to_32': fit}


def plot_scaling(result, path):
    """Log-log plot of MCg time against n."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    for m, values in result['median_us'].items():
        exp = result['exponent_n8_to_32'].get(m)
        ax.loglog(result['sizes'], values, 'o-', label=f'{m} (n^{exp:.2f})' if exp else m)
    ax.set_xlabel('joints n')
    ax.set_ylabel('M + C + g median [us]')
    ax.grid(True, which='both', alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


_STARTUP = """
import time
t0 = time.perf_counter()
import numpy as np
from robodyn_ros.model import load_robot
from robodyn_ros.dynamics import RigidBodyDynamics
m = load_robot({robot!r}, {base!r}, {tip!r})
d = RigidBodyDynamics(m)
z = np.zeros(m.n)
tau = d.computed_torque(z, z, z, z, z, z + 1.0, z + 1.0)
d.terms(z, z)
d.inverse_dynamics(z, z, z)
print(time.perf_counter() - t0)
"""


def startup(robot, base, tip, fresh_cache=False):
    """Seconds from process start of the dynamics code (imports + URDF) to the first torque.

    ``fresh_cache`` points numba at an empty cache directory: the first-ever compile.
    """
    env = dict(os.environ)
    tmp = None
    if fresh_cache:
        tmp = tempfile.mkdtemp(prefix='robodyn-numba-')
        env['NUMBA_CACHE_DIR'] = tmp
    code = _STARTUP.format(robot=robot, base=base, tip=tip)
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=env,
                         check=False)
    if out.returncode != 0:
        raise InputError(f'start-up measurement failed: {out.stderr.strip().splitlines()[-1]}')
    return float(out.stdout.strip().splitlines()[-1])


def heap_growth(model, calls=1_000_000):
    """Python heap growth [bytes] (tracemalloc) and RSS growth [kB] over ``calls`` cycles of
    terms_into + computed_torque on the recursive path."""
    import resource
    dyn = RigidBodyDynamics(model)
    n = model.n
    rng = np.random.default_rng(0)
    q, qd = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    kp, kd = np.full(n, 100.0), np.full(n, 20.0)
    out = np.zeros((2 * n + 1, n))
    for _ in range(1000):
        dyn.terms_into(q, qd, out)
        dyn.computed_torque(q, qd, q, qd, qd, kp, kd)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for _ in range(calls):
        dyn.terms_into(q, qd, out)
        dyn.computed_torque(q, qd, q, qd, qd, kp, kd)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    growth = sum(s.size_diff for s in after.compare_to(before, 'filename'))
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {'calls': calls, 'tracemalloc_bytes': int(growth), 'max_rss_growth_kb': rss1 - rss0}


#: The validation in a fresh process. Peak RSS from VmHWM, this process's own high-water
#: mark: Linux keeps ru_maxrss across fork and exec, so it would report the benchmark's
#: parent (which has just written the bag) instead.
_VALIDATE = """
import json, resource, sys, time
from robodyn_ros.validation.validate import validate_bag
t0 = time.perf_counter()
report = validate_bag(sys.argv[1], out_dir=sys.argv[2], plots=True)
wall = time.perf_counter() - t0
try:
    with open('/proc/self/status') as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith('VmHWM'))
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps(dict(seconds=wall, peak_rss_mb=peak / 1024.0,
    samples=report['overall']['samples'], rms=report['joints'][sys.argv[3]]['rms'])))
"""


def validate_benchmark(hours):
    """Write an ``hours``-long 1 kHz bag (states + references, known error), validate it in a
    fresh process; wall time and peak RSS of the validation."""
    import shutil
    tmp = tempfile.mkdtemp(prefix='robodyn-validate-bench-')
    bag = os.path.join(tmp, 'bag')
    from ..io.synthetic_bags import write_tracking_bag
    t0 = time.perf_counter()
    truth = write_tracking_bag(bag, 'mcap', duration=hours * 3600.0, drop_state_every=0,
                               drop_ref_every=0, reorder=False)
    write_s = time.perf_counter() - t0
    out = subprocess.run([sys.executable, '-c', _VALIDATE, bag, os.path.join(tmp, 'report'),
                          truth['error_joint']], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise InputError(f'validation benchmark failed: {out.stderr.strip()[-300:]}')
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result.update(hours=hours, messages=truth['states'] + truth['references'],
                  write_seconds=write_s, expected_rms=truth['rms'],
                  bag_mb=sum(os.path.getsize(os.path.join(bag, f)) for f in os.listdir(bag))
                  / 1e6)
    shutil.rmtree(tmp, ignore_errors=True)
    return result


def _machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open('/proc/cpuinfo', encoding='utf-8') as handle:
            for line in handle:
                if line.startswith('model name'):
                    cpu = line.split(':', 1)[1].strip()
                    break
    except OSError:
        pass
    return f'{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}'


def bench(robot: str = 'panda', base: str | None = None, tip: str | None = None,
          repeats: int = 2000, scaling_sizes: bool = False, plot: str | None = None,
          memory_calls: int = 100_000, validate_hours: float = 0.0) -> dict:
    """Timings of M, C, g, ID and the computed-torque step against Pinocchio, start-up
    time, and optionally the scaling in n (``plot``: PNG path), heap growth over
    ``memory_calls`` cycles and the validation of a ``validate_hours``-long bag."""
    model = load_robot(robot, base, tip)
    report: dict = {'robot': model.name, 'n': model.n, 'machine': _machine()}
    report['timings'] = t = time_operations(model, repeats=repeats)
    report['ratio_recursive_over_pinocchio'] = {
        op: t['recursive'][op]['median_us'] / t['pinocchio'][op]['median_us'] for op in OPS}
    report['startup_s'] = {'warm_cache': startup(robot, base, tip)}
    if scaling_sizes:
        report['scaling'] = scaling()
        if plot:
            plot_scaling(report['scaling'], plot)
            report['scaling']['plot'] = plot
        report['startup_s']['first_compile'] = startup(robot, base, tip, fresh_cache=True)
    if memory_calls > 0:
        report['heap'] = heap_growth(model, memory_calls)
    if validate_hours > 0:
        report['validate'] = validate_benchmark(validate_hours)
    return report


def format_bench(report: dict) -> str:
    """The human-readable table of :func:`bench`'s report."""
    t = report['timings']
    lines = [f'{report["robot"]} ({report["n"]} joints) on {report["machine"]}',
             'median / p99 per call [us]; MCg = M + C + g together (recursive: terms_into); '
             'CT = full computed-torque step',
             f'{"method":<12}' + ''.join(f'{op:>16}' for op in OPS)]
    for method, ops in t.items():
        lines.append(f'{method:<12}' + ''.join(
            f'{ops[op]["median_us"]:>8.1f} /{ops[op]["p99_us"]:>6.1f}' for op in OPS))
    ratio = report['ratio_recursive_over_pinocchio']
    lines.append('recursive / pinocchio (median): ' + ', '.join(f'{op} {ratio[op]:.2f}'
                                                                 for op in OPS))
    lines.append('start-up URDF -> first torque: ' + ', '.join(
        f'{k} {v:.2f} s' for k, v in report['startup_s'].items()))
    if 'scaling' in report:
        sc = report['scaling']
        lines.append('scaling, MCg median [us] for n = ' + ', '.join(map(str, sc['sizes'])))
        for m, values in sc['median_us'].items():
            lines.append(f'  {m:<12}' + ' '.join(f'{v:>9.1f}' for v in values) +
                         f'   exponent (n 8..32): '
                         f'{sc["exponent_n8_to_32"].get(m, float("nan")):.2f}')
    if 'validate' in report:
        v = report['validate']
        lines.append(f'validate: {v["hours"]:g} h bag, {v["messages"]} messages '
                     f'({v["bag_mb"]:.0f} MB), {v["seconds"]:.1f} s, peak RSS '
                     f'{v["peak_rss_mb"]:.0f} MB (RMS {v["rms"]:.3e}, expected '
                     f'{v["expected_rms"]:.3e})')
    if 'heap' in report:
        h = report['heap']
        lines.append(f'heap over {h["calls"]} cycles: tracemalloc {h["tracemalloc_bytes"]} B, '
                     f'max RSS growth {h["max_rss_growth_kb"]} kB')
    return '\n'.join(lines)
