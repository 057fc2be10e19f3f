"""The ``robodyn`` command: inspect, check, bench, demo, validate, reproduce, identify, export;
for the maintainers: faults, docs, check-random, vendors.

Shape: argument parsing -> ``run(args) -> int`` calls the typed library functions
(``load_robot``, ``cross_check``, ``bench``, ``demo``, ``validate_bag``) and prints ->
``main()`` exits with it. The command bodies are in commands.py.
Exit codes: 0 success / pass, 1 check or validation failed, 2 bad input.
"""

import argparse
import math
import os
import sys

from .defaults import CONTROLLER_NAME, JOINT_STATES
from .errors import RobodynError

__all__ = ['build_parser', 'run', 'main']

#: What ``robodyn --help`` says first (the module docstring is for the maintainers).
DESCRIPTION = ('robot dynamics from a URDF: inspect and check a model, benchmark it, run '
               'the closed-loop demo, validate and identify from rosbags, export the C++ '
               "controller's parameters")


def _add_robot(parser):
    parser.add_argument('urdf', help='.urdf or .xacro path, or a robot name (panda, ur5, '
                                     'three_link, ...)')
    parser.add_argument('xacro_args', nargs='*', metavar='NAME:=VALUE',
                        help='xacro arguments (for a xacro description)')
    parser.add_argument('--base', default=None, help='chain base link (default: URDF root)')
    parser.add_argument('--tip', default=None, help='chain tip link (default: deepest leaf)')
    parser.add_argument('--effort-limits', type=float, nargs='+', default=None,
                        metavar='TAU', help='effort limits [N m or N], 1 or one per joint '
                                            "(replace the URDF's; needed when it has none)")
    parser.add_argument('--strict-inertia', action='store_true',
                        help='refuse an inertia that violates the triangle inequality '
                             '(default: a warning; the model uses it as given)')


class _Parser(argparse.ArgumentParser):
    """argparse with its error as one line (``--help`` shows the usage)."""

    def error(self, message):
        self.exit(2, f'{self.prog}: error: {message}\n')


def build_parser():
    """The argparse parser of the ``robodyn`` command."""
    parser = _Parser(prog='robodyn', description=DESCRIPTION)
    sub = parser.add_subparsers(dest='command', required=True)
    for add in (_inspect_parser, _check_parser, _bench_parser, _demo_parser,
                _validate_parser, _reproduce_parser, _identify_parser, _export_parser,
                _faults_parser, _docs_parser, _check_random_parser, _vendors_parser,
                _contacts_parser):
        add(sub)
    return parser


def _reproduce_parser(sub):
    p = sub.add_parser('reproduce', help="seed 000's feed-forward validation (eq. 72-73) on "
                                         'the three-link arm')
    p.add_argument('--duration', type=_seconds, default=2.0, help='[s] (default 2)')
    p.add_argument('--out', default='out/reproduce', help='figures directory')


def _identify_parser(sub):
    p = sub.add_parser('identify', help='joint friction and a tip payload from a rosbag2')
    p.add_argument('bag', help='rosbag2 directory with joint states (and effort)')
    p.add_argument('--robot', default='panda', help='robot name or .urdf/.xacro path')
    p.add_argument('--tip', default=None, help='the tip link the payload is attached to')
    p.add_argument('--friction', action='store_true', help='estimate friction (default: both)')
    p.add_argument('--payload', action='store_true', help='estimate the payload (default: both)')
    p.add_argument('--state-topic', default='/' + JOINT_STATES)
    p.add_argument('--command-topic', default=None, help='effort commands, used when the '
                                                         'states carry no effort')
    p.add_argument('--out', default='out/identify', help='YAML, report and plot directory')


def _export_parser(sub):
    p = sub.add_parser('export', help='the model and settings of the C++ ros2_control '
                                      'controller (robodyn_controllers) as a parameters YAML')
    _add_robot(p)
    p.add_argument('--config', default=None,
                   help='a controller YAML (its robodyn_controller parameters: law, gains, '
                        'limits; default: the defaults)')
    p.add_argument('--name', default=CONTROLLER_NAME,
                   help="the controller's name in controller_manager (default "
                        'robodyn_controller)')
    p.add_argument('--output', '-o', default='-', help='file to write (default: stdout)')


def _inspect_parser(sub):
    p = sub.add_parser('inspect', help='DH table and inertial parameters per DH frame')
    _add_robot(p)
    p.add_argument('--convention', choices=('standard', 'modified'), default='standard')
    p.add_argument('--json', action='store_true', help='machine-readable output')


