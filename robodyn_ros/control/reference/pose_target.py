"""A tool pose target (a policy's or a teleoperator's ~/target_pose) as a joint reference.

Targets come at 5-30 Hz and jump; some point outside the arm's reach or carry NaN. What
the law follows is never the target itself but a joint reference that moves towards it
within bounds a robot engineer sets:

1. :func:`pose_target` checks a target at the boundary: finite, a unit quaternion (within
   QUATERNION_SLACK, then normalised), in the chain's base frame, its position put inside
   the workspace box (and said so).
2. :class:`PoseFollower` moves a commanded pose towards the last accepted target at most at
   ``speed`` [m/s] and ``rotation_speed`` [rad/s] (along the geodesic), its velocity
   changing at most at ``speed`` / RISE_TIME (and braking to arrive at rest), and drives the
   joint reference to it by damped least squares, q_r' = J^T (J J^T + mu^2 1)^-1 (x_c' +
   IK_RATE e) + N k (q_p - q_r), with e the pose error of FK(q_r) to the commanded pose
   (position; rotation vector of R_c R^T; the commanded pose leads the reference's tool by
   at most LEAD, ROTATION_LEAD) and N = 1 - J^+ J the nullspace, where a posture
   spring pulls the joints towards the middle of their range (away from the limits).
   The joint velocity is then scaled into the velocity limits (one factor: the tool's path
   keeps its direction), its change into the acceleration limits, and each joint brakes
   before its position limit with the deceleration it is allowed, so the reference never
   leaves the limits in position, velocity or acceleration.

It advances in fixed steps of ``period`` (at most MAX_STEPS a call: after a long pause the
reference lags rather than jumps). When targets stop, it holds the last one.

Frames: targets in the chain's base link frame; the follower works in DH frame 0
(DHTable.base maps one to the other). J: seed 000 eqs. 23-24 (dynamics/recursive/
tip_frame.py).
"""

from typing import NamedTuple

import numpy as np

from ...errors import InputError
from ...model.spatial import axis_angle_matrix

__all__ = ['IK_RATE', 'MAX_STEPS', 'PoseFollower', 'PoseTarget', 'PoseTargets',
           'TargetBounds', 'pose_target', 'workspace_box']

#: How fast the reference closes its pose error to the commanded pose [1/s] (that correction
#: at most the commanded pose's speeds): well below 1 / VELOCITY_TIME and the jerk-bounded
#: response of the heavy joints, which a faster loop set oscillating.
IK_RATE = 10.0
#: Damping of the least-squares inverse [m, rad]: below it a direction of J counts as lost
#: (near a singularity the joint speed it asks for is at most 1 / (2 MU) x the pose rate).
MU = 0.05
#: Damping of the nullspace projector's inverse: small, so that the posture moves no tool
#: direction (the posture rate is small: its projection stays bounded near singularities).
NULL_MU = 1e-3
#: How far the commanded pose may lead the reference's tool [m, rad]: a target out of reach
#: or beyond the joint limits leaves the commanded pose this close, not running away.
LEAD, ROTATION_LEAD = 0.05, 0.2
#: Below this smallest singular value of J [m, rad] the task's joint velocity is scaled by
#: sigma / SIGMA_SLOW: at the edge of the reach (a target beyond it) the reference slows
#: into the singularity instead of crossing it at speed and swinging back through it (the
#: least-squares direction flips there: the elbow oscillated at 2.5 Hz, +-1.1 rad/s).
SIGMA_SLOW = 0.1
#: What /diagnostics' ``singularity`` says while the follower is slowed near one (the same
#: words on both paths).
SLOWED = f"slowed near a singularity (J's smallest singular value below {SIGMA_SLOW:g})"
#: Rate of the nullspace posture spring [1/s].
POSTURE_RATE = 2.0
#: How long the commanded pose takes to reach its speed from rest [s] (its acceleration:
#: ``speed`` / RISE_TIME, linear and angular alike).
RISE_TIME = 0.25
#: The share of the torque rate limit the reference's jerk may ask of M(q): joint i's jerk
#: is at most JERK_SHARE x torque_rate / M_ii(q), so that M q_r''' stays well within what
#: the rate limit lets through (the rest: the Coriolis and gravity terms' changes and the
#: feedback). A reference whose acceleration steps (72 N m of M q_r'' in one cycle seen)
#: is one the arm cannot follow: its tracking runs away.
JERK_SHARE = 0.25
#: M's diagonal is evaluated again every this many steps (it changes with the posture).
INERTIA_EVERY = 20
#: Time constant of the reference's velocity following the least-squares velocity [s]:
#: its acceleration is the velocity error over it (within the jerk and acceleration limits,
#: and at most sqrt(2 j |error|), so that it arrives without overshoot).
VELOCITY_TIME = 0.02
#: Steps a call may advance (each ``period``).
MAX_STEPS = 10
#: The share of the velocity and acceleration limits the follower plans with: its
#: reference stays well inside the bounds a supervisor checks and its guards watch (an arm
#: overshoots a reference that runs at the limit).
LIMIT_SHARE = 0.5
#: Joint speed and acceleration a follower assumes where the model and parameters give none
#: [rad/s, rad/s^2] (a URDF without velocity limits).
FALLBACK_SPEED, FALLBACK_ACCELERATION = 1.0, 10.0
#: How far a quaternion's norm may be from 1 and still be taken (then normalised).
QUATERNION_SLACK = 0.01


