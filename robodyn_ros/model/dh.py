"""Denavit-Hartenberg extraction for an arbitrary URDF chain, with inertials in DH frames.

Frames are built from the joint axes at q = 0 (seed 001 section 2, seed 003):

* standard: frame i-1 has z along joint i's axis (same sign as the URDF axis, so q
  adds to theta or d with a + sign); frame i sits on axis i+1 with x along the common
  normal from axis i to axis i+1;
* modified (Craig): frame i has z along joint i's axis and its origin on that axis,
  x along the same common normal.

Degenerate cases are resolved so the table stays exact and short:

* intersecting axes: x = +-(z_i x z_{i+1}), origin at the intersection;
* parallel axes: the common normal through the previous origin (d = 0);
* nearly parallel axes (vendors round pi/2 to 1.5708; calibrated kinematics tilt axes by
  1e-4..1e-3 rad), whose common normal lies farther from the previous origin than the
  chain is long: Hayati's extra rotation ``beta`` about the new y axis, as calibration
  practice does (A = Rz(theta) Tz(d) Tx(a) Rx(alpha) Ry(beta) with d = 0: frame i sits
  where axis i+1 crosses the plane through the previous origin normal to axis i), so
  frames stay on the links and the table stays exact; ``beta`` is 0 on every other row.
  The modified convention has no such row: a chain it cannot represent exactly is
  refused by the FK check below;
* collinear axes: x and the origin are carried over from the previous frame;
* the sign of every x axis is chosen so that theta_offset lies in (-pi/2, pi/2]
  (a may then be negative);
* the base frame and the last frame are the URDF base and tip link frames whenever
  those are DH-compatible (base = tool = identity), else the nearest DH frame and
  the remainder goes into ``base`` / ``tool``.
"""

from dataclasses import dataclass, replace

import numpy as np

from ..errors import InputError
from .spatial import dh_modified, dh_standard, invert_transform, rot_y

__all__ = ['DHRow', 'DHTable', 'dh_table']

EPS = 1e-9
CONVENTIONS = ('standard', 'modified')
#: A table is refused when its FK differs from the URDF's by more than this fraction of the
#: chain's reach (and this many radians; x n / 10 beyond 10 joints): a nanometre per metre,
#: a thousand times below the repeatability of the most precise arm (about 1e-6 m per m)
#: and a thousand times above what double-precision roundoff leaves on a chain of
#: correctly built frames (1e-13 to 1e-12). A table that is wrong (a frame misplaced by a
#: wrong common normal) is off by millimetres; one rounded to its last digits is not.
#: ``DHTable.fk_error`` holds what the table achieves (the tests hold it to 1e-12).
FK_TOLERANCE = 1e-9


@dataclass(frozen=True)
class DHRow:
    """One DH row. Revolute: theta = q + theta_offset. Prismatic: d = q + d (offset).
    ``beta``: Hayati's rotation about y for nearly parallel axes [rad], else 0."""

    joint_name: str
    joint_type: str
    a: float
    alpha: float
    d: float
    theta_offset: float
    beta: float = 0.0


@dataclass(frozen=True)
class DHTable:
    """DH rows plus fixed ``base`` (base_link -> frame 0) and ``tool`` (frame n -> tip).

    ``inertials``: body i's :class:`~robodyn_ros.model.inertial.Inertial` in DH frame i
    (seed 003 eq. 45-49: mass, COM, inertia about the COM; ``inertia_origin`` about the
    frame origin); ``body_to_dh``: each body frame's pose of DH frame i.
    """

    convention: str
    rows: tuple
    base: np.ndarray
    tool: np.ndarray
    inertials: tuple
    body_to_dh: tuple
    fk_error: float = 0.0  # worst FK difference from the URDF / reach (see FK_TOLERANCE)

    @property
    def n(self):
        """Number of rows (joints)."""
        return len(self.rows)

    def link_transform(self, i, qi):
        """Transform of row ``i`` (0-based) at joint position ``qi``."""
        row = self.rows[i]
        theta = row.theta_offset + (0.0 if row.joint_type == 'prismatic' else qi)
        d = row.d + (qi if row.joint_type == 'prismatic' else 0.0)
        if self.convention == 'standard':
            return dh_standard(row.a, row.alpha, d, theta, row.beta)
        return dh_modified(row.a, row.alpha, d, theta)

    def frames(self, q):
        """Poses of DH frames 1..n in the base_link frame."""
        t, out = self.base.copy(), []
        for i, qi in enumerate(np.asarray(q, dtype=float)):
            t = t @ self.link_transform(i, qi)
            out.append(t)
        return out

    def fk(self, q):
        """Tip pose in the base_link frame from the DH table: base * A_1...A_n * tool."""
        if np.shape(q) != (self.n,):
            raise InputError(f'q: expected ({self.n},), got {np.shape(q)}')
        return self.frames(q)[-1] @ self.tool


