"""The steady-state cycle fused into one compiled call.

While the supervisor is ``active`` and a joint state triggers the cycle (the common case
at 1 kHz), the controller's work is: pick the chain's joints out of the message, check
them (finite, inside the guard bands), evaluate the computed-torque law (seed 000 eq. 29
at the commanded acceleration, one Newton-Euler pass; seed 004 friction; minus g(q), seed
000 eq. 45, Newton-Euler at rest, when the robot compensates gravity itself), then
rate-limit and clamp the output.
:func:`fused_cycle_kernel` does all of it in one numba call around the Python reference,
instead of a dozen Python layers: across processes, on 2 cores, the Python interpreter is
where a cold cycle spends its time.

The fast path only skips layers, never a check: anything unusual (another mode, a state
the general path would reject or guard against, a non-finite torque, a jump of the
states' clock, another message layout) makes :meth:`FusedCycle.__call__` return None
with nothing changed, and the caller runs the general path, which decides as always. The
two paths give bit-identical commands (test_fused_cycle).
"""

import time

import numba
import numpy as np

from ..dynamics.newton_euler import computed_torque_kernel, newton_euler
from .safety.kernels import (
    JUMP_TOLERANCE,
    first_violation,
    gather_packed,
    limit_into,
    position_jump,
    rate_step,
)
from .safety.supervisor import ACTIVE

__all__ = ['FusedCycle', 'fused_cycle_kernel', 'NOT_FINITE_STATE', 'GUARDED',
           'NOT_FINITE_TORQUE']

#: Kernel results that hand the cycle to the general path (nothing was changed).
NOT_FINITE_STATE, GUARDED, NOT_FINITE_TORQUE = -1, -2, -3

_F64 = np.dtype(float)
# Rows of FusedCycle.limits after the per-joint ones (each a constant over the joints).
ROW_FRICTION, ROW_MINUS_GRAVITY, ROW_ZERO, ROW_RATE, ROW_PERIOD, ROW_WRAP, ROW_JUMP = \
    range(6, 13)


@numba.njit(cache=True, nogil=True, error_model='numpy')
def fused_cycle_kernel(data, where, limits, q_ref, qd_ref, qdd_ref, params, tau, buf, out,
                        output, elapsed, state, previous, since_valid):
    """One active cycle on a packed state: ``where`` = [position offset, velocity offset,
    values per field, message index of each chain joint] (see :func:`gather_packed`).
    ``limits`` rows: lower, upper guard [rad or m], velocity guard [rad/s or m/s], kp, kd,
    effort limit [N m or N], friction on (any non-zero), gravity compensated by the robot
    (non-zero), zeros, max torque rate [N m/s or N/s], nominal period [s], continuous
    joint (non-zero), jump tolerance [rad or m]. ``previous``: the last valid state's
    positions, ``since_valid`` [s] ago (a farther jump than the velocity guard allows is
    GUARDED: the general path rejects it).

    Writes q, qd into ``state`` rows 0, 1 (chain order); on success ``output`` becomes the
    law torque rate-limited for ``elapsed`` [s] since the last output (as
    Supervisor.step_at), clamped, and the limiter's flags (>= 0) are returned. A negative
    result (NOT_FINITE_STATE, GUARDED, NOT_FINITE_TORQUE) leaves ``output`` unchanged.
    Few arguments on purpose: numba's dispatch costs about 1 us per argument on a cold
    cache.
    """
    q, qd = state[0], state[1]
    if not gather_packed(data, where[0], where[1], where[2], where[3:], q, qd):
        return NOT_FINITE_STATE
    if first_violation(q, qd, limits[0], limits[1], limits[2]) >= 0 or \
            position_jump(q, previous, limits[2], limits[ROW_WRAP], since_valid,
                          limits[ROW_JUMP, 0]) >= 0:
        return GUARDED
    if not computed_torque_kernel(q, qd, q_ref, qd_ref, qdd_ref, limits[3], limits[4],
                                  params, limits[ROW_FRICTION, 0] != 0.0, tau, buf):
        return NOT_FINITE_TORQUE
    if limits[ROW_MINUS_GRAVITY, 0] != 0.0:  # g(q): Newton-Euler at rest
        g = out[out.shape[0] - 1]
        newton_euler(q, limits[ROW_ZERO], limits[ROW_ZERO], params, g, buf)
        for j in range(tau.shape[0]):
            tau[j] -= g[j]
    total = 0.0
    for j in range(tau.shape[0]):
        total += tau[j]
    if not total - total == 0.0:
        return NOT_FINITE_TORQUE
    return limit_into(tau, output, rate_step(limits[ROW_RATE, 0], elapsed,
                                             limits[ROW_PERIOD, 0]), limits[5])


