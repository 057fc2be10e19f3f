"""JointTrajectory message -> SplineTrajectory: the one conversion the controller and the
bag validation share, so the reference they use cannot disagree.

Messages are duck-typed (``joint_names``, ``points[k].positions/velocities/accelerations/
time_from_start.sec/nanosec``): rclpy messages and rosbags-deserialised ones both work.
"""

import numpy as np

from ...errors import InputError
from .envelope import first_excursion
from .trajectories import SplineTrajectory

__all__ = ['trajectory_from_message', 'START_TOLERANCE']

#: A first point at time_from_start 0 is taken as "the current state" when it lies within
#: this distance [rad or m] of the current reference; farther away it would be a jump.
START_TOLERANCE = 1e-2


def trajectory_from_message(msg, joint_map, start, t0, kind='auto', lower=None,
                            upper=None, velocity=None, acceleration=None):
    """Spline through a JointTrajectory's points, starting from the current reference.

    Args:
        msg: JointTrajectory (any object with its fields).
        joint_map: :class:`~robodyn_ros.control.joint_map.JointMap` of the chain.
        start: (q, qd, qdd) of the reference at ``t0``, chain order.
        t0: time [s] on the caller's reference clock at which the trajectory starts.
        kind: 'auto' (each segment's degree from what its points carry, as
            JointTrajectoryController's spline), 'quintic' or 'cubic'.
        lower, upper: (n,) admissible positions: the interpolated reference must stay
            inside, at and between the points.
        velocity: (n,) admissible |velocity| (inf: none), at and between the points.
        acceleration: (n,) admissible |acceleration| (inf: none), at and between the
            points (a position-only segment is linear: 0 inside, as the
            JointTrajectoryController's; its velocity steps at the points are not bounded).

    Returns:
        SplineTrajectory. Joints missing from the message hold their start position.

    Raises:
        InputError: unknown or duplicate joints, no points, lengths that differ from
            ``joint_names``, non-finite values, times not increasing, a reference that
            leaves [lower, upper] or exceeds ``velocity`` or ``acceleration`` anywhere
            (checked exactly on the
            interpolation, see envelope.py), or a first point at time 0 away from the
            current reference.
    """
    times, pos, vel, acc, carried = _decode_points(msg, joint_map, start[0])
    _check_limits(pos, lower, upper, joint_map.names)
    if times[0] < 0.0:
        raise InputError(f'point 0: time_from_start {times[0]:g} s is negative')
    if times[0] == 0.0:
        gap = float(np.max(np.abs(pos[0] - start[0])))
        if gap > START_TOLERANCE:
            raise InputError(f'first point at time_from_start 0 is {gap:.3g} away from the '
                             f'current reference (> {START_TOLERANCE}); give it a time > 0')
        times, pos, vel, acc = times[1:], pos[1:], vel[1:], acc[1:]
        carried = (carried[0][1:], carried[1][1:])
        if not len(times):
            return SplineTrajectory(start, [1e-3], [start[0]], None, None, t0=t0, kind=kind)
    spline = SplineTrajectory(start, times, pos, vel, acc, t0=t0, kind=kind, carried=carried)
    _check_envelope(spline, lower, upper, velocity, joint_map.names, acceleration)
    return spline


