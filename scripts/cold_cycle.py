"""CPU time of the controller's fused cycle with warm caches and after a cache sweep.

A diagnosis for the loop benchmark's compute p99, not a benchmark of record: the slowest
cycles in the loop are cycles that find the caches cold (other processes and the host ran
in between). This script runs the Panda's fused cycle (trigger 'state', hold reference,
friction on, as ``robodyn bench --loop``) in-process, once per iteration, optionally
after writing a buffer larger than the caches, and prints p50/p99 of the cycle's CPU
time.

Usage:
    .venv/bin/python scripts/cold_cycle.py [--sweep-mb 16] [--cycles 5000]
    # cold footprint in cache lines: the difference of two cachegrind runs
    valgrind --tool=cachegrind --cache-sim=yes --trace-children=yes \\
        .venv/bin/python scripts/cold_cycle.py --sweep-mb 8 --cycles 300 [--no-cycle]
"""

import argparse
import time

import numpy as np

from robodyn_ros.control import ControllerConfig, ControllerCore
from robodyn_ros.io.cdr import JointStateLayout, encode_joint_state
from robodyn_ros.model import load_urdf
from robodyn_ros.model.registry import robot_path
from robodyn_ros.nodes.loop_bench_nodes import PANDA_Q0

Q0 = np.array(PANDA_Q0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--sweep-mb', type=int, default=0, help='buffer written between cycles')
    parser.add_argument('--cycles', type=int, default=5000)
    parser.add_argument('--no-cycle', action='store_true', help='the sweep alone (baseline)')
    parser.add_argument('--path', choices=('fused', 'general'), default='fused',
                        help='the fused kernel on the packed message, or the general path '
                             '(decoded arrays: on_state, supervisor, law, limits)')
    args = parser.parse_args()
    model = load_urdf(robot_path('panda')[0], tip_link='panda_hand')
    core = ControllerCore(model, ControllerConfig.from_parameters(dict(
        kp=[400.0], kd=[40.0], include_friction=True, reference='hold', ramp_time=0.01)))
    core.warm_up()
    core.activate(0.0)
    names = list(model.joint_names)
    messages = [encode_joint_state(1000.0 + k * 1e-3, names,
                                   Q0 + 1e-3 * np.sin(0.01 * k + np.arange(7)),
                                   1e-2 * np.cos(0.01 * k + np.arange(7)))
                for k in range(args.cycles + 50)]
    offsets = JointStateLayout(messages[0]).offsets
    states = [(Q0 + 1e-3 * np.sin(0.01 * k + np.arange(7)),
               1e-2 * np.cos(0.01 * k + np.arange(7))) for k in range(args.cycles + 50)]
    sweep = np.ones(args.sweep_mb * 131072)
    for k in range(50):  # ramp-in; then every cycle runs fused
        core.cycle_packed(k * 1e-3, names, messages[k], offsets, 1000.0 + k * 1e-3)
    cpu = np.empty(args.cycles)
    for i, k in enumerate(range(50, 50 + args.cycles)):
        sweep += 1.0
        c0 = time.thread_time_ns()
        if args.no_cycle:
            pass
        elif args.path == 'fused':
            core.cycle_packed(k * 1e-3, names, messages[k], offsets, 1000.0 + k * 1e-3)
        else:
            core.cycle(k * 1e-3, names, states[k][0], states[k][1], 1000.0 + k * 1e-3)
        cpu[i] = (time.thread_time_ns() - c0) / 1e3
    fused = core.fused_cycle.cycles if core.fused_cycle is not None else 0
    print(f'{args.path} path, sweep {args.sweep_mb} MB: cycle CPU time p50 '
          f'{np.percentile(cpu, 50):.1f} us, p99 {np.percentile(cpu, 99):.1f} us over '
          f'{args.cycles} cycles ({fused} fused)')


if __name__ == '__main__':
    main()
