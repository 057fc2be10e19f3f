"""Reference trajectories: q_r(t), qd_r(t), qdd_r(t), each (n,) arrays.

* :class:`OneMinusCos`: seed 000 eq. (73), q_r = q0 + A (1 - cos(2 pi t / T)).
* :class:`SumOfSines`: q_r = q0 + e(t) sum_k A_k sin(2 pi t / T_k), with a quintic
  envelope e(t) rising from 0 to 1 over ``ramp`` seconds so that q_r(0) = q0 and
  qd_r(0) = qdd_r(0) = 0 (the arm starts at rest).
* :class:`Hold`: q_r = q0.
* :class:`EndingAtRest`: any of them brought back to q0 and to rest at a given time.
* :class:`SplineTrajectory`: a JointTrajectory's points joined by segments whose degree
  follows what their end points carry, as JointTrajectoryController's spline does ('auto':
  quintic with positions, velocities and accelerations, cubic Hermite with positions and
  velocities, linear with positions only), or by quintic (missing values zero) or cubic
  segments throughout, starting from the current
  state, as joint_trajectory_controller interpolates.
"""

from dataclasses import dataclass

import numpy as np

from ...errors import InputError

__all__ = ['EndingAtRest', 'Hold', 'OneMinusCos', 'SumOfSines', 'SplineTrajectory',
           'make_reference']


class Hold:
    """Constant position. Returns the same read-only arrays every call (no allocation)."""

    def __init__(self, q0):
        self.q0 = np.array(q0, dtype=float)
        self._zero = np.zeros_like(self.q0)
        self.q0.flags.writeable = False
        self._zero.flags.writeable = False

    def __call__(self, t):
        """(q, qd, qdd) at time t [s]."""
        return self.q0, self._zero, self._zero


@dataclass(frozen=True)
class OneMinusCos:
    """Seed 000 eq. (73): q_r = q0 + A (1 - cos(w t)), qd_r = A w sin(w t)."""

    q0: np.ndarray
    amplitude: np.ndarray
    period: float = 1.0

    def __call__(self, t):
        """(q, qd, qdd) at time t [s]."""
        w = 2.0 * np.pi / self.period
        return (self.q0 + self.amplitude * (1.0 - np.cos(w * t)),
                self.amplitude * w * np.sin(w * t), self.amplitude * w * w * np.cos(w * t))


def _envelope(t, ramp):
    if ramp <= 0.0 or t >= ramp:
        return 1.0, 0.0, 0.0
    if t <= 0.0:
        return 0.0, 0.0, 0.0
    s = t / ramp
    e = 10 * s ** 3 - 15 * s ** 4 + 6 * s ** 5
    de = (30 * s ** 2 - 60 * s ** 3 + 30 * s ** 4) / ramp
    dde = (60 * s - 180 * s ** 2 + 120 * s ** 3) / ramp ** 2
    return e, de, dde


class SumOfSines:
    """q_r = q0 + e(t) sum_k A_jk sin(2 pi t / T_jk); amplitudes, periods: (n, K)."""

    def __init__(self, q0, amplitudes, periods, ramp=1.0):
        self.q0 = np.asarray(q0, dtype=float)
        self.amplitudes = np.asarray(amplitudes, dtype=float)
        self.periods = np.asarray(periods, dtype=float)
        self.ramp = float(ramp)
        self._w = 2.0 * np.pi / self.periods
        self._aw = self.amplitudes * self._w
        self._aww = self._aw * self._w

    def __call__(self, t):
        """(q, qd, qdd) at time t [s]."""
        phase = self._w * t
        sin, cos = np.sin(phase), np.cos(phase)
        s = (self.amplitudes * sin).sum(axis=1)
        ds = (self._aw * cos).sum(axis=1)
        dds = -(self._aww * sin).sum(axis=1)
        if t >= self.ramp:
            return self.q0 + s, ds, dds
        e, de, dde = _envelope(t, self.ramp)
        return self.q0 + e * s, de * s + e * ds, dde * s + 2 * de * ds + e * dds


