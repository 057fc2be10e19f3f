"""Bodies of the ``robodyn`` subcommands: each takes the parsed arguments, calls the typed
library function (``load_robot``, ``cross_check``, ``bench``, ``demo``, ``validate_bag``,
``reproduce``, ``identify``) and prints; ``cli.py`` holds the argument parsing."""

import json
import os
import sys
import time

import numpy as np

from .bag_commands import BAG_COMMANDS
from .bag_commands import warn_loading as _warn
from .defaults import CONTROLLER_NAME
from .errors import ConfigError

__all__ = ['COMMANDS']


def _load(args, kinematics_only=False):
    """The command's model: effort limits are optional for every tool (a warning), and
    inertials for ``kinematics_only`` ones (inspect)."""
    from .model import load_robot
    model = load_robot(args.urdf, args.base, args.tip,
                       mappings=getattr(args, 'xacro_args', None),
                       effort_limits=getattr(args, 'effort_limits', None),
                       strict_inertia=getattr(args, 'strict_inertia', False),
                       require_effort_limits=False, require_inertials=not kinematics_only)
    _warn(args, model)
    return model


def _print_rows(table):
    """The DH rows as columns two spaces apart (never merged, whatever the widths); a beta
    column, and a note, when Hayati rows are present."""
    hayati = any(r.beta for r in table.rows)
    header = ['i', 'joint', 'type', 'a [m]', 'alpha [rad]', 'd [m]', 'theta0 [rad]'] + \
        (['beta [rad]'] if hayati else [])
    lines = [header]
    for k, r in enumerate(table.rows, 1):
        values = [f'{v:.6f}' for v in (r.a, r.alpha, r.d, r.theta_offset)]
        lines.append([str(k), r.joint_name, r.joint_type] + values +
                     ([f'{r.beta:.3e}'] if hayati else []))
    widths = [max(len(line[c]) for line in lines) for c in range(len(header))]
    for line in lines:
        cells = [cell.ljust(w) if c in (1, 2) else cell.rjust(w)
                 for c, (cell, w) in enumerate(zip(line, widths))]
        print('  '.join(cells).rstrip())
    if hayati:
        rows = ', '.join(r.joint_name for r in table.rows if r.beta)
        print(f'beta: Hayati rows (A = Rz Tz Tx Rx Ry(beta)) for nearly parallel axes: {rows}')


def _inspect(args):
    model = _load(args, kinematics_only=True)
    table = model.dh_table(args.convention)
    if args.json:
        out = {
            'robot': model.name, 'base_link': model.base_link, 'tip_link': model.tip_link,
            'convention': table.convention,
            'rows': [dict(joint=r.joint_name, type=r.joint_type, a=r.a, alpha=r.alpha, d=r.d,
                          theta_offset=r.theta_offset, beta=r.beta) for r in table.rows],
            'base': table.base.tolist(), 'tool': table.tool.tolist(),
            'inertials': [dict(mass=i.mass, com=i.com.tolist(),
                               inertia_com=i.inertia.tolist(),
                               inertia_origin=i.inertia_origin.tolist())
                          for i in table.inertials],
        }
        print(json.dumps(out, indent=2))
        return 0
    print(f'{model.name}: {model.n} joints, {model.base_link} -> {model.tip_link}, '
          f'{table.convention} DH')
    _print_rows(table)
    np.set_printoptions(precision=6, suppress=True)
    print(f'base ({model.base_link} -> frame 0):\n' + str(table.base))
    print(f'tool (frame n -> {model.tip_link}):\n' + str(table.tool))
    if model.massless:
        print(f'inertials: none after joints {list(model.massless)}; the dynamics (check, '
              'demo, the controller) need them in the description')
        return 0
    print(f'{"i":>2}{"mass [kg]":>11}  {"com in frame i [m]":<34}'
          f'{"Ixx Iyy Izz Ixy Ixz Iyz about COM [kg m^2]"}')
    for k, i in enumerate(table.inertials, 1):
        c = i.com
        m = _clean(i.inertia)
        print(f'{k:>2}{i.mass:>11.4f}  [{c[0]:>9.5f} {c[1]:>9.5f} {c[2]:>9.5f}]  '
              f'{m[0, 0]:.6g} {m[1, 1]:.6g} {m[2, 2]:.6g} {m[0, 1]:.3g} {m[0, 2]:.3g} '
              f'{m[1, 2]:.3g}')
    return 0


