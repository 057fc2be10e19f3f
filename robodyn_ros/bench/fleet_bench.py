"""``robodyn bench --fleet BAGS MINUTES``: a synthetic fleet validated with one process,
then with every core, in the same run (the ratio is what is compared: the machine's speed
cancels out).

The fleet: BAGS 1 kHz tracking bags of MINUTES each (states and references with a known
sinusoidal error on one joint: io/synthetic_bags.py), spread over four arms.
"""

import os
import shutil
import tempfile
import time

__all__ = ['fleet_bench', 'format_fleet_bench']


def fleet_bench(bags: int, minutes: float, jobs: int | None = None) -> dict:
    """Write the fleet, validate it with 1 and ``jobs`` processes (default: the cores);
    the wall times, their ratio and the bag-hours validated per second."""
    from ..io.synthetic_bags import write_tracking_bag
    from ..validation.fleet import FleetOptions, find_bags, validate_fleet
    jobs = jobs or os.cpu_count() or 1
    root = tempfile.mkdtemp(prefix='robodyn-fleet-bench-')
    try:
        t0 = time.perf_counter()
        for k in range(bags):
            write_tracking_bag(os.path.join(root, 'fleet', f'arm_{k % 4}', f'bag_{k:03d}'),
                               'mcap', duration=minutes * 60.0, drop_state_every=0,
                               drop_ref_every=0, reorder=False, seed=k,
                               t_base=1.7e9 + 3600.0 * k)
        written = time.perf_counter() - t0
        found = find_bags([os.path.join(root, 'fleet')])
        # neither timed run pays for what the other found done: the fleet's 2.4 GB written
        # back to disk (a run during the writeback competes with it), and the first
        # validation's imports (matplotlib, the decoders), which --jobs 1 would pay in
        # this process and the forked workers would inherit
        os.sync()
        validate_fleet(found[:1], FleetOptions(out_root=os.path.join(root, 'warm')), jobs=1)
        seconds = {}
        for n in (1, jobs):
            options = FleetOptions(out_root=os.path.join(root, f'out_{n}'))
            t0 = time.perf_counter()
            rows = validate_fleet(found, options, jobs=n)
            seconds[n] = time.perf_counter() - t0
            assert all(r['verdict'] == 'PASS' for r in rows), [r['reason'] for r in rows]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    hours = bags * minutes / 60.0
    return {'bags': bags, 'minutes': minutes, 'bag_hours': hours, 'jobs': jobs,
            'write_seconds': written, 'seconds_one': seconds[1],
            'seconds_jobs': seconds[jobs], 'ratio': seconds[jobs] / seconds[1],
            'bag_hours_per_second': hours / seconds[jobs]}


def format_fleet_bench(report: dict) -> str:
    """One paragraph of :func:`fleet_bench`'s figures."""
    r = report
    return (f"{r['bags']} bags of {r['minutes']:g} min ({r['bag_hours']:.2f} bag-hours): "
            f"--jobs 1 {r['seconds_one']:.1f} s, --jobs {r['jobs']} {r['seconds_jobs']:.1f} s "
            f"(ratio {r['ratio']:.2f}), {r['bag_hours_per_second']:.3f} bag-hours/s; "
            f"written in {r['write_seconds']:.1f} s")
