"""The steady-state cycle fused into one compiled call.

While the supervisor is ``active`` and a joint state triggers the cycle (the common case
at 1 kHz), the controller's work is: pick the chain's joints out of the message, check
them (finite, inside the guard bands), evaluate the computed-torque law (seed 000 eq. 29
at the commanded acceleration, one RNEA pass; seed 004 friction; minus g(q), seed 000 eq.
45, when the robot compensates gravity itself), then rate-limit and clamp the output.
:func:`active_cycle_kernel` does all of it in one numba call around the Python reference,
instead of a dozen Python layers: across processes, on 2 cores, the Python interpreter is
where a cold cycle spends its time.

The fast path only skips layers, never a check: anything unusual (another mode, a state
the general path would reject or guard against, a non-finite torque, a jump of the
states' clock, another message layout) makes :meth:`ActiveCycle.__call__` return None
with nothing changed, and the caller runs the general path, which decides as always. The
two paths give bit-identical commands (test_active_cycle).
"""

import time

import numba
import numpy as np

from ..dynamics.recursive import computed_torque_kernel, terms_kernel
from ..dynamics.recursive_params import MODE_G
from .cycle_kernels import first_violation, gather_packed, limit_into
from .supervisor import ACTIVE

__all__ = ['ActiveCycle', 'active_cycle_kernel', 'NOT_FINITE_STATE', 'GUARDED',
           'NOT_FINITE_TORQUE']

#: Kernel results that hand the cycle to the general path (nothing was changed).
NOT_FINITE_STATE, GUARDED, NOT_FINITE_TORQUE = -1, -2, -3

_F64 = np.dtype(float)


@numba.njit(cache=True, nogil=True, error_model='numpy')
def active_cycle_kernel(data, position_offset, velocity_offset, index, limits, q_ref, qd_ref,
                        qdd_ref, params, flags, tau, buf, out, zero, output, step, state):
    """One active cycle on a packed state (see :func:`gather_packed`). ``limits`` rows:
    lower, upper guard [rad or m], velocity guard [rad/s or m/s], kp, kd, effort limit
    [N m or N]; ``flags``: (friction, minus gravity).

    Writes q, qd into ``state`` rows 0, 1 (chain order); on success ``output`` becomes the
    rate-limited, clamped law torque and the limiter's flags (>= 0) are returned. A negative
    result (NOT_FINITE_STATE, GUARDED, NOT_FINITE_TORQUE) leaves ``output`` unchanged.
    """
    q, qd = state[0], state[1]
    if not gather_packed(data, position_offset, velocity_offset, index, q, qd):
        return NOT_FINITE_STATE
    if first_violation(q, qd, limits[0], limits[1], limits[2]) >= 0:
        return GUARDED
    if not computed_torque_kernel(q, qd, q_ref, qd_ref, qdd_ref, limits[3], limits[4],
                                  params, flags[0], tau, buf):
        return NOT_FINITE_TORQUE
    if flags[1]:
        terms_kernel(q, zero, params, out, buf, MODE_G)
        g = out[out.shape[0] - 1]
        for j in range(tau.shape[0]):
            tau[j] -= g[j]
    total = 0.0
    for j in range(tau.shape[0]):
        total += tau[j]
    if not total - total == 0.0:
        return NOT_FINITE_TORQUE
    return limit_into(tau, output, step, limits[5])


class ActiveCycle:
    """The fused cycle of one :class:`ControllerCore` (its dynamics and law as they are
    now; rebuild it when they change).

    Use :meth:`build`, which returns None when the law or dynamics have no fused form
    (another mode, dynamics without compiled kernels, the online cross-check on).
    """

    def __init__(self, core, workspace):
        law, sup = core.law, core.supervisor
        lim = sup.limits
        self.core = core
        self.params, self.tau, self.buf, self.out, self.zero = workspace
        self.limits = np.array([lim.lower, lim.upper, lim.velocity, law.kp, law.kd,
                                lim.effort], dtype=float)
        self.flags = np.array([core.config.include_friction,
                               not core.config.include_gravity])
        self.state = np.empty((2, core.model.n))  # q, qd of the cycle
        self.cycles = 0

    @classmethod
    def build(cls, core):
        """The core's ActiveCycle, or None when it has none."""
        workspace = core.dyn.kernel_workspace()
        if workspace is None or core.config.mode != 'computed_torque' or \
                core.cross_check is not None:
            return None
        return cls(core, workspace)

    def warm_up(self, q, reference):
        """Compile (or load) the kernel for ``reference`` (q_r, qd_r, qdd_r) arrays like
        the cycle's (numba specialises on read-only arrays too); nothing is changed."""
        n = q.shape[0]
        data = np.full(2 * n, np.nan).tobytes()  # stops at the first check
        active_cycle_kernel(data, 0, 8 * n, np.arange(n), self.limits, *reference,
                            self.params, self.flags, self.tau, self.buf, self.out, self.zero,
                            np.zeros(n), 0.0, self.state)

    def __call__(self, now, names, data, offsets, stamp):
        """The cycle's Command, or None (nothing changed: run the general path)."""
        core = self.core
        sup = core.supervisor
        if sup.mode != ACTIVE or type(data) is not bytes:
            return None
        index = core.joint_map.cached_index(names)
        if index is None:
            return None
        offset = core.clock.steady_offset(stamp, now)
        if offset is None:
            return None
        t0, c0 = time.perf_counter(), time.thread_time()
        t = now + offset
        q_r, qd_r, qdd_r = core.reference(t)
        if q_r.dtype is not _F64 or qd_r.dtype is not _F64 or qdd_r.dtype is not _F64:
            return None
        state = self.state
        code = active_cycle_kernel(data, offsets[0], offsets[1], index, self.limits, q_r,
                                   qd_r, qdd_r, self.params, self.flags, self.tau, self.buf,
                                   self.out, self.zero, sup.output, sup.step_at(now), state)
        if code < 0:
            return None
        q, qd = state[0].copy(), state[1].copy()
        core.accept_fused_state(now, q, qd, stamp, offset)
        sup.record_output(now, code)
        self.cycles += 1
        core.stats.record(now, (time.thread_time() - c0) * 1e6,
                          (time.perf_counter() - t0) * 1e6)
        return core.command(sup.output.copy(), q_r, qd_r, t, ACTIVE)