def _clean(matrix):
    """``matrix`` with the roundoff of frame changes (|v| below 1e-12 of its largest
    element, 1e-32 and the like) shown as 0."""
    scale = float(np.abs(matrix).max(initial=0.0))
    return np.where(np.abs(matrix) < 1e-12 * scale, 0.0, matrix)


def _check(args):
    from .dynamics.verification import SEED_MAX_N, cross_check
    if args.samples < 1:
        raise ConfigError(f'--samples must be >= 1, got {args.samples}')
    model = _load(args)
    methods = ('kronecker', 'christoffel', 'recursive') if args.method == 'all' else \
        (args.method,)
    if args.method == 'all' and model.n > SEED_MAX_N:
        methods = ('recursive',)
        print(f'robodyn check: kronecker and christoffel skipped: n = {model.n} > '
              f'{SEED_MAX_N} (O(n^4) formulations); checking recursive', file=sys.stderr)
    reports = [cross_check(model, m, args.samples, args.seed, tolerance=args.tolerance,
                           progress=_progress(m, args.samples)) for m in methods]
    ok = all(r.passed for r in reports)
    if args.json:
        print(json.dumps({'robot': model.name, 'n': model.n, 'passed': ok, 'reports': [
            dict(method=r.method, samples=r.samples, mass_matrix=r.mass_matrix,
                 coriolis=r.coriolis, gravity=r.gravity, inverse_dynamics=r.inverse_dynamics,
                 skew=r.skew, symmetry=r.symmetry, min_eigenvalue=r.min_eigenvalue,
                 tool_point=r.tool_point, passed=r.passed) for r in reports]}, indent=2))
    else:
        names = model.joint_names if model.n <= 12 else \
            (*model.joint_names[:3], '...', model.joint_names[-1])
        print(f'{model.name}: {model.n} joints ({", ".join(names)}), '
              f'{args.samples} random states vs Pinocchio, max relative error '
              f'(tolerance {args.tolerance:g})')
        print(f'{"method":<12}{"M":>10}{"C":>10}{"g":>10}{"ID":>10}{"Mdot-2C":>10}'
              f'{"M-M^T":>10}{"min eig M":>11}  result')
        for r in reports:
            print(f'{r.method:<12}{r.mass_matrix:>10.1e}{r.coriolis:>10.1e}{r.gravity:>10.1e}'
                  f'{r.inverse_dynamics:>10.1e}{r.skew:>10.1e}{r.symmetry:>10.1e}'
                  f'{r.min_eigenvalue:>11.3e}  {"PASS" if r.passed else "FAIL"}')
    return 0 if ok else 1


def _progress(method, samples, every=2.0):
    """A progress callback printing one line to stderr at most every ``every`` s, on a
    terminal only (a script or a log gets the result alone, however slow the machine)."""
    if not sys.stderr.isatty():
        return None
    start = last = time.monotonic()

    def report(done):
        nonlocal last
        now = time.monotonic()
        if now - last >= every or (done == samples and now - start >= every):
            last = now
            print(f'robodyn check: {method} {done}/{samples} samples, {now - start:.0f} s',
                  file=sys.stderr, flush=True)
    return report