class EndingAtRest:
    """A reference that ends at rest back at its start q0 at ``end`` [s]: over the last
    ``settle`` seconds its deviation d(t) = q_r(t) - q0 is scaled by w(t) = 1 - e(t - end +
    settle), e the quintic envelope of SumOfSines, so (product rule)

        q = q0 + w d,  qd = w' d + w qd_r,  qdd = w'' d + 2 w' qd_r + w qdd_r,

    and q(end) = q0, qd(end) = qdd(end) = 0, continuous to the second derivative. Every
    position lies between q0 and the reference's own, so inside any box that holds both.
    Why: a JointTrajectoryController that reaches the last point of a trajectory still
    moving keeps it as a goal the arm cannot meet at rest, and logs tolerance errors."""

    def __init__(self, reference, q0, end, settle):
        if not 0.0 < settle <= end:
            raise InputError(f'EndingAtRest: 0 < settle <= end required (got settle '
                             f'{settle}, end {end})')
        self.reference, self.end, self.settle = reference, float(end), float(settle)
        self.q0 = np.asarray(q0, dtype=float)
        self._zero = np.zeros_like(self.q0)

    def __call__(self, t):
        """(q, qd, qdd) at time t [s]."""
        if t >= self.end:
            return self.q0, self._zero, self._zero
        q, qd, qdd = self.reference(t)
        if t <= self.end - self.settle:
            return q, qd, qdd
        e, de, dde = _envelope(t - self.end + self.settle, self.settle)
        d, w = q - self.q0, 1.0 - e
        return self.q0 + w * d, -de * d + w * qd, -dde * d - 2 * de * qd + w * qdd


def _quintic(p0, v0, a0, p1, v1, a1, t):
    """(6, ...) ascending coefficients of the quintics meeting (p, v, a) at both ends of
    segments of durations ``t`` (broadcast against the points)."""
    c0, c1, c2 = p0, v0, 0.5 * a0
    h = p1 - p0 - v0 * t - 0.5 * a0 * t * t
    dv = v1 - v0 - a0 * t
    da = a1 - a0
    c3 = (20 * h - 8 * dv * t + da * t * t) / (2 * t ** 3)
    c4 = (-30 * h + 14 * dv * t - 2 * da * t * t) / (2 * t ** 4)
    c5 = (12 * h - 6 * dv * t + da * t * t) / (2 * t ** 5)
    return np.stack([c0, c1, c2, c3, c4, c5])


def _linear(p0, p1, t):
    z = np.zeros_like(p0)
    return np.stack([p0, (p1 - p0) / t, z, z, z, z])


def _cubic(p0, v0, p1, v1, t):
    c2 = (3 * (p1 - p0) - (2 * v0 + v1) * t) / t ** 2
    c3 = (-2 * (p1 - p0) + (v0 + v1) * t) / t ** 3
    z = np.zeros_like(p0)
    return np.stack([p0, v0, c2, c3, z, z])


#: Interpolations of JointTrajectory points (see SplineTrajectory).
KINDS = ('auto', 'quintic', 'cubic')


def _degrees(kind, m, carried):
    """Polynomial degree of each of the m segments: 5, 3 or 1."""
    if kind != 'auto':
        return [5 if kind == 'quintic' else 3] * m
    if carried is None:
        return [5] * m
    velocity = np.concatenate([[True], np.asarray(carried[0], dtype=bool)])
    acceleration = np.concatenate([[True], np.asarray(carried[1], dtype=bool)])
    both_v = velocity[:-1] & velocity[1:]
    both_a = acceleration[:-1] & acceleration[1:]
    return [5 if v and a else 3 if v else 1 for v, a in zip(both_v, both_a)]


def _coefficients(start, positions, vel, acc, durations, degrees):
    """(m, 6, n) ascending coefficients of every segment, all segments at once: point k-1
    (the start for k = 0) to point k over ``durations[k]`` [s], of degree ``degrees[k]``
    (5: quintic, 3: cubic, 1: linear)."""
    p = np.vstack([np.asarray(start[0], float), positions])
    v = np.vstack([np.asarray(start[1], float), vel])
    a = np.vstack([np.asarray(start[2], float), acc])
    t = durations[:, None]
    degree = np.asarray(degrees)[None, :, None]
    coeffs = np.where(degree == 5, _quintic(p[:-1], v[:-1], a[:-1], p[1:], v[1:], a[1:], t),
                      np.where(degree == 3, _cubic(p[:-1], v[:-1], p[1:], v[1:], t),
                               _linear(p[:-1], p[1:], t)))
    return np.ascontiguousarray(coeffs.transpose(1, 0, 2))


