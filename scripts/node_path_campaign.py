"""Launch the node path N times in a row and say, for each launch, whether it tripped and
how long the node went without answering a state (docs/reliability.md, "A process that
joins DDS"):

  .venv/bin/python scripts/node_path_campaign.py WS [--launches 20] [--seconds 16]

WS is a colcon workspace of scripts/build_workspace.sh. Each launch is
``ros2_control.launch.py robot:=panda hardware:=mujoco controller:=node bag_path:=...``,
stopped with Ctrl-C after ``--seconds``. A trip is the node leaving ``active`` (``-> safe``)
or the effort controller letting go (``deactivated``); the gaps are those of the header
stamps of ``/joint_states`` (controller_manager's loop) and ``/robodyn_controller/reference``
(the states the node answered). Exit 0 when no launch tripped. Bags and logs stay in
``--out`` (default: a new temporary folder).
"""

import argparse
import os
from pathlib import Path
import signal
import subprocess
import sys
import tempfile
import time

ROOT = Path(__file__).resolve().parents[1]
TRIPS = ('-> safe', 'deactivated')


def _environment(ws: Path) -> dict:
    venv = ROOT / '.venv'
    site = ws / 'install' / 'robodyn_ros' / 'lib' / 'python3.11' / 'site-packages'
    env = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST',
               ROS_DOMAIN_ID=os.environ.get('ROS_DOMAIN_ID', '31'), PYTHONPATH=str(site),
               PATH=f'{venv / "bin"}{os.pathsep}{os.environ.get("PATH", "")}')
    env['AMENT_PREFIX_PATH'] = os.pathsep.join(
        str(p) for p in (ws / 'install' / 'robodyn_ros',
                         ws / 'install' / 'robodyn_controllers', venv))
    return env


def _launch(env: dict, bag: Path, seconds: float) -> str:
    """One launch, Ctrl-C after ``seconds``; its output."""
    log = bag.with_suffix('.log')
    with open(log, 'wb') as out:
        proc = subprocess.Popen(
            ['ros2', 'launch', 'robodyn_ros', 'ros2_control.launch.py', 'robot:=panda',
             'hardware:=mujoco', 'controller:=node', f'bag_path:={bag}'],
            env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        time.sleep(seconds)
        stop_launch(proc)
    return log.read_text(errors='replace').replace('\0', '')


def stop_launch(proc: subprocess.Popen) -> None:
    """Ctrl-C to a launch's process group; SIGKILL when it has not ended 30 s later."""
    os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(30.0)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _longest_gap(bag: Path, topic: str) -> float:
    """The longest gap between consecutive header stamps of ``topic`` [ms]."""
    from rosbags.highlevel import AnyReader
    with AnyReader([bag]) as reader:
        connections = [c for c in reader.connections if c.topic == topic]
        stamps = sorted({(m.header.stamp.sec, m.header.stamp.nanosec) for m in (
            reader.deserialize(raw, c.msgtype)
            for c, _, raw in reader.messages(connections=connections))})
    times = [s + n * 1e-9 for s, n in stamps]
    return max((b - a for a, b in zip(times, times[1:])), default=float('nan')) * 1e3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('ws', type=Path, help='colcon workspace (build_workspace.sh)')
    parser.add_argument('--launches', type=int, default=20)
    parser.add_argument('--seconds', type=float, default=16.0)
    parser.add_argument('--out', type=Path, default=None)
    args = parser.parse_args()
    if not (args.ws / 'install' / 'robodyn_ros').is_dir():
        print(f'node_path_campaign: {args.ws} has no install/robodyn_ros: build it with '
              'scripts/build_workspace.sh WS', file=sys.stderr)
        return 2
    out = args.out or Path(tempfile.mkdtemp(prefix='robodyn_campaign_'))
    out.mkdir(parents=True, exist_ok=True)
    env, tripped = _environment(args.ws), 0
    for k in range(1, args.launches + 1):
        bag = out / f'launch_{k:02d}'
        text = _launch(env, bag, args.seconds)
        trips = [line for line in text.splitlines() if any(t in line for t in TRIPS)]
        tripped += bool(trips)
        try:
            gaps = (f'states {_longest_gap(bag, "/joint_states"):.0f} ms, answered '
                    f'{_longest_gap(bag, "/robodyn_controller/reference"):.0f} ms')
        except Exception as exc:  # noqa: BLE001 - a launch that recorded nothing: say so
            gaps = f'no bag ({type(exc).__name__})'
        print(f'launch {k}: {"TRIP " + trips[0][:160] if trips else "clean"}; longest gap: '
              f'{gaps}', flush=True)
    print(f'{args.launches - tripped} of {args.launches} launches without a trip; bags and '
          f'logs in {out}')
    return 0 if tripped == 0 else 1


if __name__ == '__main__':
    raise SystemExit(main())