def _bench(args):
    if args.loop:
        return _loop_bench(args)
    if args.first_start:
        _local_dds('65')
        for line in _testing('first_start').first_start(args.runs):
            print(line, flush=True)
        return 0
    if args.cold_cycle:
        from .bench.cold_cycle import cold_cycle
        r = cold_cycle(args.sweep_mb, args.cycles, args.no_cycle, args.cycle_path)
        print(f'{args.cycle_path} path, sweep {args.sweep_mb} MB: cycle CPU time p50 '
              f'{r.p50:.1f} us, p99 {r.p99:.1f} us over {args.cycles} cycles ({r.fused} fused)')
        return 0
    if args.fleet:
        from .bench.fleet_bench import fleet_bench, format_fleet_bench
        bags, minutes = args.fleet
        if bags < 1 or bags != int(bags) or not 0 < minutes <= 600:
            raise ConfigError(f'--fleet {bags:g} {minutes:g}: expected a whole number of '
                              'bags >= 1 and minutes in (0, 600]')
        report = fleet_bench(int(bags), minutes)
        print(json.dumps(report, indent=2) if args.json else format_fleet_bench(report))
        return 0
    if args.cpp:
        from .bench.cpp_bench import cpp_bench, format_cpp_bench
        report = cpp_bench(args.urdf, args.base, args.tip)
        print(json.dumps(report, indent=2) if args.json else format_cpp_bench(report))
        return 0
    from .bench.dynamics_bench import bench, format_bench
    report = bench(args.urdf, args.base, args.tip, repeats=args.repeats,
                   scaling_sizes=args.scaling, plot=args.plot, memory_calls=args.memory_calls,
                   validate_hours=args.validate_hours)
    print(json.dumps(report, indent=2) if args.json else format_bench(report))
    return 0


def _local_dds(domain):
    """DDS stays on this machine unless the environment says otherwise (before rclpy)."""
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    os.environ.setdefault('ROS_DOMAIN_ID', domain)
    from .nodes.dds_transport import apply_transport
    apply_transport()


def _demo(args):
    _local_dds('42')
    from .demo.runner import demo, jtc_demo
    if args.mode == 'jtc_feedforward':
        if args.robot != 'panda':
            raise ConfigError(f'--mode jtc_feedforward: only the panda has JTC gains here, '
                              f'got {args.robot!r}')
        res = jtc_demo(args.duration)
        print(f'JTC-like PD (kp {res["kp"]}, kd {res["kd"]}) on the simulated Panda, '
              f'sum-of-sines over {args.duration:.1f} s, trajectory points every 10 ms:')
        print(f'  worst-joint RMS with feed-forward    {res["with_feedforward"]:.3e} rad')
        print(f'  worst-joint RMS without feed-forward {res["without_feedforward"]:.3e} rad')
        print(f'  ratio {res["ratio"]:.4f} ({"PASS" if res["ratio"] <= 0.1 else "FAIL"}: '
              '<= 0.1)')
        return 0 if res['ratio'] <= 0.1 else 1
    from .validation.report import print_summary
    out = args.out or _new_run_folder('out/demo', args.robot, args.mode)
    ctrl, sim = _demo_collision(args)
    result = demo(args.robot, args.mode, args.reference, args.duration, args.rate, out,
                  args.storage, args.tip, args.max_rms, args.max_abs, base=args.base,
                  xacro_args=args.xacro_args, controller_overrides=ctrl, sim_overrides=sim)
    print_summary(result['report'])
    return 0 if result['report']['passed'] else 1


def _demo_collision(args):
    """(controller, sim) overrides of ``robodyn demo --push / --sim-payload /
    --collision``."""
    ctrl: dict = {}
    sim: dict = {}
    if args.push is not None:
        sim.update(push_wrench=[*map(float, args.push), 0.0, 0.0, 0.0],
                   push_start=args.push_at, push_duration=args.push_for)
    if args.sim_payload:  # the simulated arm carries it; the controller's model does not
        sim.update({'payload.mass': float(args.sim_payload),
                    'payload.com': [float(v) for v in args.sim_payload_com]})
    if args.collision:
        from .io.collision_file import read_collision_file
        from .model import load_robot
        joints = load_robot(args.robot, args.base, args.tip,
                            mappings=args.xacro_args, require_effort_limits=False).joint_names
        thresholds, gain, debounce = read_collision_file(args.collision, joints)
        ctrl.update({'collision.thresholds': thresholds.tolist(), 'collision.gain': gain,
                     'collision.debounce': debounce, 'collision.reaction': args.reaction})
    return ctrl, sim


