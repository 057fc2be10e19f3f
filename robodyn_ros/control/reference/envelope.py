"""Exact bounds of a piecewise-polynomial reference between its points.

A trajectory's points may all lie inside the joint limits while the interpolation between
them does not (a point's velocity of 10 rad/s bends a 0.1 rad move out to 3 rad). The
controller follows the interpolation, so that is what is checked: every segment's
position and velocity polynomial against the admissible range.

The check is exact and vectorised. Each polynomial on its segment is written in the
Bernstein basis of [0, 1], whose coefficients enclose it (the convex hull property: the
first and last coefficients are the end values, every value lies between the smallest and
the largest coefficient). Segments whose hull stays inside are accepted at once; only
the others are halved (de Casteljau) a few times, all at once, which settles nearly all
of them; the last few get their extrema from the roots of the derivative.
"""

from math import comb
from typing import NamedTuple

import numpy as np

__all__ = ['Excursion', 'first_excursion']


class Excursion(NamedTuple):
    """Where a polynomial leaves its bound: segment ``k``, joint ``j``, at ``time`` [s]
    from the segment's start, with ``value`` (the extreme beyond the bound)."""

    k: int
    j: int
    time: float
    value: float


def _bernstein(power):
    """Bernstein coefficients (d+1, ...) on [0, 1] of power-basis ones (d+1, ...) in u."""
    d = power.shape[0] - 1
    rows = [sum(comb(j, i) / comb(d, i) * power[i] for i in range(j + 1))
            for j in range(d + 1)]
    return np.stack(rows)


#: Halvings of a suspect segment before its extrema are solved for (each halving shrinks
#: the hull's overshoot about four times).
HALVINGS = 8


def _halves(b):
    """de Casteljau at u = 1/2: Bernstein coefficients (d+1, s) -> left, right halves."""
    left, right, work = [b[0]], [b[-1]], b
    while work.shape[0] > 1:
        work = 0.5 * (work[:-1] + work[1:])
        left.append(work[0])
        right.append(work[-1])
    return np.stack(left), np.stack(right[::-1])


def _settle(b, lower, upper):
    """Of suspect polynomials (Bernstein (d+1, s), bounds (s,)): those still undecided
    after HALVINGS halvings or certainly out (an end coefficient outside: a value of the
    polynomial). Returns a bool (s,) mask."""
    owner = np.arange(b.shape[1])
    undecided = np.zeros(b.shape[1], dtype=bool)
    for _ in range(HALVINGS):
        if not owner.size:
            break
        out = (b[0] < lower[owner]) | (b[-1] < lower[owner]) | \
            (b[0] > upper[owner]) | (b[-1] > upper[owner])
        undecided[owner[out]] = True
        crossing = ~out & ((b.min(axis=0) < lower[owner]) | (b.max(axis=0) > upper[owner]))
        crossing &= ~undecided[owner]
        b, owner = b[:, crossing], owner[crossing]
        left, right = _halves(b)
        b, owner = np.concatenate([left, right], axis=1), np.concatenate([owner, owner])
    if owner.size:
        crossing = (b.min(axis=0) < lower[owner]) | (b.max(axis=0) > upper[owner])
        undecided[owner[crossing]] = True
    return undecided


def _extremes(coeffs, duration):
    """(t_min, min, t_max, max) of sum coeffs[i] x^i on [0, duration] (ascending
    coefficients, 1-D)."""
    times = [0.0, duration]
    derivative = np.polynomial.polynomial.polyder(coeffs)
    if np.any(derivative != 0.0):
        roots = np.polynomial.polynomial.polyroots(np.trim_zeros(derivative, 'b'))
        real = roots[np.abs(roots.imag) <= 1e-9 * max(1.0, duration)].real
        times += [float(t) for t in real if 0.0 < t < duration]
    values = np.polynomial.polynomial.polyval(np.array(times), coeffs)
    low, high = int(np.argmin(values)), int(np.argmax(values))
    return times[low], float(values[low]), times[high], float(values[high])


def first_excursion(coeffs, durations, lower, upper):
    """The first (segment, joint) whose polynomial leaves [lower, upper], or None.

    Args:
        coeffs: (d+1, m, n) ascending power-basis coefficients in the time x [s] from each
            segment's start.
        durations: (m,) segment durations [s], > 0.
        lower, upper: (n,) bounds (-inf / inf: not bounded).
    """
    d = coeffs.shape[0] - 1
    scale = np.asarray(durations, dtype=float)[None, :, None] ** np.arange(d + 1)[:, None,
                                                                                   None]
    hull = _bernstein(coeffs * scale)
    suspect = np.argwhere((hull.min(axis=0) < lower) | (hull.max(axis=0) > upper))
    if suspect.size:
        keep = _settle(hull[:, suspect[:, 0], suspect[:, 1]], lower[suspect[:, 1]],
                       upper[suspect[:, 1]])
        suspect = suspect[keep]
    for k, j in suspect:  # ordered by segment, then joint
        t_low, low, t_high, high = _extremes(coeffs[:, k, j], float(durations[k]))
        if low < lower[j]:
            return Excursion(int(k), int(j), t_low, low)
        if high > upper[j]:
            return Excursion(int(k), int(j), t_high, high)
    return None