class TargetBounds(NamedTuple):
    """How a target may move the reference: ``speed`` [m/s] and ``rotation_speed`` [rad/s]
    of the commanded pose, ``box`` (6,) the workspace [x y z min, x y z max] in the base
    link frame [m], ``torque_rate`` [N m/s] the law's torque rate limit (the reference's
    jerk is bounded by JERK_SHARE of it over M's diagonal)."""

    speed: float
    rotation_speed: float
    box: tuple
    torque_rate: float = float('inf')


class PoseTarget(NamedTuple):
    """A checked target in DH frame 0: ``position`` (3,) [m], ``rotation`` (3, 3) the tool's
    axes; ``clamped`` when the box moved its position."""

    position: np.ndarray
    rotation: np.ndarray
    clamped: bool


def workspace_box(model) -> tuple:
    """The default box: a cube about the base link's origin, the chain's reach on each side:
    sum of hypot(a, d) of its standard DH rows (and a prismatic joint's longest stroke),
    plus the base's and the tool's offsets [m] (the C++ controller derives the same)."""
    table = model.dh_table('standard')
    reach = float(np.linalg.norm(table.base[:3, 3]) + np.linalg.norm(table.tool[:3, 3]))
    for row, joint in zip(table.rows, model.joints):
        reach += float(np.hypot(row.a, row.d))
        if row.joint_type == 'prismatic':
            reach += max(abs(joint.lower), abs(joint.upper))
    return (-reach, -reach, -reach, reach, reach, reach)


def _rotation(x: float, y: float, z: float, w: float) -> np.ndarray:
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def pose_target(position, quaternion, frame_id: str, base_link: str, base: np.ndarray,
                box) -> PoseTarget:
    """The target at ``position`` (3,) [m] with orientation ``quaternion`` (x, y, z, w) in
    frame ``frame_id`` ('' or ``base_link``), as a PoseTarget in DH frame 0 (``base``: the
    base link -> frame 0 transform, DHTable.base). InputError, one line, if it is not
    finite, not a unit quaternion, or in another frame."""
    p = np.array(position, dtype=float)
    quat = np.array(quaternion, dtype=float)
    if not (np.all(np.isfinite(p)) and np.all(np.isfinite(quat))):
        raise InputError(f'target pose not finite: position {p.tolist()}, orientation '
                         f'{quat.tolist()}')
    if frame_id not in ('', base_link):
        raise InputError(f"target pose in frame '{frame_id}': targets are in the chain's "
                         f"base frame '{base_link}'")
    norm = float(np.linalg.norm(quat))
    if abs(norm - 1.0) > QUATERNION_SLACK:
        raise InputError(f'target orientation {quat.tolist()} has norm {norm:.4g}: a unit '
                         f'quaternion (x, y, z, w) is expected (within {QUATERNION_SLACK})')
    low, high = np.asarray(box[:3], dtype=float), np.asarray(box[3:], dtype=float)
    inside = np.clip(p, low, high)
    inverse = np.linalg.inv(base)
    rotation = inverse[:3, :3] @ _rotation(*(quat / norm))
    return PoseTarget(inverse[:3, :3] @ inside + inverse[:3, 3], rotation,
                      bool(np.any(inside != p)))