def _new_run_folder(root, robot, mode):
    """root/ROBOT_MODE_YYYYmmdd-HHMMSS (a suffix when that exists): a run never
    overwrites an earlier one."""
    name = os.path.splitext(os.path.basename(robot))[0].split('.')[0] or 'robot'
    base = os.path.join(root, f'{name}_{mode}_{time.strftime("%Y%m%d-%H%M%S")}')
    path, k = base, 1
    while os.path.exists(path):
        k += 1
        path = f'{base}_{k}'
    return path


def _reproduce(args):
    from .experiments.reproduction import reproduce
    if not args.duration > 0:
        raise ConfigError(f'--duration must be > 0, got {args.duration}')
    result = reproduce(args.duration, args.out)
    joints = result['joints']
    print(f'seed 000 Section 5: three-link arm, feed-forward eq. (72) along eq. (73) for '
          f'{args.duration:g} s; max |q - q_r| per joint [rad]')
    print(f'{"torques + plant":<32}' + ''.join(f'{j:>12}' for j in joints))
    for name, errors in result['max_abs_error'].items():
        print(f'{name:<32}' + ''.join(f'{e:>12.2e}' for e in errors))
    ok = result['ode_max'] <= 1e-10
    print(f'ODE route worst {result["ode_max"]:.2e} rad: {"PASS" if ok else "FAIL"} (<= 1e-10)'
          f'; figures in {args.out}')
    return 0 if ok else 1


def _identify(args):
    from .identification.bag_motion import motion_from_bag
    from .identification.identify import identify
    from .identification.report import write_identification
    from .model import load_robot
    model = load_robot(args.robot, tip_link=args.tip, require_effort_limits=False)
    _warn(args, model)
    both = not (args.friction or args.payload)
    t, q, tau, source = motion_from_bag(args.bag, model.joint_names, args.state_topic,
                                        args.command_topic)
    result = identify(model, t, q, tau, payload=both or args.payload,
                      friction=both or args.friction)
    report = write_identification(model, result, source, args.out)
    params = report['parameters']
    print(f'{model.name}: effort {source}, {result.samples} samples fitted, '
          f'{result.held_out} held out, condition number {result.condition_number:.3g}')
    for key in ('viscous', 'coulomb', 'payload'):
        if key in params:
            print(f'  {key}: {_rounded(params[key])}')
    if result.rms_before is not None and result.rms_after is not None:
        print(f'  residual RMS on held-out samples [N m]: before '
              f'{np.round(result.rms_before, 3).tolist()}, after '
              f'{np.round(result.rms_after, 3).tolist()}')
    print(f'parameters in {args.out}/identified.yaml, report in {args.out}/report.md')
    return 0


def _rounded(value, digits=4):
    """``value`` (a number, a list or a dict of them) as a person reads it: each number to
    ``digits`` significant digits, a dict as ``name value`` pairs."""
    if isinstance(value, dict):
        return ', '.join(f'{k} {_rounded(v, digits)}' for k, v in value.items())
    if isinstance(value, (list, tuple, np.ndarray)):
        return '[' + ', '.join(_rounded(v, digits) for v in value) + ']'
    if isinstance(value, (int, float, np.floating)):
        return f'{float(value):.{digits}g}'
    return str(value)


def _config_parameters(path):
    """The ``robodyn_controller`` parameters of a controller YAML ({} without a path);
    ConfigError naming the file when it cannot be read."""
    import yaml
    if path is None:
        return {}
    try:
        with open(path, encoding='utf-8') as handle:
            data = yaml.safe_load(handle) or {}
        params = dict(data[CONTROLLER_NAME]['ros__parameters'])
    except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError) as exc:
        text = ' '.join(str(exc).split())[:200]
        raise ConfigError(f'--config {path}: expected a YAML file with '
                          f'robodyn_controller.ros__parameters ({type(exc).__name__}: '
                          f'{text})') from None
    return params


