"""Figures the tool draws: a circle of the tool point at a fixed orientation, turned into a
joint trajectory (positions, velocities, accelerations per point) that either path's
FollowJointTrajectory server, or the node's ``~/joint_trajectory``, follows.

The circle lies in a plane of the base link frame through the tool's start point (the
centre ``radius`` behind it along the plane's first axis). Its phase starts and ends at
rest: the angular speed rises from 0 to 2 pi ``frequency`` over one period with a quintic
smoothstep s(u) = 10u^3 - 15u^4 + 6u^5 (phase 2 pi f T (2.5u^4 - 3u^5 + u^6)), holds for
``turns`` turns, and falls the same way, so the tool leaves and comes back to its start
point with zero velocity and acceleration after ``turns`` + 1 turns.

The joints: at each sample (``rate``) Gauss-Newton on the tip's pose error from the previous
sample's joints (minimal-norm steps: the redundant joints move only as the tool needs, and
stop when it stops), to below 1e-12 m and rad; velocities and accelerations by central differences
of those samples (5-point; their error is below 1e-8 rad/s at 1 kHz). Why joints and not
pose targets: pose targets move the reference through the follower's bounded filter, which
lags a moving target; a joint trajectory puts the reference's tool on the circle, so the
law's tracking of the figure is what a run measures.

Pure (numpy and the compiled tip frame); no ROS.
"""

from dataclasses import dataclass

import numpy as np

from ...errors import InputError

__all__ = ['Circle', 'FigureTrajectory', 'circle_trajectory']

PLANES = {'xy': (0, 1), 'yz': (1, 2), 'xz': (0, 2)}
#: Gauss-Newton stops below this pose error [m, rad] or after NEWTON_STEPS steps
TOLERANCE, NEWTON_STEPS = 1e-12, 20


@dataclass(frozen=True)
class Circle:
    """A circle of the tool point in the base link frame [m, Hz], started and ended at rest.

    Args:
        center: its centre (3,) [m, base link frame].
        radius: [m], > 0.
        frequency: turns per second at full speed [Hz], > 0.
        turns: full-speed turns (the ramps add one).
        plane: 'yz', 'xy' or 'xz' of the base link frame.
    """

    center: np.ndarray
    radius: float
    frequency: float
    turns: float = 2.0
    plane: str = 'yz'

    @property
    def duration(self) -> float:
        """[s]: the two ramps of one period each and the turns between."""
        return (self.turns + 2.0) / self.frequency

    def phase(self, t: float) -> tuple[float, float, float]:
        """(phi [rad], phi_dot [rad/s], phi_ddot [rad/s^2]) at t [s] from the start."""
        w, ramp = 2.0 * np.pi * self.frequency, 1.0 / self.frequency
        t = min(max(t, 0.0), self.duration)
        if t > self.duration - ramp:  # the fall mirrors the rise
            end, _, _ = self.phase_total()
            phi, phid, phidd = self._rise(self.duration - t, w, ramp)
            return end - phi, phid, -phidd
        if t < ramp:
            return self._rise(t, w, ramp)
        return w * ramp / 2.0 + w * (t - ramp), w, 0.0

    def phase_total(self) -> tuple[float, float, float]:
        """The phase at the end [rad] (2 pi (turns + 1)), at rest."""
        w, ramp = 2.0 * np.pi * self.frequency, 1.0 / self.frequency
        return w * ramp + w * (self.duration - 2.0 * ramp), 0.0, 0.0

    @staticmethod
    def _rise(t: float, w: float, ramp: float) -> tuple[float, float, float]:
        u = t / ramp
        return (w * ramp * u ** 4 * (2.5 - 3.0 * u + u * u), w * u ** 3 * (10.0 - 15.0 * u
                + 6.0 * u * u), w / ramp * 30.0 * u * u * (1.0 - u) ** 2)

    def point(self, t: float) -> np.ndarray:
        """The tool point (3,) [m, base link frame] at t [s]."""
        phi = self.phase(t)[0]
        first, second = PLANES[self.plane]
        p = np.array(self.center, dtype=float)
        p[first] += self.radius * np.cos(phi)
        p[second] += self.radius * np.sin(phi)
        return p