def _check_parser(sub):
    p = sub.add_parser('check', help='cross-check M, C, g, ID against Pinocchio')
    _add_robot(p)
    p.add_argument('--samples', type=_count(1), default=100)
    p.add_argument('--seed', type=_count(0), default=0)
    p.add_argument('--method', choices=('kronecker', 'christoffel', 'recursive', 'all'),
                   default='all')
    p.add_argument('--tolerance', type=float, default=1e-10)
    p.add_argument('--json', action='store_true')


def _bench_parser(sub):
    p = sub.add_parser('bench', help='timing of M, C, g, ID and computed torque')
    p.add_argument('urdf', nargs='?', default='panda', help='URDF path or robot name')
    p.add_argument('--base', default=None)
    p.add_argument('--tip', default=None)
    p.add_argument('--repeats', type=_count(1), default=2000, help='calls per measurement')
    p.add_argument('--scaling', action='store_true', help='time vs n over random chains')
    p.add_argument('--memory-calls', type=int, default=100000,
                   help='calls for the heap-growth check (0 skips it)')
    p.add_argument('--plot', default=None, help='PNG for the scaling plot')
    p.add_argument('--fleet', type=float, nargs=2, default=None, metavar=('BAGS', 'MINUTES'),
                   help='validate a synthetic fleet of BAGS bags of MINUTES each with one '
                        'process, then with every core (same run)')
    p.add_argument('--validate-hours', type=float, default=0.0,
                   help='also time `validate` on a synthetic bag this many hours long')
    p.add_argument('--cpp', action='store_true',
                   help="only the C++ benchmark: the C++ controller's computed-torque step "
                        "against Pinocchio's C++ rnea on the same model (needs g++)")
    p.add_argument('--loop', action='store_true',
                   help='only the loop benchmark: controller vs a bare echo node, each in '
                        'its own process, fed 1 kHz joint states')
    p.add_argument('--loop-seconds', type=_seconds, default=30.0,
                   help='measured seconds per loop run')
    p.add_argument('--loop-pin', action='store_true',
                   help='pin the node under test to the last CPU, the feeders to the others')
    p.add_argument('--loop-fifo', type=int, default=0, metavar='PRIORITY',
                   help='run the node under test with SCHED_FIFO at PRIORITY (1-99; '
                        'ros2_control uses 50); needs the privilege')
    p.add_argument('--first-start', action='store_true',
                   help='only seconds from starting the controller process to its first '
                        'command, kernel cache filled and empty (Panda)')
    p.add_argument('--runs', type=_count(1), default=3, help='starts per --first-start case')
    p.add_argument('--cold-cycle', action='store_true',
                   help="only the controller cycle's CPU time in-process, after writing "
                        '--sweep-mb MB between cycles (a diagnosis of cold caches)')
    p.add_argument('--sweep-mb', type=_count(0), default=0)
    p.add_argument('--cycles', type=_count(1), default=5000)
    p.add_argument('--no-cycle', action='store_true', help='the sweep alone (baseline)')
    p.add_argument('--cycle-path', choices=('fused', 'general'), default='fused')
    p.add_argument('--json', action='store_true')


def _demo_parser(sub):
    from .control.laws import MODES  # the law registry: every law is a mode
    p = sub.add_parser('demo', help='closed loop: MuJoCo sim + controller + recorder')
    p.add_argument('--robot', default='panda', help='panda, ur5, three_link or a .urdf path')
    p.add_argument('xacro_args', nargs='*', metavar='NAME:=VALUE',
                   help='xacro arguments (for a xacro description)')
    p.add_argument('--base', default=None, help='chain base link (default: URDF root)')
    p.add_argument('--tip', default=None)
    p.add_argument('--mode', choices=MODES + ('jtc_feedforward',),
                   default='computed_torque',
                   help='jtc_feedforward: a JTC-like PD in the sim tracks the dense '
                        "trajectory with and without robodyn's effort feed-forward "
                        '(no DDS; Panda only)')
    p.add_argument('--reference', choices=('sum_of_sines', 'one_minus_cos', 'hold', 'circle'),
                   default='sum_of_sines',
                   help='circle: the tool draws a circle of 0.1 m radius at 0.5 Hz in the base '
                        "link's y-z plane (a joint trajectory; 4 turns, 8 s from 0.5 s); the "
                        "run is judged on the tool's error to the reference's tool too")
    p.add_argument('--duration', type=_seconds, default=10.0, help='[s] of simulated time')
    p.add_argument('--rate', type=float, default=1000.0, help='controller rate [Hz]')
    p.add_argument('--out', default=None, help='output directory (bag, report, plots; '
                   'default: a new out/demo/ROBOT_MODE_DATE-TIME, never an earlier run)')
    p.add_argument('--storage', choices=('mcap', 'sqlite3'), default='mcap')
    p.add_argument('--max-rms', type=float, default=None,
                   help='[rad] pass/fail bound (computed_torque default 1e-3)')
    p.add_argument('--max-abs', type=float, default=None,
                   help='[rad] pass/fail bound (computed_torque default 5e-3)')
    p.add_argument('--push', type=float, nargs=3, metavar=('FX', 'FY', 'FZ'), default=None,
                   help='push the tool with this force [N, base frame]; the bag records '
                        "the simulator's joint torque of it (robodyn contacts compares)")
    p.add_argument('--push-at', type=_seconds, default=1.0, help='[s] of simulated time')
    p.add_argument('--push-for', type=_seconds, default=0.5, help='[s]')
    p.add_argument('--sim-payload', type=_payload_mass, default=0.0, metavar='KG',
                   help="a payload at the tip that only the simulator knows (the controller's "
                        'model does not: what the adaptive mode estimates)')
    p.add_argument('--sim-payload-com', type=float, nargs=3, metavar=('X', 'Y', 'Z'),
                   default=(0.0, 0.0, 0.0), help='its centre of mass [m, tip frame]')
    p.add_argument('--collision', default=None, metavar='FILE',
                   help='the controller detects collisions with these settings (robodyn '
                        'contacts --derive writes them)')
    p.add_argument('--reaction', choices=('hold', 'compliant', 'report'), default='report',
                   help='what the controller does on a collision (with --collision)')


