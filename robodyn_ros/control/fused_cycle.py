"""The steady-state cycle fused into one compiled call.

While the supervisor is ``active`` and a joint state triggers the cycle (the common case
at 1 kHz), the controller's work is: pick the chain's joints out of the message, check
them (finite, inside the guard bands, no jump), evaluate the computed-torque law (seed 000
eq. 29 at the commanded acceleration, one Newton-Euler pass; seed 004 friction; minus
g(q), seed 000 eq. 45, Newton-Euler at rest, when the robot compensates gravity itself),
then rate-limit and clamp the output. :func:`fused_cycle_kernel` does all of it in one
numba call, instead of a dozen Python layers: across processes, on 2 cores, the Python
interpreter is where a cold cycle spends its time.

The fast path only skips layers, never a check: it calls the same compiled checks as the
supervisor (safety/kernels.py), and anything unusual (another mode, a state the general
path would reject or guard against, a non-finite torque, a jump of the states' clock,
another message layout) hands the cycle to the general path with nothing changed, which
decides as always. The two paths give bit-identical commands (test_fused_cycle).

Who does what: :class:`FusedCycle` holds the kernel's constant arrays and its state
buffers; ``ControllerCore._cycle_fused`` runs a cycle, reading the supervisor only through
its typed interface (:class:`~.safety.supervisor.FusedInputs` in,
``SafetySupervisor.accept_fused`` out). The rules both paths apply, and the checklist of
what changes together when one is added, are in cycle_events.py.

The kernel's arrays, in one table (n = chain joints; SI units):

=============  =========  ==========================================================
array          shape      content
=============  =========  ==========================================================
``data``       bytes      the JointState message as received (CDR)
``layout``     int64 5+n  ``LAYOUT_OPTIONS`` option bits (FRICTION, MINUS_GRAVITY),
                          ``LAYOUT_POSITION`` / ``LAYOUT_VELOCITY`` byte offsets of the
                          two arrays in ``data``, ``LAYOUT_COUNT`` values per array, then
                          from ``LAYOUT_INDEX`` the message index of each chain joint
``limits``     (11, n)    rows ``ROW_*``: guard band lower / upper, velocity guard, kp,
                          kd, effort limit, zeros, max torque rate (constant row), nominal
                          period (constant row), continuous joints (1.0 / 0.0: the float
                          row the general path's position_jump takes too), jump tolerance
``params``     (n+1, 23)  the Newton-Euler rows (dynamics/recursive/recursive_params.py)
``state``      (2, n)     written: q, qd in chain order
``q_ref`` ...  (n,)       the reference's position, velocity, acceleration
``tau``, ``output``  (n,)  the law's torque; the limited command (updated in place)
=============  =========  ==========================================================
"""

import numba
import numpy as np

from ..dynamics.recursive.newton_euler import computed_torque_kernel, newton_euler
from .safety.kernels import (
    JUMP_TOLERANCE,
    first_violation,
    gather_packed,
    limit_into,
    position_jump,
    rate_step,
)

__all__ = ['FusedCycle', 'fused_cycle_kernel', 'NOT_FINITE_STATE', 'GUARDED',
           'NOT_FINITE_TORQUE', 'FRICTION', 'MINUS_GRAVITY']

#: Kernel results that hand the cycle to the general path (nothing was changed).
NOT_FINITE_STATE, GUARDED, NOT_FINITE_TORQUE = -1, -2, -3
#: Option bits, ``layout[0]``: the law adds friction (seed 004); the robot compensates
#: gravity itself, so g(q) is subtracted.
FRICTION, MINUS_GRAVITY = 1, 2
#: Entries of ``layout`` before the chain joints' message indices.
LAYOUT_OPTIONS, LAYOUT_POSITION, LAYOUT_VELOCITY, LAYOUT_COUNT, LAYOUT_INDEX = range(5)
#: Rows of ``FusedCycle.limits`` (n columns each, SI units): guard band, velocity guard,
#: gains, effort limit, zeros (qd = qdd = 0 for g(q)), max torque rate and nominal period
#: (constant rows), continuous joints (1.0), jump tolerance (constant).
(ROW_LOWER, ROW_UPPER, ROW_VELOCITY, ROW_KP, ROW_KD, ROW_EFFORT, ROW_ZERO, ROW_RATE,
 ROW_PERIOD, ROW_WRAP, ROW_JUMP) = range(11)