def _where_array(offsets, count, index):
    """fused_cycle_kernel's ``where``: (position, velocity) byte offsets, values per
    field, the chain joints' message index; int64, the one type the kernel is compiled
    for."""
    return np.concatenate([offsets, [count], index]).astype(np.int64)


class FusedCycle:
    """The fused cycle of one :class:`ControllerCore` (its dynamics and law as they are
    now; rebuild it when they change).

    Use :meth:`build`, which returns None when the law or dynamics have no fused form
    (another mode, dynamics without compiled kernels, the online cross-check on).
    """

    def __init__(self, core, workspace):
        law, sup = core.law, core.supervisor
        lim = sup.limits
        self.core = core
        self.params, self.tau, self.buf, self.out = workspace
        n = core.model.n
        constants = (core.config.include_friction, not core.config.include_gravity, 0.0,
                     lim.max_torque_rate, lim.period)
        self.limits = np.array([lim.lower, lim.upper, lim.velocity, law.kp, law.kd,
                                lim.effort, *(np.full(n, float(c)) for c in constants),
                                sup.wrap, np.full(n, JUMP_TOLERANCE)], dtype=float)
        self.names = self.offsets = self.where = None  # the last layout's
        # Two state buffers, taken in turn: a cycle writes the one that is not the last
        # valid state, so a rejected cycle leaves that state as it was. Views made once:
        # no array is created per cycle. (state, q, qd) each.
        self.buffers = tuple((s, s[0], s[1]) for s in np.empty((2, 2, n)))
        self.cycles = 0

    @classmethod
    def build(cls, core):
        """The core's FusedCycle, or None when it has none."""
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
        where = _where_array((0, 8 * n), n, np.arange(n))
        fused_cycle_kernel(data, where, self.limits, *reference, self.params, self.tau,  # type: ignore[call-arg]
                            self.buf, self.out, np.zeros(n), 0.0, np.empty((2, n)),
                            np.zeros(n), 0.0)

    def _where(self, names, offsets):
        """The kernel's ``where`` for this layout (kept while it repeats), or None."""
        if names is not self.names or offsets != self.offsets:
            index = self.core.joint_map.cached_index(names)
            if index is None:
                return None
            self.where = _where_array(offsets, len(names), index)
            self.names, self.offsets = names, offsets
        return self.where

    def __call__(self, now, names, data, offsets, stamp):
        """The cycle's Command, or None (nothing changed: run the general path)."""
        core = self.core
        sup = core.supervisor
        if sup.mode != ACTIVE or type(data) is not bytes or sup.output_time is None:
            return None
        where = self._where(names, offsets)
        if where is None:
            return None
        offset = core.clock.steady_offset(stamp, now)
        if offset is None:
            return None
        t0, c0 = time.perf_counter(), time.thread_time()
        t = now + offset
        q_r, qd_r, qdd_r = core.reference(t)
        if q_r.dtype is not _F64 or qd_r.dtype is not _F64 or qdd_r.dtype is not _F64:
            return None
        state, q, qd = self.buffers[0]
        if q is sup.q_valid:  # keep the last valid state: write the other buffer
            state, q, qd = self.buffers[1]
        since = sup.since_valid(now, core.clock.stamp_interval(stamp))
        code = fused_cycle_kernel(data, where, self.limits, q_r, qd_r, qdd_r, self.params,
                                   self.tau, self.buf, self.out, sup.output,
                                   now - sup.output_time, state, sup.q_valid, since)
        if code < 0:
            return None
        core.accept_fused_state(now, q, qd, stamp, offset)
        sup.record_output(now, code)
        self.cycles += 1
        core.stats.record(now, (time.thread_time() - c0) * 1e6,
                          (time.perf_counter() - t0) * 1e6)
        return core.command(sup.output.copy(), q_r, qd_r, t, ACTIVE)