class PoseFollower:
    """A joint reference following pose targets (module docstring), from the reference
    (q, qd) it takes over. Not thread-safe except :meth:`aim` (one assignment) and
    :meth:`__call__` (reads the last step).

    Args:
        frame: the tip frame kernel (dynamics.recursive.tip_frame.TipFrame).
        q, qd: (n,) where the reference is when the follower takes over.
        lower, upper, velocity, acceleration: (n,) the admissible reference positions,
            |velocities| and |accelerations| (finite).
        bounds: TargetBounds.
        period: the control period [s], the follower's step.
        inertia: q -> (n,) M(q)'s diagonal [kg m^2 or kg] (the jerk bound); None: no jerk
            bound (a torque_rate that is not finite has none either).
    """

    def __init__(self, frame, q, qd, lower, upper, velocity, acceleration,
                 bounds: TargetBounds, period: float, inertia=None):
        self.frame, self.bounds, self.h = frame, bounds, float(period)
        self.lower, self.upper = np.asarray(lower, float), np.asarray(upper, float)
        velocity, acceleration = np.asarray(velocity, float), np.asarray(acceleration, float)
        self.vmax = LIMIT_SHARE * np.where(np.isfinite(velocity), velocity, FALLBACK_SPEED)
        self.amax = LIMIT_SHARE * np.where(np.isfinite(acceleration), acceleration,
                                           FALLBACK_ACCELERATION)
        self.q = np.clip(np.array(q, dtype=float), self.lower, self.upper)
        self.qd = np.array(qd, dtype=float)
        self.qdd = np.zeros_like(self.q)
        self.inertia = inertia if np.isfinite(bounds.torque_rate) else None
        self.jerk = np.full(self.q.shape, np.inf)  # [rad/s^3] (_jerk_bound)
        self.steps = 0
        self.slowed = False  # the last step was slowed near a singularity (SIGMA_SLOW)
        span = self.upper - self.lower
        self.posture = np.clip(self.q, self.lower + 0.2 * span, self.upper - 0.2 * span)
        _, rotation, point = frame.at(self.q)
        self.p_c, self.r_c = point.copy(), rotation.copy()
        self.target: tuple = (self.p_c.copy(), self.r_c.copy())
        self.v_c, self.w_c = np.zeros(3), np.zeros(3)  # the commanded pose's velocity
        self.t: float | None = None

    def aim(self, target: PoseTarget) -> None:
        """Follow ``target`` from now on (any thread: one assignment)."""
        self.target = (np.array(target.position), np.array(target.rotation))

    def __call__(self, t: float):
        """(q_r, qd_r, qdd_r) of the last step (copies; changes nothing)."""
        return self.q.copy(), self.qd.copy(), self.qdd.copy()

    def advance(self, t: float):
        """Step to time ``t`` [s] (at most MAX_STEPS steps) and return the reference."""
        if self.t is None:
            self.t = t
        steps = int(min(MAX_STEPS, np.floor((t - self.t) / self.h + 1e-9)))
        for _ in range(max(steps, 0)):
            self._step()
        if steps > 0:
            self.t = max(self.t + steps * self.h, t - self.h)
        return self(t)

    def _commanded(self):
        """Move the commanded pose one step towards the target; its velocity (6,).

        Its linear and angular velocities each reach the target's direction at a bounded
        acceleration (``speed`` / RISE_TIME) and brake to arrive at rest (at most
        sqrt(2 a d) at distance d): a target that jumps changes the reference's
        acceleration, not its velocity, in one step."""
        from ..laws.cartesian_kernel import rotation_vector_into
        p_t, r_t = self.target
        h, b = self.h, self.bounds
        self.v_c = _approach(p_t - self.p_c, self.v_c, b.speed, h)
        rv = np.empty(3)
        rotation_vector_into(np.ascontiguousarray(r_t @ self.r_c.T), rv)
        self.w_c = _approach(rv, self.w_c, b.rotation_speed, h)
        self.p_c = self.p_c + self.v_c * h
        self.r_c = _exp(self.w_c * h) @ self.r_c
        return np.concatenate([self.v_c, self.w_c])

    def _step(self) -> None:
        from ..laws.cartesian_kernel import rotation_vector_into
        xd_c = self._commanded()
        jac, rotation, point = self.frame.at(self.q)
        e = np.empty(6)
        e[:3] = self.p_c - point
        dist = float(np.linalg.norm(e[:3]))
        if dist > LEAD:  # the commanded pose waits for the reference (a target out of reach)
            e[:3] *= LEAD / dist  # at rest there: no push beyond the correction's
            self.p_c, self.v_c, xd_c[:3] = point + e[:3], np.zeros(3), 0.0
        rotation_vector_into(np.ascontiguousarray(self.r_c @ rotation.T), e[3:])
        angle = float(np.linalg.norm(e[3:]))
        if angle > ROTATION_LEAD:
            e[3:] *= ROTATION_LEAD / angle
            self.r_c, self.w_c, xd_c[3:] = _exp(e[3:]) @ rotation, np.zeros(3), 0.0
        correction = IK_RATE * e  # at most the commanded pose's own speeds
        _cap(correction[:3], self.bounds.speed)
        _cap(correction[3:], self.bounds.rotation_speed)
        jjt = jac @ jac.T
        task = jac.T @ np.linalg.solve(jjt + MU * MU * np.eye(6), xd_c + correction)
        sigma = _smallest_singular_value(jjt, len(self.q))
        self.slowed = sigma < SIGMA_SLOW
        task *= min(1.0, sigma / SIGMA_SLOW)
        rest = POSTURE_RATE * (self.posture - self.q)
        null = jac.T @ np.linalg.solve(jjt + NULL_MU * NULL_MU * np.eye(6), jac @ rest)
        wanted = task + rest - null
        self._move(wanted)

    def _move(self, wanted: np.ndarray) -> None:
        """The step towards joint velocity ``wanted`` the limits allow: the velocity scaled
        into vmax (one factor), capped where braking must begin before a position limit,
        followed at a bounded acceleration whose change is bounded by the jerk."""
        h = self.h
        if self.steps % INERTIA_EVERY == 0:
            self._jerk_bound()
        self.steps += 1
        ratio = float(np.max(np.abs(wanted) / self.vmax))
        if ratio > 1.0:
            wanted = wanted / ratio
        # braking at half amax, from where the deceleration has had time to ramp up
        brake = 0.5 * self.amax
        lag = np.abs(self.qd) * np.minimum(brake / self.jerk, 1.0) + np.abs(self.qd) * h
        up = np.sqrt(2.0 * brake * np.maximum(self.upper - self.q - lag, 0.0))
        down = np.sqrt(2.0 * brake * np.maximum(self.q - self.lower - lag, 0.0))
        wanted = np.clip(wanted, -down, up)
        error = wanted - self.qd
        size = np.minimum(np.minimum(np.abs(error) / VELOCITY_TIME, self.amax),
                          np.sqrt(2.0 * self.jerk * np.abs(error)))
        change = np.clip(np.sign(error) * size - self.qdd, -self.jerk * h, self.jerk * h)
        qdd = self.qdd + change
        qd = self.qd + qdd * h
        q = self.q + qd * h
        stopped = (q < self.lower) | (q > self.upper)  # only where braking came too late
        qd[stopped], qdd[stopped] = 0.0, (0.0 - self.qd[stopped]) / h
        self.q, self.qd, self.qdd = np.clip(q, self.lower, self.upper), qd, qdd

    def _jerk_bound(self) -> None:
        """Each joint's jerk bound [rad/s^3] at the reference's posture (JERK_SHARE)."""
        if self.inertia is not None:
            diagonal = np.maximum(np.asarray(self.inertia(self.q), dtype=float), 1e-9)
            self.jerk = JERK_SHARE * self.bounds.torque_rate / diagonal


