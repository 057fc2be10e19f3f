"""Validate a fleet's bags: find them, validate each in its own process (the machine's
cores, or a Dask distributed cluster), and keep one summary row per bag.

Why: the people who record torque-controlled arms record every shift of every arm, and
what they ask is which arm is drifting (wear, a loose payload, a joint whose friction grew)
before it fails. Each bag is validated exactly as ``robodyn validate BAG`` does (its own
report.json and report.md); the row keeps what a fleet table needs. A bag that cannot be
read is a row with its reason, never the end of the run. Rows carry no timings, so a
local run and a cluster run give the same rows.

Bags are grouped by arm: the folder that holds the bag (``fleet/arm_03/shift_17``: arm
``arm_03``).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
import functools
import glob
import os
import time
from typing import Any

from ..errors import ConfigError, RobodynError

__all__ = ['FleetOptions', 'FleetProgress', 'find_bags', 'is_bag', 'validate_fleet',
           'validate_one']

Row = dict[str, Any]


@dataclass(frozen=True)
class FleetOptions:
    """What every bag of the fleet is validated with (``robodyn validate``'s options)."""

    robot: str | None = None
    tip: str | None = None
    state_topic: str = '/joint_states'
    reference_topic: str | None = None
    command_topic: str | None = None
    max_rms: float | None = None
    max_abs: float | None = None
    thresholds: str | None = None
    tolerance: float = 1e-3
    settle_after_stall: float = 0.0
    collision: str | None = None
    allow_contacts: bool = False
    plots: bool = False
    out_root: str = 'fleet_report'
    max_torque_rate: float | None = None


def is_bag(path: str) -> bool:
    """A rosbag2 directory: metadata.yaml, or the .mcap/.db3 of a killed recorder."""
    if not os.path.isdir(path):
        return False
    names = os.listdir(path)
    return 'metadata.yaml' in names or any(n.endswith(('.mcap', '.db3')) for n in names)


def find_bags(paths: Sequence[str]) -> list[tuple[str, str]]:
    """(bag directory, arm) of every rosbag2 in ``paths`` (bags, folders searched
    recursively, glob patterns), sorted and unique; the arm is the bag's parent folder.

    Raises:
        ConfigError: a path that does not exist, or no bag at all.
    """
    found: set[str] = set()
    for path in paths:
        matches = sorted(glob.glob(path)) if glob.has_magic(path) else [path]
        if not matches or not os.path.exists(matches[0]):
            raise ConfigError(f'{path}: no such file, folder or matching bag')
        for match in matches:
            found.update(_bags_under(match))
    if not found:
        raise ConfigError(f"no rosbag2 found in {', '.join(paths)} (a bag is a folder with "
                          'metadata.yaml, or the .mcap/.db3 of a killed recorder)')
    return [(bag, os.path.basename(os.path.dirname(os.path.abspath(bag))) or '.')
            for bag in sorted(found)]


def _bags_under(path: str) -> list[str]:
    if is_bag(path):
        return [os.path.normpath(path)]
    if os.path.isfile(path) and path.endswith(('.mcap', '.db3', 'metadata.yaml')):
        return [os.path.normpath(os.path.dirname(path) or '.')]
    found = []
    for root, dirs, _ in os.walk(path):
        if is_bag(root):
            found.append(os.path.normpath(root))
            dirs.clear()  # a bag's own folders are not searched
    return found


@functools.lru_cache(maxsize=4)
def _model(robot: str, tip: str | None):
    from ..model import load_robot
    return load_robot(robot, tip_link=tip, require_effort_limits=False)


def validate_one(bag: str, arm: str, options: FleetOptions) -> Row:
    """Validate ``bag`` (its report in ``options.out_root/bags/<arm>/<bag name>``) and
    return its row; never raises for a bad bag (the row says why)."""
    out_dir = os.path.join(options.out_root, 'bags', arm, os.path.basename(bag))
    row: Row = {'bag': bag, 'arm': arm, 'robot': options.robot or '', 'start': None,
                'duration': 0.0, 'verdict': 'ERROR', 'reason': '', 'worst_joint': '',
                'worst_rms': None, 'residual': {}, 'worst_residual': None, 'contacts': None,
                'safe_entries': 0, 'gaps': 0, 'recovered': False,
                'report': os.path.relpath(out_dir, options.out_root)}
    try:
        report = _validate(bag, options, out_dir)
    except (RobodynError, OSError, ValueError) as exc:
        row['reason'] = ' '.join(str(exc).split())[:300]
        return row
    except Exception as exc:  # noqa: BLE001 - one bag never ends the fleet's run
        row['reason'] = f'{type(exc).__name__}: ' + ' '.join(str(exc).split())[:280]
        return row
    return _fill(row, report)


def preload(options: FleetOptions) -> None:
    """Import what validating a bag needs and load the model with its compiled kernels,
    once in this process. Why: the pool's workers are forked from it, so they start with
    all of it (about a second per worker otherwise, the most of a small fleet's time)."""
    from ..io.bag_reader import BagReader  # noqa: F401 - rosbags
    from .validate import validate_bag  # noqa: F401
    if options.plots:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot  # noqa: F401
    if options.robot:  # the model residual: the model, its kernels, the filter
        from scipy.signal import savgol_filter  # noqa: F401

        from ..dynamics import RigidBodyDynamics
        model = _model(options.robot, options.tip)
        dyn = RigidBodyDynamics(model, friction_smoothing=0.01)
        dyn.inverse_dynamics(model.mid_range, model.mid_range * 0.0, model.mid_range * 0.0)


def _validate(bag, options, out_dir):
    from .validate import validate_bag
    model = _model(options.robot, options.tip) if options.robot else None
    contacts = None
    if options.collision:
        if model is None:
            raise ConfigError('--collision needs --robot: the observer runs on the model')
        contacts = _contacts(bag, model, options)
    return validate_bag(bag, options.state_topic, options.reference_topic,
                        options.command_topic, model, options.max_rms, options.max_abs,
                        options.tolerance, out_dir, options.plots,
                        thresholds_file=options.thresholds,
                        settle_after_stall=options.settle_after_stall, contacts=contacts,
                        max_torque_rate=options.max_torque_rate)


def _contacts(bag, model, options):
    from .contacts import scan_bag_with_file
    from .contacts_report import contacts_summary
    scan = scan_bag_with_file(bag, model, options.collision, options.state_topic)[0]
    return contacts_summary(scan, options.collision, options.allow_contacts)


def _fill(row: Row, report) -> Row:
    joints = report['joints']
    worst = max(joints, key=lambda j: joints[j]['rms']) if joints else ''
    residual = (report.get('residual') or {}).get('joints', {})
    timing = report['timing'].get('state') or {}
    row.update(
        robot=(report.get('model') or {}).get('name', row['robot']),
        start=report.get('start_time'), duration=report['overall']['duration'],
        verdict='PASS' if report['passed'] else 'FAIL',
        reason='; '.join(report['failures'])[:300], worst_joint=worst,
        worst_rms=joints[worst]['rms'] if worst else None,
        residual={j: r['rms'] for j, r in residual.items()},
        worst_residual=max((r['rms'] for r in residual.values()), default=None),
        contacts=report['contacts']['count'] if 'contacts' in report else None,
        safe_entries=sum(e['state'] == 'safe' for e in report['events']),
        gaps=int(timing.get('gaps', 0)), recovered=bool(report.get('recovered')))
    return row


class FleetProgress:
    """What a fleet's validation tells its terminal: a line when it starts, one per bag
    as it finishes (bags done / total, elapsed, rate, the bag's verdict, worst joint and
    RMS), and :meth:`summary` at the end. Why: a fleet's day is hundreds of bags and
    minutes of work; silence until the end reads as a hang."""

    def __init__(self, total: int, write: Callable[[str], object], workers: int = 1):
        self.total, self.write = total, write
        self.done, self.hours, self.start = 0, 0.0, time.monotonic()
        write(f'validate: {total} bags, {workers} at a time\n')

    def __call__(self, row: Row) -> None:
        self.done += 1
        self.hours += row['duration'] / 3600.0
        elapsed = max(time.monotonic() - self.start, 1e-9)
        worst = f"worst {row['worst_joint']} RMS {row['worst_rms']:.3g}" \
            if row.get('worst_rms') is not None else row.get('reason', '')[:120]
        self.write(f'[{self.done}/{self.total}] {elapsed:.1f} s, '
                   f'{self.done / elapsed:.2f} bags/s: {row["verdict"]} {row["bag"]}: '
                   f'{worst}\n')

    def summary(self, rows: Sequence[Row], worst: int = 5) -> None:
        """Every bag that did not pass with its reason, then the ``worst`` bags by RMS."""
        for row in rows:
            if row['verdict'] != 'PASS':
                self.write(f"{row['verdict']}: {row['bag']}: {row['reason']}\n")
        ranked = sorted((r for r in rows if r.get('worst_rms') is not None),
                        key=lambda r: -r['worst_rms'])[:worst]
        if ranked:
            self.write(f'worst {len(ranked)} by tracking RMS:\n')
        for row in ranked:
            self.write(f"  {row['worst_rms']:.3g} rad  {row['worst_joint']}  {row['bag']}\n")


def validate_fleet(bags: Sequence[tuple[str, str]], options: FleetOptions, jobs: int = 1,
                   scheduler: str | None = None,
                   progress: Callable[[Row], None] | None = None) -> list[Row]:
    """One row per bag, in ``bags``' order: in this process (``jobs`` 1), over ``jobs``
    processes, or on the Dask distributed cluster at ``scheduler`` (its workers must see
    the bags' paths and ``options.out_root``)."""
    note = progress or (lambda row: None)
    if scheduler:
        return _on_dask(bags, options, scheduler, note)
    if jobs <= 1:
        done = []
        for bag, arm in bags:
            done.append(validate_one(bag, arm, options))
            note(done[-1])
        return done
    from concurrent.futures import ProcessPoolExecutor, as_completed
    preload(options)  # forked workers inherit it: each bag pays no import, no model load
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(validate_one, bag, arm, options): k
                   for k, (bag, arm) in enumerate(bags)}
        rows: list[Row | None] = [None] * len(bags)
        for future in as_completed(futures):
            rows[futures[future]] = future.result()
            note(future.result())
    return [row for row in rows if row is not None]


def _on_dask(bags, options, scheduler, note):
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise ConfigError('--scheduler needs dask.distributed (pip install '
                          '"distributed")') from None
    try:
        client = Client(scheduler, timeout=10)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ConfigError(f'--scheduler {scheduler}: cannot connect ({exc})') from None
    with client:
        futures = client.map(validate_one, [b for b, _ in bags], [a for _, a in bags],
                             [options] * len(bags), pure=False)
        for future in as_completed(futures):
            note(future.result())
        return client.gather(futures)