def _validate_parser(sub):
    p = sub.add_parser('validate', help='tracking error and model residual from a rosbag2, '
                                        'or from a fleet of them')
    p.add_argument('bag', nargs='+', help='rosbag2 directory; several, a folder of bags or a '
                                          'glob: a fleet (one report per bag, and a fleet '
                                          'report in --out)')
    p.add_argument('--jobs', type=_count(1), default=None,
                   help='fleet: bags validated at once, one process each (default: the '
                        "machine's cores)")
    p.add_argument('--scheduler', default=None, metavar='ADDRESS',
                   help='fleet: validate on this Dask distributed scheduler (tcp://host:8786); '
                        'its workers must see the bags and --out')
    p.add_argument('--state-topic', default='/' + JOINT_STATES)
    p.add_argument('--reference-topic', default=None)
    p.add_argument('--command-topic', default=None)
    p.add_argument('--robot', default=None, help='URDF/robot name for the model residual')
    p.add_argument('--tip', default=None)
    p.add_argument('--max-rms', type=float, default=None, help='[rad or m]')
    p.add_argument('--max-abs', type=float, default=None, help='[rad or m]')
    p.add_argument('--thresholds', default=None, help='YAML with per-joint thresholds')
    p.add_argument('--tolerance', type=float, default=1e-3, help='band for time-in-band')
    p.add_argument('--settle-after-stall', type=float, default=0.0, metavar='S',
                   help='count apart the states within S seconds after a gap of the state '
                        'stream over 20 ms (a busy host stood still) [s, 0..10; default 0]')
    p.add_argument('--max-torque-rate', type=float, default=None, metavar='R',
                   help='fail the run when the effort the states report (what the hardware '
                        "applied) changed by more than R x the states' period in one cycle "
                        '[N m/s, (0, 1e5]; default: reported, not judged]')
    p.add_argument('--out', default=None, help='report directory (default: '
                                               'validation/<bag name> here, nothing is written '
                                               'into the bag; a fleet: fleet_report)')
    p.add_argument('--recover', action='store_true',
                   help='a bag whose storage is damaged: judge the messages that are complete '
                        '(the verdict says how many of those its metadata lists); without it '
                        'such a bag is refused (exit 2)')
    p.add_argument('--no-plots', action='store_true')
    p.add_argument('--collision', default=None, metavar='FILE',
                   help='list the contacts over these collision thresholds (robodyn contacts '
                        '--derive writes them; needs --robot); a contact fails the run')
    p.add_argument('--allow-contacts', action='store_true',
                   help='with --collision: contacts are expected, listed, not a failure')
    p.add_argument('--task-space', action='store_true',
                   help="the tool pose against the reference's tool pose, state by state, "
                        'and against the pose targets in the bag once each had time to be '
                        'reached (needs --robot): position [mm] and orientation [mrad] per '
                        'axis')
    p.add_argument('--max-position-error', type=float, default=1.0, metavar='MM',
                   help='with --task-space: the largest per-axis position RMS [mm] passed')
    p.add_argument('--max-orientation-error', type=float, default=10.0, metavar='MRAD',
                   help='with --task-space: the largest per-axis orientation RMS [mrad]')