def _smallest_singular_value(jjt: np.ndarray, n: int) -> float:
    """The smallest of J's min(6, n) singular values from J J^T (6, 6): the root of its
    eigenvalue 6 - min(6, n) in ascending order (an arm of fewer than six joints has
    6 - n zero eigenvalues by its structure, not by a singularity)."""
    least = float(np.linalg.eigvalsh(jjt)[6 - min(6, n)])
    return float(np.sqrt(max(least, 0.0)))


def _cap(vector: np.ndarray, size: float) -> None:
    """Scale ``vector`` (in place) to a norm of at most ``size``."""
    norm = float(np.linalg.norm(vector))
    if norm > size:
        vector *= size / norm


def _approach(error: np.ndarray, velocity: np.ndarray, speed: float, h: float) -> np.ndarray:
    """The next velocity (3,) of a point ``error`` away from where it should stop, moving at
    ``velocity``: towards it at most at ``speed``, at most sqrt(2 a |error|) so that it
    stops there, and at most |error| / h (no overshoot in one step); reached at an
    acceleration of at most a = speed / RISE_TIME."""
    accel = speed / RISE_TIME
    dist = float(np.linalg.norm(error))
    wanted = np.zeros(3) if dist < 1e-12 else error * (
        min(speed, np.sqrt(2.0 * accel * dist), dist / h) / dist)
    change = wanted - velocity
    size = float(np.linalg.norm(change))
    if size > accel * h:
        change *= accel * h / size
    return velocity + change