def _unit(v):
    return v / np.linalg.norm(v)


def _perp(v, z):
    """Component of v orthogonal to unit z, or None when (nearly) parallel."""
    w = v - (v @ z) * z
    n = np.linalg.norm(w)
    return w / n if n > 1e-6 else None


def _any_perp(z):
    trial = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    return _perp(trial, z)


def _common_normal(p1, z1, p2, z2, ref, x_prev):
    """Feet (on line 1, on line 2) and unit direction of the common normal."""
    cross = np.cross(z1, z2)
    w = p2 - p1
    if np.linalg.norm(cross) < EPS:  # parallel or collinear
        foot1 = p1 + ((ref - p1) @ z1) * z1
        delta = p2 - foot1
        delta -= (delta @ z2) * z2
        if np.linalg.norm(delta) < EPS:
            return foot1, foot1.copy(), x_prev.copy()
        return foot1, foot1 + delta, _unit(delta)
    n = _unit(cross)
    # Closest points: p1 + s z1 and p2 + t z2.
    a, b, c = z1 @ z1, z1 @ z2, z2 @ z2
    d, e = z1 @ w, z2 @ w
    den = a * c - b * b
    s = (d * c - b * e) / den
    t = (b * d - a * e) / den
    foot1, foot2 = p1 + s * z1, p2 + t * z2
    # The direction is z1 x z2, never unit(foot2 - foot1): for axes that nearly intersect
    # (a file rounding pi/2 to 1.5708 leaves them 3e-7 m apart) or are nearly parallel, that
    # difference has lost most of its digits and tilts x by 1e-10 rad. Its sign only
    # orients the normal from line 1 to line 2, as DH's a >= 0 reads it.
    if n @ (foot2 - foot1) < -EPS:
        n = -n
    x = n if n @ x_prev >= -EPS else -n
    return foot1, foot2, x


def _frame(origin, x, z):
    t = np.eye(4)
    t[:3, 0], t[:3, 2] = x, z
    t[:3, 1] = np.cross(z, x)
    t[:3, 3] = origin
    return t


def _reach(model):
    """Length scale of the chain [m]: 1 m plus every joint origin's offset and the tool's.
    A common normal farther than this from the previous origin is not on the robot."""
    return 1.0 + sum(float(np.linalg.norm(j.origin[:3, 3])) for j in model.joints) + \
        float(np.linalg.norm(model.tool[:3, 3]))


def _hayati_frame(prev, point, direction):
    """Frame i for axis i+1 (``point``, ``direction``) nearly parallel to prev's z: origin
    where the axis crosses the plane through prev's origin normal to prev's z (d = 0),
    x along that offset (a >= 0 side of prev's x), then Rx(alpha) Ry(beta) onto the axis."""
    o, z = prev[:3, 3], prev[:3, 2]
    origin = point - ((point - o) @ z) / (direction @ z) * direction
    offset = origin - o
    x = _unit(offset) if np.linalg.norm(offset) > EPS else prev[:3, 0]
    if x @ prev[:3, 0] < -EPS:
        x = -x
    y = np.cross(z, x)
    beta = np.arcsin(np.clip(direction @ x, -1.0, 1.0))
    alpha = np.arctan2(-(direction @ y), direction @ z)
    c, s = np.cos(alpha), np.sin(alpha)
    rot_x = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    frame = np.eye(4)
    frame[:3, :3] = np.column_stack([x, y, z]) @ rot_x @ rot_y(beta)
    frame[:3, 3] = origin
    return frame


def _compatible(frame_prev, frame_next):
    """True when frame_next follows frame_prev by a standard DH transform."""
    rel = invert_transform(frame_prev) @ frame_next
    return abs(rel[2, 0]) < 1e-10 and abs(rel[1, 3] * rel[0, 0] - rel[0, 3] * rel[1, 0]) < 1e-10