def _contacts_parser(sub):
    p = sub.add_parser('contacts', help='external torque (momentum observer) over a rosbag2: '
                                        'derive collision thresholds, or list contacts')
    p.add_argument('bag', help='rosbag2 directory')
    p.add_argument('--robot', required=True, help='URDF/robot name')
    p.add_argument('--tip', default=None)
    p.add_argument('--state-topic', default='/' + JOINT_STATES)
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument('--derive', metavar='FILE', help='write thresholds from this '
                                                       'collision-free bag to FILE (YAML)')
    how.add_argument('--thresholds', metavar='FILE', help='list the contacts over these '
                                                          'thresholds; exit 1 if any')
    p.add_argument('--margin', type=float, default=2.0,
                   help='thresholds = largest |r| x margin [1..100; default 2]')
    p.add_argument('--gain', type=float, default=None,
                   help="observer gain K_O [1/s, (0, 1000]; default 50, or the file's]")
    p.add_argument('--debounce', type=_count(1), default=None,
                   help="samples over threshold before a contact [default 3, or the file's]")
    p.add_argument('--allow-contacts', action='store_true',
                   help='contacts are expected: list them, exit 0')
    p.add_argument('--plot', default=None, metavar='PNG', help='the residual and thresholds')


def _faults_parser(sub):
    from .control.laws import MODES
    p = sub.add_parser('faults', help='the fault campaign: the controller in its own process '
                                      'against scripted faults, every invariant checked')
    p.add_argument('--fast', action='store_true', help='the CI subset only')
    p.add_argument('--case', action='append', default=[], metavar='NAME',
                   help='run this case (repeat)')
    p.add_argument('--json', default=None, metavar='FILE', help='write the results here')
    p.add_argument('--mode', default=None, choices=MODES,
                   help="the controller's law in every case (default: the node's)")


def _docs_parser(sub):
    p = sub.add_parser('docs', help="regenerate docs/'s generated sections and the seed "
                                    'robots in urdf/ (a source checkout)')
    p.add_argument('--check', action='store_true', help='rewrite nothing; exit 1 if stale')
    p.add_argument('--only', nargs='+', default=None, metavar='SECTION',
                   help='only these sections (formulations, dh_tables, accuracy, '
                        'reproduction, parameters, plugin_parameters)')
    p.add_argument('--root', default=None, help='the source tree (default: this checkout)')
    p.set_defaults(run_argv=_run_argv)  # the generated sections show robodyn's output


def _run_argv(argv):
    """``robodyn ARGV``'s exit code, in this process (the docs generator's runner)."""
    return run(build_parser().parse_args(argv))


def _check_random_parser(sub):
    p = sub.add_parser('check-random', help='cross-check random chains against Pinocchio')
    p.add_argument('--chains', type=_count(1), default=20)
    p.add_argument('--samples', type=_count(1), default=1000)


def _vendors_parser(sub):
    p = sub.add_parser('vendors', help="load vendors' description packages, check each "
                                       'against Pinocchio, print the Markdown table')
    p.add_argument('--mirror', action='append', default=[], metavar='NAME=GIT_DIR',
                   help='a bare git directory of a vendor repository (repeat)')


def run(args):
    """Execute parsed arguments; return the exit code: a RobodynError (bad input), an
    OSError (unwritable output, disk full) or a RecursionError (a description including
    itself) is one line and 2; a closed output pipe ends quietly."""
    from .commands import COMMANDS
    try:
        return COMMANDS[args.command](args)
    except RobodynError as exc:
        return _error(args, str(exc))
    except BrokenPipeError:  # `robodyn inspect ... | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        where = f': {exc.filename}' if exc.filename else ''
        return _error(args, f'{exc.strerror or exc}{where}')
    except RecursionError:
        return _error(args, 'recursion too deep: a description that includes itself, or a '
                            'chain too long to read')


def _error(args, text):
    print(f'robodyn {args.command}: error: {text.splitlines()[0] if text else "failed"}',
          file=sys.stderr)
    return 2


def _count(minimum):
    """argparse type: an integer >= ``minimum``."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f'expected an integer, got {text!r}') from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f'expected an integer >= {minimum}, got {value}')
        return value
    return parse


def _seconds(text):
    """argparse type: a finite duration > 0 [s]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'expected seconds, got {text!r}') from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f'expected a finite duration > 0 [s], got {text}')
    return value


def _payload_mass(text):
    """argparse type: a payload mass [kg], finite, 0 to 100."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'expected kilograms, got {text!r}') from None
    if not math.isfinite(value) or not 0.0 <= value <= 100.0:
        raise argparse.ArgumentTypeError(f'expected a mass from 0 to 100 kg, got {text}')
    return value


def main(argv=None):
    """Console entry point."""
    args = build_parser().parse_args(argv)
    sys.exit(run(args))


if __name__ == '__main__':
    main()