@numba.njit(cache=True, nogil=True, error_model='numpy')
def fused_cycle_kernel(data, layout, limits, q_ref, qd_ref, qdd_ref, params, tau, buf, out,
                       output, elapsed, state, previous, since_valid):
    """One active cycle on a packed state. ``layout`` (int64): option bits (FRICTION,
    MINUS_GRAVITY), position and velocity byte offsets in ``data``, values per field, then
    the message index of each chain joint (see :func:`gather_packed`). ``limits``: the
    ROW_* rows. ``previous``: the last valid state's positions, ``since_valid`` [s] ago (a
    farther jump than the velocity guard allows is GUARDED: the general path rejects it).

    Writes q, qd into ``state`` rows 0, 1 (chain order); on success ``output`` becomes the
    law torque rate-limited for ``elapsed`` [s] since the last output (as
    SafetySupervisor.step_at), clamped, and the limiter's flags (>= 0) are returned. A
    negative result (NOT_FINITE_STATE, GUARDED, NOT_FINITE_TORQUE) leaves ``output``
    unchanged. Few arguments on purpose: numba's dispatch costs about 1 us per argument
    on a cold cache.
    """
    q, qd = state[0], state[1]
    options = layout[LAYOUT_OPTIONS]
    if not gather_packed(data, layout[LAYOUT_POSITION], layout[LAYOUT_VELOCITY],
                         layout[LAYOUT_COUNT], layout[LAYOUT_INDEX:], q, qd):
        return NOT_FINITE_STATE
    if first_violation(q, qd, limits[ROW_LOWER], limits[ROW_UPPER],
                       limits[ROW_VELOCITY]) >= 0 or \
            position_jump(q, previous, limits[ROW_VELOCITY], limits[ROW_WRAP], since_valid,
                          limits[ROW_JUMP, 0]) >= 0:
        return GUARDED
    if not computed_torque_kernel(q, qd, q_ref, qd_ref, qdd_ref, limits[ROW_KP],
                                  limits[ROW_KD], params, (options & FRICTION) != 0, tau,
                                  buf):
        return NOT_FINITE_TORQUE
    if options & MINUS_GRAVITY:  # g(q): Newton-Euler at rest
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
                                             limits[ROW_PERIOD, 0]), limits[ROW_EFFORT])


def _layout_array(options, offsets, count, index):
    """fused_cycle_kernel's ``layout``; int64, the one type the kernel is compiled for."""
    return np.concatenate([[options], offsets, [count], index]).astype(np.int64)


