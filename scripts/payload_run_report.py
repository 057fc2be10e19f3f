"""What a run with a payload only the simulator knows shows (docs/laws.md, "A payload only
the simulator knows"): each joint's tracking RMS over the last seconds of the reference's
motion, and the adaptive law's mass estimate (``payload_estimate_mass`` on /diagnostics)
some seconds after the motion began.

  .venv/bin/python scripts/payload_run_report.py BAG [--last 5] [--after 5 10 15]

BAG is a bag of ``ros2 launch robodyn_ros ros2_control.launch.py ... mode:=adaptive
sim_payload:='1.5 0.05 0 0.05' bag_path:=BAG``. The reference at each state is the last one
stamped at or before it (both paths stamp the reference with the state it answers). The
motion is the span over which the reference moves.
"""

import argparse
import sys

import numpy as np

REFERENCE, STATES, DIAGNOSTICS = '/robodyn_controller/reference', '/joint_states', '/diagnostics'


def read(bag: str):
    """(reference stamps [ns], positions), (state stamps, positions in the reference's
    joint order), [(t [s], kg)]."""
    from robodyn_ros.io.bag_reader import BagReader
    series: dict[str, dict[int, dict[str, float]]] = {REFERENCE: {}, STATES: {}}
    mass: list[tuple[float, float]] = []
    names: dict[str, list[str]] = {}
    with BagReader(bag) as reader:
        for topic, msgtype, _, raw in reader.messages([REFERENCE, STATES, DIAGNOSTICS]):
            msg = reader.deserialize(raw, msgtype)
            stamp = msg.header.stamp.sec * 10**9 + msg.header.stamp.nanosec
            if topic != DIAGNOSTICS:
                names.setdefault(topic, list(msg.name))
                series[topic][stamp] = dict(zip(msg.name, msg.position))
                continue
            for status in msg.status:
                mass += [(1e-9 * stamp, float(kv.value)) for kv in status.values
                         if kv.key == 'payload_estimate_mass']

    joints = names.get(REFERENCE, [])

    def arrays(points):  # positions by name, in the reference's joint order
        keys = np.array(sorted(points))
        return keys, np.array([[points[k].get(j, np.nan) for j in joints] for k in keys])
    return arrays(series[REFERENCE]), arrays(series[STATES]), mass


def report(bag: str, last: float, after: list[float]) -> str:
    (rt, ref), (st, states), mass = read(bag)
    at = np.searchsorted(rt, st, side='right') - 1
    keep = at >= 0
    t, ref_at = 1e-9 * st[keep], ref[at[keep]]
    n = min(ref_at.shape[1], states.shape[1])
    error = ref_at[:, :n] - states[keep][:, :n]  # a joint the states lack: NaN, reported
    moving = np.nonzero(np.abs(np.diff(ref_at, axis=0)).max(axis=1) > 1e-7)[0]
    if moving.size == 0:
        return f'{bag}: the reference never moves'
    start, end = t[moving[0]], t[moving[-1]]
    window = (t > end - last) & (t <= end)
    rms = np.sqrt((error[window] ** 2).mean(axis=0))
    lines = [f'motion {end - start:.1f} s; RMS over its last {last:g} s per joint [rad]: ' +
             ' '.join(f'{v:.2e}' for v in rms) + f' (worst {rms.max():.2e}, joint '
             f'{int(rms.argmax()) + 1})']
    times = np.array([m[0] for m in mass])
    for seconds in after if mass else []:
        k = int(np.searchsorted(times, start + seconds))
        if k < len(mass):
            lines.append(f'mass estimate {seconds:g} s into the motion: {mass[k][1]:.4f} kg')
    return '\n'.join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('bag')
    parser.add_argument('--last', type=float, default=5.0, help='[s]')
    parser.add_argument('--after', type=float, nargs='*', default=[5.0, 10.0, 15.0],
                        help='[s] into the motion')
    args = parser.parse_args(argv)
    from robodyn_ros.errors import RobodynError
    try:
        print(report(args.bag, args.last, args.after))
    except (RobodynError, OSError) as exc:
        print(f'payload_run_report: {exc}', file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