def _exp(rv: np.ndarray) -> np.ndarray:
    """The rotation of rotation vector ``rv`` [rad] (Rodrigues: model.spatial)."""
    angle = float(np.linalg.norm(rv))
    if angle < 1e-12:
        return np.eye(3)
    return axis_angle_matrix(rv / angle, angle)


class PoseTargets:
    """A core's pose input: checks each target (:func:`pose_target`) and aims the reference
    manager's follower at it, starting one from the current reference when another
    reference runs. ``status`` says what the last target did ('none' before any).

    Args:
        dyn: the chain's RigidBodyDynamics.
        reference: the core's ReferenceManager (its admissible positions and limits).
        bounds: TargetBounds (an empty box: :func:`workspace_box`).
        period: the control period [s].
    """

    def __init__(self, dyn, reference, bounds: TargetBounds, period: float):
        from ...dynamics.recursive.tip_frame import TipFrame
        self.frame, self.reference, self.period = TipFrame(dyn), reference, period
        box = tuple(bounds.box) if len(bounds.box) == 6 else workspace_box(dyn.model)
        self.bounds = bounds._replace(box=box)
        self.inertia = lambda q: np.diag(dyn.mass_matrix(q))
        self.base_link = dyn.model.base_link
        self.base = dyn.model.dh_table('standard').base
        self.status = 'none'

    @property
    def singularity(self) -> str:
        """What /diagnostics says of the follower and singularities: 'none', or that its
        last step was slowed near one (the reference's tool Jacobian's smallest singular
        value below SIGMA_SLOW)."""
        follower = self.reference.generator
        if isinstance(follower, PoseFollower) and follower.slowed:
            return SLOWED
        return 'none'

    def warm_up(self, q) -> None:
        """Load the follower's compiled kernels at ``q`` (before the first cycle: a first
        target must not stall one)."""
        from ..laws.cartesian_kernel import rotation_vector_into
        _, rotation, _ = self.frame.at(q)
        rotation_vector_into(np.ascontiguousarray(rotation), np.empty(3))

    def take(self, t: float, position, quaternion, frame_id: str) -> tuple[bool, str]:
        """Follow the target from reference time ``t`` [s]; (taken, what it did)."""
        try:
            target = pose_target(position, quaternion, frame_id, self.base_link, self.base,
                                 self.bounds.box)
        except InputError as exc:
            self.status = f'refused: {exc}'
            return False, self.status
        manager = self.reference
        follower = manager.generator
        if not isinstance(follower, PoseFollower):
            q, qd, _ = manager(t)
            follower = PoseFollower(self.frame, q, qd, manager.lower, manager.upper,
                                    manager.velocity, manager.acceleration, self.bounds,
                                    self.period, self.inertia)
            manager.follow_generator(follower, t, 'pose')
        follower.aim(target)
        self.status = 'clamped to the workspace box' if target.clamped else 'following'
        return True, self.status