def _decode_points(msg, joint_map, hold):
    """(times, positions, velocities, accelerations, carried) of a JointTrajectory's points
    in chain order; joints it leaves out hold ``hold`` (positions) and 0.

    The names are resolved once and each field is copied as one (m, k) block: 10 000 points
    cost milliseconds, not the third of a second a per-point conversion took (it runs
    beside the control thread, sharing its interpreter lock)."""
    names = list(msg.joint_names)
    points = list(msg.points)
    if not points:
        raise InputError('trajectory has no points')
    try:
        columns = joint_map.columns(names)
    except InputError as exc:
        raise InputError(f'point 0: {exc}') from None
    m, k = len(points), len(columns)
    times = np.array([p.time_from_start.sec + p.time_from_start.nanosec * 1e-9
                      for p in points], dtype=float)
    pos = np.tile(np.asarray(hold, dtype=float), (m, 1))
    vel, acc = np.zeros((m, joint_map.n)), np.zeros((m, joint_map.n))
    carried = (np.array([len(p.velocities) > 0 for p in points]),
               np.array([len(p.accelerations) > 0 for p in points]))
    for field, out, rows in (('positions', pos, np.ones(m, dtype=bool)),
                             ('velocities', vel, carried[0]),
                             ('accelerations', acc, carried[1])):
        block = _block([getattr(points[i], field) for i in np.flatnonzero(rows)], k,
                       np.flatnonzero(rows))
        out[np.ix_(rows, columns)] = block
    if not np.isfinite(pos).all() or not np.isfinite(vel).all() or \
            not np.isfinite(acc).all() or not np.isfinite(times).all():
        raise InputError('trajectory contains non-finite values')
    return times, pos, vel, acc, carried


def _block(rows, k, where):
    """(len(rows), k) float array of one field's rows; InputError naming the first point
    (``where``: the rows' point indices) whose length is not ``k`` (one per joint name)."""
    lengths = np.array([len(row) for row in rows], dtype=np.intp)
    bad = np.flatnonzero(lengths != k)
    if bad.size:
        i = int(bad[0])
        raise InputError(f'point {int(where[i])}: expected {k} values (one per joint name), '
                         f'got {int(lengths[i])}')
    if not rows:
        return np.zeros((0, k))
    try:
        return np.array(rows, dtype=float).reshape(len(rows), k)
    except (TypeError, ValueError) as exc:
        raise InputError(f'trajectory values are not numbers: {exc}') from None


def _check_envelope(spline, lower, upper, velocity, names, acceleration=None):
    """InputError when the interpolated reference leaves [lower, upper] or exceeds
    ``velocity`` or ``acceleration`` between (or at) its points."""
    coeffs, durations = spline.polynomials()
    knots = spline.knots
    if lower is not None:
        out = first_excursion(coeffs, durations, lower, upper)
        if out is not None:
            raise InputError(
                f'the interpolated reference leaves the admissible range: {names[out.j]} '
                f'reaches {out.value:.4g} at {knots[out.k] + out.time:.3f} s (range '
                f'[{lower[out.j]:.4g}, {upper[out.j]:.4g}], limits minus reference_margin)')
    if velocity is not None:
        rates = coeffs[1:] * np.arange(1, coeffs.shape[0])[:, None, None]
        out = first_excursion(rates, durations, -velocity, velocity)
        if out is not None:
            raise InputError(
                f'the interpolated reference is too fast: {names[out.j]} reaches '
                f'{out.value:.4g} /s at {knots[out.k] + out.time:.3f} s (velocity limit '
                f'{velocity[out.j]:.4g}); give the points later times')
    if acceleration is not None:
        d = coeffs.shape[0]
        bends = coeffs[2:] * (np.arange(2, d) * np.arange(1, d - 1))[:, None, None]
        out = first_excursion(bends, durations, -acceleration, acceleration)
        if out is not None:
            raise InputError(
                f'the interpolated reference accelerates too hard: {names[out.j]} reaches '
                f'{out.value:.4g} /s^2 at {knots[out.k] + out.time:.3f} s (acceleration '
                f'limit {acceleration[out.j]:.4g}); give the points later times or smaller '
                'accelerations')


def _check_limits(pos, lower, upper, names):
    if lower is None:
        return
    bad = (pos < lower) | (pos > upper)
    if bad.any():
        k, j = (int(i) for i in np.argwhere(bad)[0])
        raise InputError(f'point {k}: {names[j]} = {pos[k, j]:.4g} outside the admissible '
                         f'range [{lower[j]:.4g}, {upper[j]:.4g}] (limits minus margin)')