class FusedCycle:
    """The fused cycle's constant arrays and state buffers for one controller (its
    dynamics, law and limits as they are now; rebuilt when they change).

    Use :meth:`build`, which returns None when the law or dynamics have no fused form
    (another mode, dynamics without compiled kernels, the online cross-check on).
    """

    def __init__(self, joint_map, supervisor, law, config, workspace):
        lim = supervisor.limits
        self.joint_map = joint_map
        self.params, self.tau, self.buf, self.out = workspace
        n = len(lim.effort)
        rows = {ROW_LOWER: lim.lower, ROW_UPPER: lim.upper, ROW_VELOCITY: lim.velocity,
                ROW_KP: law.kp, ROW_KD: law.kd, ROW_EFFORT: lim.effort, ROW_ZERO: 0.0,
                ROW_RATE: lim.max_torque_rate, ROW_PERIOD: lim.period,
                ROW_WRAP: supervisor.wrap, ROW_JUMP: JUMP_TOLERANCE}
        self.limits = np.array([np.broadcast_to(np.asarray(rows[r], dtype=float), (n,))
                                for r in range(len(rows))])
        self.options = (FRICTION if config.include_friction else 0) | \
            (0 if config.include_gravity else MINUS_GRAVITY)
        self.names = self.offsets = self.last_layout = None  # the last message layout's
        # Two state buffers, taken in turn: a cycle writes the one that is not the last
        # valid state, so a rejected cycle leaves that state as it was. Views made once:
        # no array is created per cycle. (state, q, qd) each.
        self.buffers = tuple((s, s[0], s[1]) for s in np.empty((2, 2, n)))
        self.cycles = 0
        #: LawConfig.velocity_lag [s]; qd_r - lag qdd_r is staged in ``_qd_cmp``.
        self.lag = float(law.config.velocity_lag)
        self._qd_cmp = np.empty(n)

    def set_gains(self, kp: np.ndarray, kd: np.ndarray) -> None:
        """The law's gains changed between cycles (laws/gain_blend.py): O(n)."""
        self.limits[ROW_KP] = kp
        self.limits[ROW_KD] = kd

    @classmethod
    def build(cls, core, dyn=None, law=None, cross_check=None):
        """The FusedCycle of a ControllerCore's dynamics and law (``dyn``, ``law``,
        ``cross_check`` when given: a payload being prepared), or None."""
        dyn, law = (core.dyn, core.law) if dyn is None else (dyn, law)
        cross_check = core.cross_check if dyn is core.dyn else cross_check
        workspace = dyn.kernel_workspace()
        if workspace is None or core.config.mode != 'computed_torque' or \
                cross_check is not None:
            return None
        return cls(core.joint_map, core.supervisor, law, core.config, workspace)

    def warm_up(self, q, reference):
        """Compile (or load) the kernel for ``reference`` (q_r, qd_r, qdd_r) arrays like
        the cycle's (numba specialises on read-only arrays too); nothing is changed."""
        n = q.shape[0]
        data = np.full(2 * n, np.nan).tobytes()  # stops at the first check
        layout = _layout_array(self.options, (0, 8 * n), n, np.arange(n))
        if self.lag != 0.0:  # run() hands the kernel the staged velocity (writable)
            reference = (reference[0], self._qd_cmp, reference[2])
        fused_cycle_kernel(data, layout, self.limits, *reference, self.params, self.tau,  # type: ignore[call-arg]
                           self.buf, self.out, np.zeros(n), 0.0, np.empty((2, n)),
                           np.zeros(n), 0.0)

    def layout(self, names, offsets):
        """The kernel's ``layout`` for this message layout (kept while it repeats), or
        None when the joint map has not seen these names (the general path indexes them)."""
        if names is not self.names or offsets != self.offsets:
            index = self.joint_map.cached_index(names)
            if index is None:
                return None
            self.last_layout = _layout_array(self.options, offsets, len(names), index)
            self.names, self.offsets = names, offsets
        return self.last_layout

    def buffer_besides(self, previous):
        """(state, q, qd) views of the buffer that does not hold ``previous``."""
        buffer = self.buffers[0]
        return self.buffers[1] if buffer[1] is previous else buffer

    def run(self, data, layout, reference, buffer, inputs):
        """:func:`fused_cycle_kernel` on ``data`` with ``reference`` (q_r, qd_r, qdd_r),
        into ``buffer`` (:meth:`buffer_besides`) and the supervisor's ``inputs``
        (FusedInputs): limit_into's flags (>= 0), or a negative code with the output
        unchanged."""
        q_r, qd_r, qdd_r = reference
        if self.lag != 0.0:  # the reference velocity the measured one is compared with
            np.multiply(qdd_r, -self.lag, out=self._qd_cmp)
            qd_r = np.add(self._qd_cmp, qd_r, out=self._qd_cmp)
        return fused_cycle_kernel(data, layout, self.limits, q_r, qd_r, qdd_r, self.params,
                                  self.tau, self.buf, self.out, inputs.output,
                                  inputs.elapsed, buffer[0], inputs.previous,
                                  inputs.since_valid)
