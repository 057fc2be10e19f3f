"""The C++ controller's `update()` time with each law beside joint_state_broadcaster's in the
same run, from controller_manager's own statistics (docs/benchmarks.md, "update() per
law"):

  .venv/bin/python scripts/update_time_per_law.py WS [--seconds 20] [--modes M ...]

WS is a colcon workspace of scripts/build_workspace.sh. For each mode, one launch of
``ros2_control.launch.py robot:=panda hardware:=mujoco mode:=M`` (the configured sum of
sines through the JointTrajectoryController); once the trajectory runs, both controllers'
``controller_statistics`` collect ``--seconds`` at once. Prints one row per mode: p99 and
median of each, and the ratio of the p99s. Exit 0 when every ratio is at most 1.1.
"""

import argparse
import json
from pathlib import Path
import signal
import subprocess
import sys
import tempfile
import time

from node_path_campaign import _environment, stop_launch

MODES = ('computed_torque', 'feedforward', 'gravity', 'joint_impedance', 'passivity',
         'adaptive', 'cartesian_impedance', 'operational_space')
ACTIVE = 'Configured and activated joint_trajectory_controller'
BOUND = 1.1  # the robodyn controller's p99 against the broadcaster's


def _statistics(env: dict, controller: str, seconds: float) -> subprocess.Popen:
    return subprocess.Popen(
        ['ros2', 'run', 'robodyn_ros', 'controller_statistics', '--ros-args', '-p',
         f'controller:={controller}', '-p', f'seconds:={seconds}'], env=env,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def _figures(proc: subprocess.Popen, timeout: float) -> dict:
    out, _ = proc.communicate(timeout=timeout)
    lines = [line for line in out.splitlines() if line.startswith('{')]
    return json.loads(lines[-1]) if lines else {}


def _run(env: dict, mode: str, seconds: float, log: Path) -> tuple[dict, dict]:
    """One launch with ``mode``: (robodyn's figures, the broadcaster's) or empty dicts."""
    with open(log, 'w', encoding='utf-8') as out:
        launch = subprocess.Popen(
            ['ros2', 'launch', 'robodyn_ros', 'ros2_control.launch.py', 'robot:=panda',
             'hardware:=mujoco', f'mode:={mode}'], env=env, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            deadline = time.monotonic() + 120.0
            while ACTIVE not in log.read_text(errors='replace') and launch.poll() is None:
                if time.monotonic() > deadline:
                    return {}, {}
                time.sleep(0.5)
            time.sleep(2.0)  # past the first goal's start
            procs = [_statistics(env, name, seconds)
                     for name in ('robodyn_controller', 'joint_state_broadcaster')]
            return tuple(_figures(p, seconds + 60.0) for p in procs)
        finally:
            stop_launch(launch)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('ws', type=Path, help='colcon workspace (build_workspace.sh)')
    parser.add_argument('--seconds', type=float, default=20.0)
    parser.add_argument('--modes', nargs='+', choices=MODES, default=list(MODES))
    args = parser.parse_args()
    if not (args.ws / 'install' / 'robodyn_controllers').is_dir():
        print(f'update_time_per_law: {args.ws} has no install/robodyn_controllers: build it '
              'with scripts/build_workspace.sh WS', file=sys.stderr)
        return 2
    out = Path(tempfile.mkdtemp(prefix='robodyn_update_time_'))
    env, worst = _environment(args.ws), 0.0
    print('| mode | robodyn p99 (median) [us] | broadcaster p99 (median) [us] | ratio |')
    print('|---|---|---|---|')
    for mode in args.modes:
        mine, theirs = _run(env, mode, args.seconds, out / f'{mode}.log')
        if not mine or not theirs:
            print(f'| {mode} | no statistics (log: {out / mode}.log) | | |', flush=True)
            worst = float('inf')
            continue
        ratio = mine['p99_us'] / theirs['p99_us']
        worst = max(worst, ratio)
        print(f'| {mode} | {mine["p99_us"]:.1f} ({mine["median_us"]:.1f}) | '
              f'{theirs["p99_us"]:.1f} ({theirs["median_us"]:.1f}) | {ratio:.2f} |',
              flush=True)
    return 0 if worst <= BOUND else 1


if __name__ == '__main__':
    raise SystemExit(main())