@dataclass(frozen=True)
class FigureTrajectory:
    """A figure's joint trajectory from the start configuration: ``times`` (m,) [s from the
    start, > 0, as trajectory points are], ``positions``, ``velocities``, ``accelerations``
    (m, n) in chain order [rad, rad/s, rad/s^2; m for a prismatic joint]."""

    times: np.ndarray
    positions: np.ndarray
    velocities: np.ndarray
    accelerations: np.ndarray


def circle_through(start: np.ndarray, radius: float, frequency: float, turns: float = 2.0,
                   plane: str = 'yz') -> Circle:
    """The circle whose phase 0 is ``start`` (3,) [m, base link frame]; InputError naming a
    value out of its range."""
    if plane not in PLANES:
        raise InputError(f'plane {plane!r}: valid {", ".join(PLANES)}')
    for name, value, high in (('radius', radius, 1.0), ('frequency', frequency, 5.0),
                              ('turns', turns, 100.0)):
        if not (np.isfinite(value) and 0.0 < value <= high):
            raise InputError(f'{name} {value!r}: expected in (0, {high:g}]')
    center = np.array(start, dtype=float)
    center[PLANES[plane][0]] -= radius
    return Circle(center, float(radius), float(frequency), float(turns), plane)


def circle_trajectory(model, q0, circle: Circle, rate: float = 1000.0,
                      every: int = 10) -> FigureTrajectory:
    """The joints that put the tool (``model``'s tip) on ``circle`` at the orientation it
    has at ``q0``, one point every ``every`` samples of ``rate`` [Hz]. InputError when a
    sample does not converge (the circle leaves the reach) or leaves the joint limits."""
    from ...dynamics import RigidBodyDynamics
    from ...dynamics.recursive.tip_frame import TipFrame
    frame = TipFrame(RigidBodyDynamics(model))
    base = model.dh_table('standard').base  # base link -> DH frame 0
    inv_r, inv_p = base[:3, :3].T, -base[:3, :3].T @ base[:3, 3]
    q = np.array(q0, dtype=float)
    rotation = frame.at(q)[1].copy()  # DH frame 0
    dt = 1.0 / rate
    count = int(np.ceil(circle.duration * rate)) + 1
    samples = np.empty((count + 4, len(q)))
    for k in range(-2, count + 2):
        goal = inv_r @ circle.point(k * dt) + inv_p
        q = _solve(frame, q, goal, rotation, k * dt)
        samples[k + 2] = q
    _within_limits(model, samples[2:-2])
    s = samples
    qd = (s[:-4] - 8.0 * s[1:-3] + 8.0 * s[3:-1] - s[4:]) / (12.0 * dt)
    qdd = (-s[:-4] + 16.0 * s[1:-3] - 30.0 * s[2:-2] + 16.0 * s[3:-1] - s[4:]) / (
        12.0 * dt * dt)
    pick = np.arange(every, count, every)  # the start (t = 0) is where the arm is: not a point
    if pick[-1] != count - 1:
        pick = np.append(pick, count - 1)
    return FigureTrajectory(pick * dt, s[2:-2][pick], qd[pick], qdd[pick])


def _solve(frame, q, goal, rotation, t) -> np.ndarray:
    from ..laws.cartesian_impedance import rotation_vector
    for _ in range(NEWTON_STEPS):
        jac, r, p = frame.at(q)
        error = np.concatenate([goal - p, rotation_vector(rotation @ r.T)])
        if np.max(np.abs(error)) < TOLERANCE:
            return q
        q = q + np.linalg.lstsq(jac, error, rcond=None)[0]
    raise InputError(f'the circle leaves the reach at t = {t:.3f} s (pose error '
                     f'{np.max(np.abs(error)):.1e} after {NEWTON_STEPS} steps)')


def _within_limits(model, samples) -> None:
    low, high = (np.array(v, dtype=float) for v in (model.lower, model.upper))
    out = (samples < low) | (samples > high)
    if np.any(out):
        k, i = np.argwhere(out)[0]
        raise InputError(f'the circle puts {model.joint_names[i]} at {samples[k, i]:.3f}, '
                         f'outside [{low[i]:.3f}, {high[i]:.3f}]')
