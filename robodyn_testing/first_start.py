"""URDF to first torque (``robodyn bench --first-start``): seconds from starting the
controller process (Panda, autostart, 1 kHz states already streaming from another process)
to its 'configured' log line and to its first command on the wire, with the kernel cache
as setup.sh / colcon build leave it, and with an empty one."""

import subprocess
import sys
import tempfile
import time

from .faults.probe import Harness

__all__ = ['first_command', 'first_start', 'import_floor']

#: A first command later than this after the 'configured' line is counted as late [s]: in
#: a start without a discovery wait the two are within 0.01 s.
LATE = 0.5


def first_command(env: dict | None = None) -> tuple[str | None, float, float]:
    """(the controller's 'configured' line, seconds to it (its log stamp, wall clock),
    seconds to the first command) of one start."""
    h = Harness({'max_tracking_error': 0.0}, env)
    try:
        h.feed()
        deadline = time.monotonic() + 120.0
        while not h.commands and time.monotonic() < deadline and h.proc.poll() is None:
            time.sleep(0.002)
        configured, stamp = h.logged('configured panda')
        first = h.commands[0][0] - h.t_start if h.commands else float('nan')
        ready = stamp - h.wall_start if stamp is not None else float('nan')
        return configured, ready, first
    finally:
        h.close()


#: What every start of the controller imports before any of robodyn's own code runs.
FLOOR_IMPORTS = 'import numpy, numba, rclpy, scipy.linalg'


def import_floor(runs: int = 3) -> tuple[float, float]:
    """(min, max) seconds [wall clock] a new interpreter takes to import FLOOR_IMPORTS and
    exit: the machine's share of a start, which no change to the package lowers (numba's
    CPU target imports scipy.linalg for BLAS). Beside the start times it tells a slower
    machine from a slower package."""
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, '-c', FLOOR_IMPORTS], check=True)
        seconds.append(time.perf_counter() - start)
    return min(seconds), max(seconds)


def first_start(runs: int = 3) -> list[str]:
    """One line per kernel-cache state: the range of ``runs`` starts and the configure
    line of the last; then the machine's floor (import_floor)."""
    lines = []
    for label, cold in (('kernel cache filled', False), ('empty kernel cache', True)):
        ready, first, line = [], [], None
        for _ in range(runs):
            env = {'NUMBA_CACHE_DIR': tempfile.mkdtemp(prefix='robodyn_cold_')} if cold \
                else None
            line, configured, seconds = first_command(env)
            ready.append(configured)
            first.append(seconds)
        late = [f'{f:.2f}' for c, f in zip(ready, first) if not f - c <= LATE]
        lines.append(f'{label:<20} configured {min(ready):.2f}-{max(ready):.2f} s, first '
                     f'command {min(first):.2f}-{max(first):.2f} s after the process '
                     f'started ({runs} runs; each: {" ".join(f"{t:.2f}" for t in ready)}; '
                     f'first command over {LATE:g} s after configured in {len(late)}'
                     f'{": " + " ".join(late) if late else ""}); '
                     f'{line.split("]: ")[-1][:160] if line else ""}')
    low, high = import_floor()
    lines.append(f'{"machine floor":<20} {low:.2f}-{high:.2f} s for a new interpreter to '
                 f'{FLOOR_IMPORTS!r} and exit (3 runs), in every start above')
    return lines
