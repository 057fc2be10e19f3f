"""The controller's cycle with cold caches (``robodyn bench --cold-cycle``): a diagnosis
for the loop benchmark's compute p99, not a benchmark of record.

The slowest cycles in the loop are cycles that find the caches cold (other processes and
the host ran in between). This runs the Panda's fused cycle (trigger 'state', hold
reference, friction on, as ``robodyn bench --loop``) in-process, once per iteration,
optionally after writing a buffer larger than the caches, and gives p50/p99 of the
cycle's CPU time. The cold footprint in cache lines is the difference of two cachegrind
runs (``valgrind --tool=cachegrind --cache-sim=yes robodyn bench --cold-cycle
--sweep-mb 8 --cycles 300 [--no-cycle]``).
"""

import time
from typing import NamedTuple

import numpy as np

from ..control import ControllerConfig, ControllerCore
from ..io.cdr import JointStateLayout, encode_joint_state
from ..model import load_robot
from ..model.registry import PANDA_HOME

__all__ = ['ColdCycle', 'cold_cycle']


class ColdCycle(NamedTuple):
    """CPU time of one cycle [us]: median and 99th percentile; cycles that ran fused."""

    p50: float
    p99: float
    fused: int


def cold_cycle(sweep_mb: int = 0, cycles: int = 5000, no_cycle: bool = False,
               path: str = 'fused') -> ColdCycle:
    """Time ``cycles`` cycles, each after writing ``sweep_mb`` MB (``no_cycle``: the sweep
    alone, the baseline); ``path``: 'fused' (the kernel on the packed message) or
    'general' (decoded arrays: on_state, supervisor, law, limits)."""
    q0 = np.array(PANDA_HOME)
    model = load_robot('panda', tip_link='panda_hand')
    core = ControllerCore(model, ControllerConfig.from_parameters(dict(
        kp=[400.0], kd=[40.0], include_friction=True, reference='hold', ramp_time=0.01)))
    core.warm_up()
    core.activate(0.0)
    names = list(model.joint_names)
    wave = [(q0 + 1e-3 * np.sin(0.01 * k + np.arange(7)), 1e-2 * np.cos(0.01 * k + np.arange(7)))
            for k in range(cycles + 50)]
    messages = [encode_joint_state(1000.0 + k * 1e-3, names, q, qd)
                for k, (q, qd) in enumerate(wave)]
    offsets = JointStateLayout(messages[0]).offsets
    sweep = np.ones(sweep_mb * 131072)
    for k in range(50):  # ramp-in; then every cycle runs fused
        core.cycle_packed(k * 1e-3, names, messages[k], offsets, 1000.0 + k * 1e-3)
    cpu = np.empty(cycles)
    for i, k in enumerate(range(50, 50 + cycles)):
        sweep += 1.0
        c0 = time.thread_time_ns()
        if no_cycle:
            pass
        elif path == 'fused':
            core.cycle_packed(k * 1e-3, names, messages[k], offsets, 1000.0 + k * 1e-3)
        else:
            core.cycle(k * 1e-3, names, wave[k][0], wave[k][1], 1000.0 + k * 1e-3)
        cpu[i] = (time.thread_time_ns() - c0) / 1e3
    fused = core.fused_cycle.cycles if core.fused_cycle is not None else 0
    return ColdCycle(float(np.percentile(cpu, 50)), float(np.percentile(cpu, 99)), fused)