def _export(args):
    from .control.plugin_parameters import (
        PLUGIN,
        export_notes,
        plugin_config,
        plugin_parameters,
    )
    from .io.params_yaml import dump_parameters
    params = _config_parameters(args.config)
    args.base = args.base or params.get('base_link') or None
    args.tip = args.tip or params.get('tip_link') or None
    model = _load(args)
    values = plugin_parameters(model, plugin_config(params), source=f'{args.urdf} ({model.name})')
    text = dump_parameters({args.name: {'ros__parameters': values}}) or ''
    notes = export_notes(params)
    header = (f'# {PLUGIN} parameters for {model.name}: written by robodyn export from '
              f'the model robodyn_ros loaded and checked.\n' +
              ''.join(f'# {note}\n' for note in notes))
    if args.output == '-':
        sys.stdout.write(header + text)
    else:
        with open(args.output, 'w', encoding='utf-8') as handle:
            handle.write(header + text)
        print(f'robodyn export: {model.n} joints of {model.name} -> {args.output}')
    for note in notes:  # once written: a failed write is one line
        print(f'robodyn export: {note}', file=sys.stderr)
    return 0


def _testing(module: str):
    """robodyn_testing's ``module``: the test tooling a checkout has and an install does not
    (robodyn_testing/__init__.py); a ConfigError naming that otherwise."""
    import importlib
    try:
        return importlib.import_module(f'robodyn_testing.{module}')
    except ModuleNotFoundError as exc:
        if not (exc.name or '').startswith('robodyn_testing'):
            raise
        raise ConfigError('this command runs robodyn_testing, the test tooling of a checkout '
                          '(an install of robodyn_ros carries none): run it in a checkout '
                          'after scripts/setup.sh') from None


def _faults(args):
    _local_dds('61')
    return _testing('faults.campaign').run_campaign(args.fast, args.case, args.json,
                                                    args.mode)


def _docs(args):
    from .generated_docs import generate, source_root
    stale = generate(source_root(args.root), args.only, args.check, args.run_argv)
    print(('out of date: ' if args.check else 'rewritten: ') + (', '.join(stale) or 'none'))
    return 1 if args.check and stale else 0


def _check_random(args):
    from .dynamics.verification.random_chains import check_random_chains
    report = check_random_chains(args.chains, args.samples, progress=print)
    print(report.format())
    return 1 if report.failed else 0


def _vendors(args):
    from .dynamics.verification.vendor_corpus import vendor_table
    bad = [m for m in args.mirror if '=' not in m]
    if bad:
        raise ConfigError(f'--mirror {bad[0]!r}: expected NAME=GIT_DIR')
    for row in vendor_table(dict(m.split('=', 1) for m in args.mirror)):
        print(row, flush=True)
    return 0


COMMANDS = {'inspect': _inspect, 'check': _check, 'bench': _bench, 'demo': _demo,
            'reproduce': _reproduce, 'identify': _identify, 'export': _export,
            'faults': _faults, 'docs': _docs, 'check-random': _check_random,
            'vendors': _vendors, **BAG_COMMANDS}


def _loop_bench(args):
    """``robodyn bench --loop``."""
    import tempfile

    from .bench.loop_bench import run_loop_bench
    from .bench.loop_figures import format_loop_bench
    if args.loop_seconds <= 0:
        raise ConfigError(f'--loop-seconds must be > 0, got {args.loop_seconds}')
    if not 0 <= args.loop_fifo <= 99:
        raise ConfigError(f'--loop-fifo must be 0 (off) or 1-99, got {args.loop_fifo}')
    with tempfile.TemporaryDirectory() as tmp:
        result = run_loop_bench(args.loop_seconds, tmp=tmp, pin=args.loop_pin,
                                fifo=args.loop_fifo)
    print(json.dumps(result, indent=1) if args.json else format_loop_bench(result))
    return 0