def _extract_standard(rel):
    """(a, alpha, d, theta, beta) of rel = Rz(theta) Tz(d) Tx(a) Rx(alpha) Ry(beta)."""
    if abs(rel[2, 0]) < 1e-12:  # beta = 0: the plain DH row
        theta = np.arctan2(rel[1, 0], rel[0, 0])
        alpha = np.arctan2(rel[2, 1], rel[2, 2])
        a = rel[0, 3] * np.cos(theta) + rel[1, 3] * np.sin(theta)
        return a, alpha, rel[2, 3], theta, 0.0
    # Row 2 of Rx(alpha) Ry(beta) is (-cos alpha sin beta, sin alpha, cos alpha cos beta);
    # alpha is near 0 or pi on these rows, so |beta| < pi/2 is read from its ratio.
    beta = np.arctan(-rel[2, 0] / rel[2, 2])
    x = np.cos(beta) * rel[:3, 0] + np.sin(beta) * rel[:3, 2]  # Rz(theta) x: (c, s, 0)
    theta = np.arctan2(x[1], x[0])
    rx = (rel[:3, :3] @ rot_y(-beta))
    alpha = np.arctan2(rx[2, 1], rx[2, 2])
    a = rel[0, 3] * np.cos(theta) + rel[1, 3] * np.sin(theta)
    return a, alpha, rel[2, 3], theta, beta


def _extract_modified(rel):
    alpha = np.arctan2(-rel[1, 2], rel[2, 2])
    theta = np.arctan2(-rel[0, 1], rel[0, 0])
    d = -rel[1, 3] * np.sin(alpha) + rel[2, 3] * np.cos(alpha)
    return rel[0, 3], alpha, d, theta


def _axes(model):
    """Axis lines (point, unit direction) of every joint at q = 0, base_link frame."""
    poses, t = [], np.eye(4)
    points, dirs = [], []
    for joint in model.joints:
        t = t @ joint.origin
        points.append(t[:3, 3].copy())
        dirs.append(_unit(t[:3, :3] @ joint.axis))
        poses.append(t.copy())
    return points, dirs, poses


def _standard_frames(model, points, dirs, body_poses):
    n = model.n
    tip = body_poses[-1] @ model.tool
    # Frame 0: the base link, or the parent link of joint 1, when its z is joint 1's
    # axis and its origin lies on it.
    for frame0 in (model.joint1_parent, np.eye(4)):
        if np.allclose(frame0[:3, 2], dirs[0], atol=1e-12) and \
                np.linalg.norm(np.cross(points[0] - frame0[:3, 3], dirs[0])) < 1e-12:
            break
    else:
        origin = points[0] + (-points[0] @ dirs[0]) * dirs[0]
        x0 = _perp(np.array([1.0, 0.0, 0.0]), dirs[0])
        if x0 is None:
            x0 = _perp(np.array([0.0, 1.0, 0.0]), dirs[0])
        frame0 = _frame(origin, x0, dirs[0])
    frames = [frame0]
    reach = _reach(model)
    for i in range(n - 1):
        prev = frames[-1]
        foot1, foot2, x = _common_normal(prev[:3, 3], dirs[i], points[i + 1], dirs[i + 1],
                                         prev[:3, 3], prev[:3, 0])
        if np.linalg.norm(foot1 - prev[:3, 3]) > reach:  # nearly parallel: Hayati's beta
            frames.append(_hayati_frame(prev, points[i + 1], dirs[i + 1]))
        else:
            frames.append(_frame(foot2, x, dirs[i + 1]))
    prev = frames[-1]
    if _compatible(prev, tip):
        frames.append(tip.copy())
    else:
        frames.append(_frame(prev[:3, 3], prev[:3, 0], prev[:3, 2]))
    return frames


def _modified_frames(model, points, dirs, body_poses):
    n = model.n
    tip = body_poses[-1] @ model.tool
    frames = []
    ref = points[0] + (-points[0] @ dirs[0]) * dirs[0]
    x_prev = _perp(np.array([1.0, 0.0, 0.0]), dirs[0])
    if x_prev is None:
        x_prev = _perp(np.array([0.0, 1.0, 0.0]), dirs[0])
    for i in range(n - 1):
        foot1, foot2, x = _common_normal(ref, dirs[i], points[i + 1], dirs[i + 1], ref, x_prev)
        frames.append(_frame(foot1, x, dirs[i]))
        ref, x_prev = foot2, x
    last = _frame(ref, _perp(x_prev, dirs[-1]) if _perp(x_prev, dirs[-1]) is not None
                  else _any_perp(dirs[-1]), dirs[-1])
    if np.allclose(tip[:3, 2], dirs[-1], atol=1e-12) and \
            np.linalg.norm(np.cross(tip[:3, 3] - ref, dirs[-1])) < 1e-12:
        last = tip.copy()
    frames.append(last)
    base = np.eye(4)
    rel = invert_transform(base) @ frames[0]
    a, alpha, d, theta = _extract_modified(rel)
    frame0 = base if np.allclose(dh_modified(a, alpha, d, theta), rel, atol=1e-12) else frames[0]
    return [frame0] + frames


