"""Run every compiled path of a controller core once before its first cycle.

Why: numba loads (or compiles) a kernel at its first call, and a first call inside the
control loop would stall one cycle by that much. Both reference forms are run: the
kernels specialise on writeable arrays and on Hold's read-only ones.
"""

import time

import numpy as np

from .reference.trajectories import Hold

__all__ = ['warm_up_core']


def warm_up_core(core) -> float:
    """Run ``core``'s (a ControllerCore's) law, dynamics, position hold, cross-check,
    supervisor kernels and fused cycle once at a mid-range state; the seconds it took."""
    t0 = time.perf_counter()
    q = core.model.mid_range
    z = np.zeros(core.model.n)
    references = [(q, z, z), Hold(q)(0.0)]  # writeable, and Hold's read-only arrays
    for reference in references:
        core.law(q, z, *reference)
    core.dyn.gravity_vector(q)
    core.dyn.inverse_dynamics(q, z, z)
    core.dyn.friction_torque(z)
    core.dyn.mass_matrix(np.array(q, dtype=float))  # the position hold's (PositionHold)
    if core.cross_check is not None:
        core.cross_check.check(q, z, z)
    core.supervisor.warm_up(q)
    core.targets.warm_up(q)
    if core.fused_cycle is not None:
        for reference in references:
            core.fused_cycle.warm_up(q, reference)
    return time.perf_counter() - t0
