"""Compiled per-cycle steps of the controller core (numba, cached on disk): picking the
chain's joints out of a JointState and the safety supervisor's checks.

Plain loops over n joints: cheaper per cycle than a chain of small numpy calls.
"""

import numba
import numpy as np

__all__ = ['gather_packed', 'rate_step', 'limit_into', 'first_violation', 'position_jump',
           'frozen_state', 'RATE_LIMITED', 'CLAMPED', 'NON_FINITE', 'JUMP_TOLERANCE',
           'FROZEN_SECONDS', 'FROZEN_MOTION']

RATE_LIMITED, CLAMPED, NON_FINITE = 1, 2, 4
#: A joint may move this much [rad or m] between two states beyond what its velocity guard
#: allows in the time between them (sensor noise, quantisation, receipt jitter).
JUMP_TOLERANCE = 0.01
#: A state stream that repeats the same positions and velocities, bit for bit, for at least
#: FROZEN_SECONDS [s] while its velocities say some joint moved more than FROZEN_MOTION
#: [rad or m] meanwhile is frozen (a driver that stopped reading its encoders), not an arm
#: at rest (whose velocities read 0, or whose positions change). One constant for both
#: paths (torque_safety.hpp): a law that runs on a frozen state while its reference moves
#: pushes the arm open-loop. Time is the states' own (their stamps; the node's receipt time
#: for unstamped states): a node that hears a topic late still counts the time the stream
#: froze for, and a simulation whose physics waits stamps no time meanwhile.
FROZEN_SECONDS, FROZEN_MOTION = 0.05, 1e-3


@numba.njit(cache=True)
def gather_packed(data, position_offset, velocity_offset, count, index, q, qd):
    """The chain's joints out of packed bytes: ``count`` little-endian float64 positions
    (velocities) from byte ``position_offset`` (``velocity_offset``) of ``data`` (a
    JointState's CDR bytes); q[j], qd[j] = those at index[j]. False when any is non-finite
    or the values do not lie inside ``data``."""
    raw = np.frombuffer(data, np.uint8)
    size = 8 * count
    if position_offset < 0 or velocity_offset < 0 or \
            max(position_offset, velocity_offset) + size > raw.shape[0]:
        return False
    position = raw[position_offset:position_offset + size].view(np.float64)
    velocity = raw[velocity_offset:velocity_offset + size].view(np.float64)
    total = 0.0
    for j in range(index.shape[0]):
        k = index[j]
        if k < 0 or k >= count:
            return False
        q[j] = position[k]
        qd[j] = velocity[k]
        total += q[j] + qd[j]
    return total - total == 0.0  # NaN for NaN or +-inf anywhere


@numba.njit(cache=True)
def rate_step(max_rate, elapsed, period):
    """Largest change of any torque allowed ``elapsed`` [s] after the last output:
    ``max_rate`` [N m/s or N/s] times the elapsed time, at least 0 and at most one nominal
    ``period`` [s] (a late cycle gets one period's step: the hardware applies each command
    for a cycle). The C++ controller's rate_step (torque_safety.hpp) is the same."""
    return max_rate * min(max(elapsed, 0.0), period)


@numba.njit(cache=True)
def limit_into(target, output, step, effort):
    """output += clip(clip(target, +-effort) - output, +-step), in place: clamp first, then
    limit the step (the C++ controller's limit_torque is the same arithmetic).

    In this order no output ever steps by more than ``step``, not even after the effort
    limit was lowered below the last output (the output then walks down to it at the rate
    limit). A non-finite target element counts as the last output (that element keeps it,
    clamped). Returns the flags RATE_LIMITED | CLAMPED | NON_FINITE that applied.
    """
    flags = 0
    for j in range(output.shape[0]):
        t = target[j]
        if not (t == t) or t == float('inf') or t == -float('inf'):
            flags |= NON_FINITE
            t = output[j]
        if t > effort[j]:
            t = effort[j]
            flags |= CLAMPED
        elif t < -effort[j]:
            t = -effort[j]
            flags |= CLAMPED
        delta = t - output[j]
        if delta > step:
            delta = step
            flags |= RATE_LIMITED
        elif delta < -step:
            delta = -step
            flags |= RATE_LIMITED
        output[j] = output[j] + delta
    return flags


@numba.njit(cache=True)
def first_violation(q, qd, lower, upper, velocity):
    """-1 when q is inside [lower, upper] and |qd| <= velocity; else j for joint j's
    position, or n + j for its velocity."""
    n = q.shape[0]
    for j in range(n):
        if q[j] < lower[j] or q[j] > upper[j]:
            return j
    for j in range(n):
        if abs(qd[j]) > velocity[j]:
            return n + j
    return -1


@numba.njit(cache=True)
def position_jump(q, previous, velocity, wrap, elapsed, tolerance):
    """-1 when every joint moved from ``previous`` by at most velocity[j] * ``elapsed`` +
    ``tolerance`` (``wrap[j]`` non-zero: a continuous joint, distance modulo 2 pi); else
    the first joint that moved farther: a second joint_states publisher or a glitch,
    not motion. A joint without velocity limit (inf) is not checked."""
    for j in range(q.shape[0]):
        delta = abs(q[j] - previous[j])
        if wrap[j] != 0.0:
            delta = delta % (2.0 * np.pi)
            delta = min(delta, 2.0 * np.pi - delta)
        allowed = velocity[j] * max(elapsed, 0.0) + tolerance
        if delta > allowed:
            return j
    return -1


@numba.njit(cache=True)
def frozen_state(q, qd, previous_q, previous_qd, elapsed, frozen_for, seconds=FROZEN_SECONDS):
    """(seconds the stream has repeated itself, frozen?) after the state (q, qd) arrived
    ``elapsed`` [s] after the last valid one (previous_q, previous_qd), which had repeated
    itself ``frozen_for`` [s]: frozen when that time reaches ``seconds`` while the
    velocities say a joint moved more than FROZEN_MOTION. The C++ controller's
    frozen_state (torque_safety.hpp) is the same arithmetic."""
    same = True
    fastest = 0.0
    for j in range(q.shape[0]):
        same = same and q[j] == previous_q[j] and qd[j] == previous_qd[j]
        fastest = max(fastest, abs(qd[j]))
    frozen_for = frozen_for + max(elapsed, 0.0) if same else 0.0
    return frozen_for, frozen_for >= seconds and fastest * frozen_for > FROZEN_MOTION
