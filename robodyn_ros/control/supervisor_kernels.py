"""Compiled per-cycle checks of the safety supervisor (numba, cached on disk).

Plain loops over n joints: cheaper per cycle than a chain of small numpy calls.
"""

import numba

__all__ = ['limit_into', 'first_violation', 'RATE_LIMITED', 'CLAMPED', 'NON_FINITE']

RATE_LIMITED, CLAMPED, NON_FINITE = 1, 2, 4


@numba.njit(cache=True)
def limit_into(target, output, step, effort):
    """output += clip(target - output, +-step), then clamp to +-effort, in place.

    A non-finite target element leaves that output element unchanged. Returns the flags
    RATE_LIMITED | CLAMPED | NON_FINITE that applied.
    """
    flags = 0
    for j in range(output.shape[0]):
        delta = target[j] - output[j]
        if not (delta == delta) or delta == float('inf') or delta == -float('inf'):
            flags |= NON_FINITE
            delta = 0.0
        if delta > step:
            delta = step
            flags |= RATE_LIMITED
        elif delta < -step:
            delta = -step
            flags |= RATE_LIMITED
        value = output[j] + delta
        if value > effort[j]:
            value = effort[j]
            flags |= CLAMPED
        elif value < -effort[j]:
            value = -effort[j]
            flags |= CLAMPED
        output[j] = value
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
