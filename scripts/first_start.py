#!/usr/bin/env python3
"""URDF to first torque: seconds from starting the controller process (Panda, autostart,
1 kHz states already streaming from another process) to its first command on the wire,
with the kernel cache as setup.sh / colcon build leave it, and with an empty one.

  ROS_DOMAIN_ID=65 ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST \
      .venv/bin/python scripts/first_start.py [--runs 3]
"""

import argparse
import os
from pathlib import Path
import sys
import tempfile
import time

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'test' / 'faults'))
os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
os.environ.setdefault('ROS_DOMAIN_ID', '65')

from harness import Harness  # noqa: E402


def first_command(env=None):
    """(seconds to the 'configured' line, seconds to the first command) of one start."""
    h = Harness({'max_tracking_error': 0.0}, env)
    try:
        h.feed()
        deadline = time.monotonic() + 120.0
        while not h.commands and time.monotonic() < deadline and h.proc.poll() is None:
            time.sleep(0.002)
        configured = None
        for line in h.output().splitlines():
            if 'configured panda' in line:
                configured = line
        first = h.commands[0][0] - h.t_start if h.commands else float('nan')
        return configured, first
    finally:
        h.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=3)
    args = parser.parse_args()
    for label, env in (('kernel cache filled', None),
                       ('empty kernel cache', {'NUMBA_CACHE_DIR': ''})):
        times = []
        for _ in range(args.runs):
            if env is not None:
                env = {'NUMBA_CACHE_DIR': tempfile.mkdtemp(prefix='robodyn_cold_')}
            line, seconds = first_command(env)
            times.append(seconds)
        print(f'{label:<20} first command {min(times):.2f}-{max(times):.2f} s after the '
              f'process started ({args.runs} runs); {line.split("]: ")[-1][:160] if line else ""}')


if __name__ == '__main__':
    main()