def dh_table(model, convention='standard'):
    """DH table of a :class:`RobotModel` such that DH FK equals URDF FK for every q.

    Args:
        model: the chain.
        convention: 'standard' (seed 000 Table 1, seed 001) or 'modified' (Craig, seed 004).

    Returns:
        DHTable with rows, ``base``, ``tool``, the inertials of every body in its DH
        frame and ``body_to_dh`` (pose of DH frame i in URDF body frame i).
    """
    if convention not in CONVENTIONS:
        raise InputError(f'unknown DH convention {convention!r}; valid: {", ".join(CONVENTIONS)}')
    table = _geometry(model, convention)
    inertials = tuple(body.transformed(invert_transform(offset))
                      for body, offset in zip(model.bodies, table.body_to_dh))
    return replace(table, inertials=inertials)


#: The last few chains' geometry, keyed by the exact bytes of what it is made of (joint
#: names, types, origins and axes, the tool and joint 1's parent frame, the convention): a
#: payload changes the bodies only, so a new payload does not derive and verify the frames
#: again (20 ms of the interpreter's time beside a 1 kHz control thread, per change).
_GEOMETRIES: dict = {}
_GEOMETRIES_KEPT = 8


def _geometry_key(model, convention):
    return (convention, model.tool.tobytes(), np.asarray(model.joint1_parent).tobytes(),
            tuple((j.name, j.type, j.origin.tobytes(), j.axis.tobytes())
                  for j in model.joints))


def _geometry(model, convention):
    """The DH table of ``model`` in ``convention`` without inertials (rows, base, tool,
    ``body_to_dh``; its FK verified), derived and verified once per chain."""
    key = _geometry_key(model, convention)
    held = _GEOMETRIES.get(key)
    if held is not None:
        return held
    body_poses = model.body_poses(np.zeros(model.n))
    points, dirs, _ = _axes(model)
    build = _standard_frames if convention == 'standard' else _modified_frames
    frames = build(model, points, dirs, body_poses)
    rows = []
    for i, joint in enumerate(model.joints):
        rel = invert_transform(frames[i]) @ frames[i + 1]
        if convention == 'standard':
            a, alpha, d, theta, beta = _extract_standard(rel)
        else:
            (a, alpha, d, theta), beta = _extract_modified(rel), 0.0
        rows.append(DHRow(joint.name, joint.type, float(a), float(alpha), float(d),
                          float(theta), float(beta)))
    tool = invert_transform(frames[-1]) @ body_poses[-1] @ model.tool
    body_to_dh = tuple(invert_transform(body_poses[i]) @ frames[i + 1]
                       for i in range(model.n))
    table = DHTable(convention, tuple(rows), frames[0], tool, (), body_to_dh)
    table = replace(table, fk_error=_verify(model, table))
    if len(_GEOMETRIES) >= _GEOMETRIES_KEPT:
        _GEOMETRIES.pop(next(iter(_GEOMETRIES)))
    _GEOMETRIES[key] = table
    return table


def _verify(model, table):
    """Refuse a table whose FK differs from the URDF's: every DH frame, mapped back to its
    body, against the URDF's body pose at q = 0 and four fixed random configurations (a
    model never loads silently wrong). Tolerance FK_TOLERANCE x the chain's reach.
    Returns the worst difference / reach (radians for orientations)."""
    reach = _reach(model)
    tolerance = FK_TOLERANCE * max(1.0, model.n / 10)
    rng = np.random.default_rng(0)
    worst, where = 0.0, 0
    for k in range(5):
        q = np.zeros(model.n) if k == 0 else rng.uniform(-np.pi, np.pi, model.n)
        bodies = model.body_poses(q)
        for i, frame in enumerate(table.frames(q)):
            error = np.abs(frame - bodies[i] @ table.body_to_dh[i])
            size = max(float(error[:3, 3].max()) / reach, float(error[:3, :3].max()))
            if not size <= worst:  # NaN counts as the worst
                worst, where = size, i
    if not worst <= tolerance:
        raise InputError(
            f'DH ({table.convention}) FK differs from the URDF at joint '
            f'{model.joints[where].name!r} by {worst:.3g} x the reach {reach:.3g} m '
            f'(tolerance {tolerance:.3g}): the description cannot be represented exactly'
            + ('; the standard convention can (Hayati beta rows)'
               if table.convention == 'modified' else ''))
    return worst
