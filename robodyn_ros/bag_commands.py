"""Bodies of the ``robodyn`` subcommands that judge recorded bags: ``validate`` (one bag,
or a fleet of them over the machine's cores or a Dask cluster) and ``contacts`` (the
collision observer over a bag). Each takes the parsed arguments, calls the library
(validation/) and prints; ``cli.py`` parses, ``commands.py`` holds the others."""

import glob
import os
import sys

import numpy as np

from .errors import ConfigError

__all__ = ['BAG_COMMANDS', 'warn_loading']


def warn_loading(args, model):
    """The model's loading warnings, one line each on stderr."""
    for text in model.warnings:
        print(f'robodyn {args.command}: warning: {text}', file=sys.stderr)


def _validate(args):
    from .validation.fleet import is_bag
    one = args.bag[0]
    if len(args.bag) == 1 and (is_bag(one) or not os.path.isdir(one)) and \
            not glob.has_magic(one) and args.jobs is None and args.scheduler is None:
        args.bag = args.bag[0]
        return _validate_one(args)
    return _validate_fleet(args)


def _validate_fleet(args):
    from .validation.fleet import FleetOptions, FleetProgress, find_bags, validate_fleet
    from .validation.fleet_report import write_fleet_report
    bags = find_bags(args.bag)
    out = args.out or 'fleet_report'
    options = FleetOptions(args.robot, args.tip, args.state_topic, args.reference_topic,
                           args.command_topic, args.max_rms, args.max_abs, args.thresholds,
                           args.tolerance, args.settle_after_stall, args.collision,
                           args.allow_contacts, not args.no_plots, os.path.abspath(out),
                           max_torque_rate=args.max_torque_rate)
    if args.collision and not args.robot:
        raise ConfigError('--collision needs --robot: the observer runs on the model')
    jobs = 1 if args.scheduler else args.jobs or os.cpu_count() or 1
    progress = FleetProgress(len(bags), _say, jobs)
    rows = validate_fleet(bags, options, jobs, args.scheduler, progress)
    paths = write_fleet_report(rows, out, plots=not args.no_plots)
    progress.summary(rows)
    bad = [r for r in rows if r['verdict'] != 'PASS']
    print(f'{len(rows) - len(bad)} of {len(rows)} bags passed; fleet report: '
          f"{paths['md']}, {paths['html']}, {paths['json']}")
    return 1 if bad else 0


def _say(text: str) -> None:
    """A line on stdout at once (a pipe buffers otherwise)."""
    sys.stdout.write(text)
    sys.stdout.flush()


def _validate_one(args):
    from .validation.report import print_summary
    from .validation.validate import validate_bag
    model = None
    if args.robot:
        from .model import load_robot
        model = load_robot(args.robot, tip_link=args.tip, require_effort_limits=False)
    if args.collision and model is None:
        raise ConfigError('--collision needs --robot: the observer runs on the model')
    contacts = None
    if args.collision and model is not None:  # the controllers' observer, into the report
        from .validation.contacts_report import contacts_summary, print_contacts
        scan = _scan_contacts(args, model, args.collision)[0]
        print_contacts(scan, model)
        contacts = contacts_summary(scan, args.collision, args.allow_contacts)
    report = validate_bag(args.bag, args.state_topic, args.reference_topic, args.command_topic,
                          model, args.max_rms, args.max_abs, args.tolerance, args.out,
                          not args.no_plots, progress=sys.stderr.isatty(),
                          thresholds_file=args.thresholds,
                          settle_after_stall=args.settle_after_stall, contacts=contacts,
                          max_torque_rate=args.max_torque_rate, recover=args.recover,
                          **_task_space(args, model))
    print_summary(report)
    if contacts is not None:
        expected = ' (--allow-contacts: expected)' if contacts['count'] and \
            contacts['allowed'] else ''
        print(f"{contacts['count']} contacts over the collision thresholds of "
              f'{args.collision}{expected}')
    return 0 if report['passed'] else 1


def _task_space(args, model) -> dict:
    """validate_bag's task_space (the pose targets' scan, when the bag has targets) and
    tool_tracking (the reference's tool) with --task-space, each (scan, mm, mrad)."""
    if not getattr(args, 'task_space', False):
        return {}
    if model is None:
        raise ConfigError("--task-space needs --robot: the tool pose is the model's FK")
    limits = (args.max_position_error, args.max_orientation_error)
    if not all(np.isfinite(v) and v > 0 for v in limits):
        raise ConfigError(f'--max-position-error {limits[0]:g}, --max-orientation-error '
                          f'{limits[1]:g}: each must be a positive number [mm, mrad]')
    from .io.bag_reader import BagReader
    from .validation.task_space import TARGET_TOPIC, scan_task_space
    from .validation.tool_tracking import scan_tool_tracking
    from .validation.validate import choose_reference
    with BagReader(args.bag) as bag:
        topics = dict(bag.topics)
    reference = args.reference_topic or choose_reference(topics, args.state_topic)
    tracking = scan_tool_tracking(args.bag, model, args.state_topic, reference)
    scans: dict[str, tuple] = {'tool_tracking': (tracking, *limits)}
    if TARGET_TOPIC in topics:
        scans['task_space'] = (scan_task_space(args.bag, model, args.state_topic), *limits)
    return scans


def _contacts(args):
    from .control.collision import derive_thresholds
    from .io.collision_file import write_collision_file
    from .model import load_robot
    from .validation.contacts import write_residual_plot
    from .validation.contacts_report import print_contacts, print_scan
    model = load_robot(args.robot, tip_link=args.tip, require_effort_limits=False)
    warn_loading(args, model)
    if args.derive:
        derive_thresholds(np.zeros(model.n), args.margin)  # the margin, before the pass
        if os.path.exists(args.derive):
            raise ConfigError(f'--derive {args.derive}: exists; name a new file')
    scan, thresholds, gain, debounce = _scan_contacts(args, model, args.thresholds)
    print_scan(scan, model, gain)
    if args.plot:
        write_residual_plot(scan, thresholds, args.plot)
    if args.derive:
        derived = derive_thresholds(scan.peak, args.margin)
        write_collision_file(args.derive, model.joint_names, derived, gain, debounce,
                             args.margin)
        print(f'thresholds (largest |r| x {args.margin:g}, at least 0.1) written to '
              f'{args.derive}')
        return 0
    print_contacts(scan, model)
    if scan.contacts and not args.allow_contacts:
        print(f'robodyn {args.command}: {len(scan.contacts)} contacts over the thresholds of '
              f'{args.thresholds}, first at {scan.contacts[0].start:.3f} s', file=sys.stderr)
        return 1
    print(f'{len(scan.contacts)} contacts')
    return 0


def _scan_contacts(args, model, thresholds_file):
    """validation.contacts.scan_bag_with_file over ``args.bag``, --gain / --debounce (when
    the command has them) overriding the file's."""
    from .validation.contacts import scan_bag_with_file
    return scan_bag_with_file(args.bag, model, thresholds_file, args.state_topic,
                              getattr(args, 'gain', None), getattr(args, 'debounce', None))


BAG_COMMANDS = {'validate': _validate, 'contacts': _contacts}