class SplineTrajectory:
    """Piecewise-polynomial reference through trajectory points.

    Args:
        start: (q, qd, qdd) at ``t0`` (the current state: the first segment starts there).
        times: (m,) times from start of each point [s], strictly increasing, > 0.
        positions: (m, n); velocities, accelerations: (m, n) or None (zeros).
        t0: start time [s] on the caller's clock.
        kind: 'auto' (the degree of each segment from what its end points carry, as
            JointTrajectoryController does; ``carried``), 'quintic' or 'cubic'.
        carried: ((m,) bool, (m,) bool): which points carry velocities and accelerations
            (kind 'auto'; default: all of them). The start carries both.
    """

    def __init__(self, start, times, positions, velocities=None, accelerations=None, t0=0.0,
                 kind='auto', carried=None):
        times = np.asarray(times, dtype=float)
        positions = np.asarray(positions, dtype=float)
        m = len(times)
        n = len(start[0])
        if m == 0 or positions.shape != (m, n):
            raise InputError(f'trajectory positions: expected ({m}, {n}), got {positions.shape}')
        if np.any(np.diff(times) <= 0) or times[0] <= 0:
            raise InputError('trajectory times must be > 0 and strictly increasing')
        if kind not in KINDS:
            raise InputError(f'unknown interpolation {kind!r}; valid: {", ".join(KINDS)}')
        vel = np.zeros((m, n)) if velocities is None else np.asarray(velocities, dtype=float)
        acc = np.zeros((m, n)) if accelerations is None else np.asarray(accelerations,
                                                                          dtype=float)
        if not (np.all(np.isfinite(positions)) and np.all(np.isfinite(vel))
                and np.all(np.isfinite(acc))):
            raise InputError('trajectory contains non-finite values')
        self.t0 = float(t0)
        self.knots = np.concatenate([[0.0], times])
        degrees = _degrees(kind, m, carried)
        self.coeffs = _coefficients(start, positions, vel, acc, np.diff(self.knots), degrees)
        self.degrees = degrees
        last = degrees[-1]
        self.end = (positions[-1], vel[-1] if last >= 3 else np.zeros(n),
                    acc[-1] if last == 5 else np.zeros(n))

    def polynomials(self):
        """((6, m, n) ascending power coefficients of every segment in the time from its
        start [s], (m,) segment durations [s]): what :mod:`.envelope` checks."""
        return np.ascontiguousarray(self.coeffs.transpose(1, 0, 2)), np.diff(self.knots)

    @property
    def duration(self):
        """Seconds from start to the last point."""
        return float(self.knots[-1])

    def __call__(self, t):
        """(q, qd, qdd) at time t [s]; holds the last point afterwards."""
        s = t - self.t0
        if s >= self.knots[-1]:
            p = self.end[0]
            return p.copy(), np.zeros_like(p), np.zeros_like(p)
        s = max(s, 0.0)
        k = int(np.searchsorted(self.knots, s, side='right') - 1)
        k = min(max(k, 0), len(self.coeffs) - 1)
        c = self.coeffs[k]
        x = s - self.knots[k]
        q = c[0] + x * (c[1] + x * (c[2] + x * (c[3] + x * (c[4] + x * c[5]))))
        qd = c[1] + x * (2 * c[2] + x * (3 * c[3] + x * (4 * c[4] + x * 5 * c[5])))
        qdd = 2 * c[2] + x * (6 * c[3] + x * (12 * c[4] + x * 20 * c[5]))
        return q, qd, qdd


def make_reference(kind, q0, amplitudes=None, periods=None, ramp=1.0):
    """Build a generator by name: 'hold', 'one_minus_cos', 'sum_of_sines'."""
    q0 = np.asarray(q0, dtype=float)
    n = len(q0)
    if kind == 'hold':
        return Hold(q0)
    if kind == 'one_minus_cos':
        lift = np.full(n, 0.5) if amplitudes is None else np.asarray(amplitudes, float).ravel()
        if lift.size == 1:  # one amplitude for every joint, as the parameter allows
            lift = np.full(n, lift[0])
        elif lift.size < n:
            raise InputError(f'one_minus_cos: {lift.size} amplitudes for {n} joints; give 1 '
                             f'or {n}')
        return OneMinusCos(q0, lift[:n], float(periods[0]) if periods is not None else 1.0)
    if kind == 'sum_of_sines':
        amp = np.asarray(amplitudes if amplitudes is not None else
                         np.linspace(0.3, 0.5, n), dtype=float)
        per = np.asarray(periods if periods is not None else np.linspace(2.0, 5.0, n),
                         dtype=float)
        amp = amp.reshape(n, -1) if amp.size % n == 0 else np.resize(amp, n).reshape(n, 1)
        per = per.reshape(n, -1) if per.size % n == 0 else np.resize(per, n).reshape(n, 1)
        if amp.shape != per.shape:
            raise InputError(f'amplitudes {amp.shape} and periods {per.shape} differ')
        return SumOfSines(q0, amp, per, ramp)
    raise InputError(f'unknown reference {kind!r}; valid: hold, one_minus_cos, sum_of_sines '
                     '(a trajectory arrives as a JointTrajectory message)')
