"""The controller's current reference q_r(t), qd_r(t), qdd_r(t) and how it changes.

Time ``t`` is the controller's reference clock [s] (the joint-state stamps' time base, see
:class:`~robodyn_ros.control.controller_core.ControllerCore`). Every reference is checked
against the admissible positions (joint limits minus ``reference_margin``) before it is
accepted; a rejected one leaves the current reference in place.
"""

from typing import Any, NamedTuple

import numpy as np

from ...errors import InputError
from .trajectories import Hold, SplineTrajectory, SumOfSines, make_reference
from .trajectory_message import trajectory_from_message

__all__ = ['ReferenceManager', 'PreparedTrajectory']


class ReferenceManager:
    """Holds the active reference generator and its start time.

    Args:
        joint_map: JointMap of the chain.
        lower, upper: (n,) admissible reference positions [rad or m].
        velocity: (n,) admissible |reference velocity| [rad/s or m/s] (inf or None: none).
        acceleration: (n,) admissible |reference acceleration| [rad/s^2 or m/s^2] (inf or
            None: none).
        interpolation: 'auto' (as JointTrajectoryController), 'quintic' or 'cubic' for
            JointTrajectory messages.
    """

    def __init__(self, joint_map, lower, upper, interpolation='auto', velocity=None,
                 acceleration=None):
        self.joint_map = joint_map
        self.lower = np.asarray(lower, dtype=float)
        self.upper = np.asarray(upper, dtype=float)
        unbounded = np.full(len(self.lower), np.inf)
        self.velocity = unbounded if velocity is None else np.asarray(velocity, dtype=float)
        self.acceleration = unbounded if acceleration is None else \
            np.asarray(acceleration, dtype=float)
        self.interpolation = interpolation
        self.generator = None
        self.t0 = 0.0
        self.kind = 'none'

    @property
    def started(self):
        """True once a reference exists."""
        return self.generator is not None

    def __call__(self, t):
        """(q_r, qd_r, qdd_r) at reference time t [s]; before its start, the start point
        at rest. A generator that steps (a PoseFollower) is advanced to t: call this from
        the control thread only."""
        advance = getattr(self.generator, 'advance', None)
        if advance is not None:
            return advance(t - self.t0)
        return _sample(self.generator, self.t0, t)

    def follow_generator(self, generator, t, kind):
        """Follow ``generator`` (its own limits checked: a PoseFollower) from time t."""
        self.generator, self.t0, self.kind = generator, t, kind

    def hold(self, q, t):
        """Hold position ``q`` (no limit check: it is where the arm is)."""
        self.generator, self.t0, self.kind = Hold(np.array(q, dtype=float)), t, 'hold'

    def start(self, kind, q0, t, amplitudes=None, periods=None, ramp=1.0):
        """Start a named reference from ``q0`` at time t; InputError if it could leave the
        admissible range or exceed the velocity or acceleration limits (bounds with S =
        sum A sin(w t) under the quintic envelope e of the smooth start: q0 +- sum |A|;
        sum |A| w + 1.875 sum |A| / ramp; sum |A| w^2 + 2 (1.875 / ramp) sum |A| w +
        (5.7735 / ramp^2) sum |A|, from (e S)'' = e'' S + 2 e' S' + e S'' with max e' =
        1.875 / ramp and max |e''| = 5.7735 / ramp^2)."""
        generator = make_reference(kind, q0, amplitudes, periods, ramp)
        speed = np.zeros(len(generator.q0))
        accel = np.zeros(len(generator.q0))
        if isinstance(generator, SumOfSines):
            reach = np.abs(generator.amplitudes).sum(axis=1)
            lo, hi = generator.q0 - reach, generator.q0 + reach
            rate, curvature = np.abs(generator._aw).sum(axis=1), \
                np.abs(generator._aww).sum(axis=1)
            slope = 1.875 / generator.ramp if generator.ramp > 0 else 0.0
            bend = 5.7735 / generator.ramp ** 2 if generator.ramp > 0 else 0.0
            speed = rate + slope * reach
            accel = curvature + 2.0 * slope * rate + bend * reach
        elif kind == 'one_minus_cos':
            lo = np.minimum(generator.q0, generator.q0 + 2 * generator.amplitude)
            hi = np.maximum(generator.q0, generator.q0 + 2 * generator.amplitude)
            w = 2.0 * np.pi / generator.period
            speed = np.abs(generator.amplitude) * w
            accel = speed * w
        else:
            lo = hi = generator.q0
        names = self.joint_map.names
        bad = np.flatnonzero((lo < self.lower) | (hi > self.upper))
        if bad.size:
            j = int(bad[0])
            raise InputError(f'{kind} reference spans [{lo[j]:.4g}, {hi[j]:.4g}] on '
                             f'{names[j]}, outside the admissible range '
                             f'[{self.lower[j]:.4g}, {self.upper[j]:.4g}]')
        bad = np.flatnonzero(speed > self.velocity)
        if bad.size:
            j = int(bad[0])
            raise InputError(f'{kind} reference may reach {speed[j]:.4g} /s on {names[j]}, '
                             f'above its velocity limit {self.velocity[j]:.4g}')
        bad = np.flatnonzero(accel > self.acceleration)
        if bad.size:
            j = int(bad[0])
            raise InputError(f'{kind} reference may reach {accel[j]:.4g} /s^2 on {names[j]}, '
                             f'above its acceleration limit {self.acceleration[j]:.4g}')
        self.generator, self.t0, self.kind = generator, t, kind

    def prepare(self, msg, t, max_points=None):
        """A JointTrajectory as a :class:`PreparedTrajectory` starting at time ``t`` from the
        current reference; InputError if rejected (more than ``max_points`` points, counted
        before anything is decoded; a malformed message). Reads the reference and changes
        nothing: a thread other than the control thread may call it (a long trajectory is
        converted there); :meth:`adopt` then swaps it in."""
        if max_points is not None and len(msg.points) > max_points:
            raise InputError(f'{len(msg.points)} points, more than max_trajectory_points '
                             f'({max_points})')
        generator, t0 = self.generator, self.t0  # one snapshot: the control thread may swap
        if generator is None:
            raise InputError('no reference yet (no valid joint state since activation)')
        start = _sample(generator, t0, t)
        try:
            spline = trajectory_from_message(msg, self.joint_map, start, 0.0,
                                             self.interpolation, self.lower, self.upper,
                                             self.velocity, self.acceleration)
        except (TypeError, AttributeError, ValueError) as exc:  # a malformed message
            raise InputError(str(exc)) from exc
        return PreparedTrajectory(spline, t, generator, t0)

    def adopt(self, prepared, t=None):
        """Follow a prepared trajectory; InputError when the reference it starts from was
        replaced meanwhile (it would not start where the arm is going). Returns its
        duration [s].

        ``t``: the adopting cycle's reference time [s]. A trajectory converted from a still
        reference (a hold, or a trajectory past its end) starts then, as
        JointTrajectoryController starts a goal at its first update after it: its start
        point did not move meanwhile, so the reference leaves it as the first segment
        does, however long the conversion waited (tens of ms on a loaded machine; a start
        that far into a segment leaving rest is a step of its velocity). One converted from
        a moving reference keeps its conversion time: its start moved on with it."""
        if prepared.base is not self.generator or prepared.base_t0 != self.t0:
            raise InputError('the reference changed while the trajectory was converted; '
                             'send it again')
        start = prepared.t
        if t is not None and t > start and _still(prepared.base, prepared.base_t0, start):
            start = t
        self.generator, self.t0, self.kind = prepared.spline, start, 'trajectory'
        return prepared.spline.duration

    def follow(self, msg, t):
        """Follow a JointTrajectory from the current reference at time t (InputError if
        rejected; the current reference stays)."""
        return self.adopt(self.prepare(msg, t))


def _still(generator, t0, t):
    """True when ``generator`` started at ``t0`` stands still from time t [s] on."""
    return isinstance(generator, Hold) or (
        isinstance(generator, SplineTrajectory) and t - t0 >= generator.duration)


def _sample(generator, t0, t):
    """(q, qd, qdd) of ``generator`` started at ``t0``, at time t [s]; before t0 its start
    point at rest."""
    if t < t0:  # fresh writeable arrays, as every generator but Hold returns
        q = np.array(generator(0.0)[0])
        return q, np.zeros_like(q), np.zeros_like(q)
    return generator(t - t0)


class PreparedTrajectory(NamedTuple):
    """A converted trajectory (``spline`` from time ``t``) and the reference it starts from
    (``base`` generator started at ``base_t0``)."""

    spline: Any
    t: float
    base: Any
    base_t0: float
