"""The kinematics of the chain's tool point: its geometric Jacobian J(q) and the velocity
product J̇(q, q̇) q̇ of its acceleration, in the base_link frame; what task-space laws
(Cartesian impedance, operational space) and the tool wrench are built on.

The point is the tip_link origin, or a point fixed to the tip_link (``offset``: a 4x4
transform from the tip_link, a tool's centre point). Joint k turns about its axis z_k
through o_k (seed 000 eqs. (23)-(24) for a point at the tool instead of a centre of mass):
column k of J is [z_k x (p - o_k); z_k], or [z_k; 0] for a prismatic joint, so that
[v; w] = J q̇ is the point's velocity and the tool's angular velocity.

Differentiating each column along the motion gives J̇ q̇ = Σ_k J̇_k q̇_k, with
ż_k = w_k x z_k (w_k the angular velocity of the link joint k moves, Σ_{j<=k} z_j q̇_j),
ṗ = v and ȯ_k the velocity of the point o_k of link k-1:
J̇_k = [ż_k x (p - o_k) + z_k x (ṗ - ȯ_k); ż_k], or [ż_k; 0] for a prismatic joint.
So [a; α] = J q̈ + J̇ q̇ is the point's classical acceleration and the tool's angular one
(what Pinocchio's getFrameClassicalAcceleration gives in LOCAL_WORLD_ALIGNED axes).
"""

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ..model.kinematics import check_q, check_vector
from ..model.robot_model import RobotModel

__all__ = ['ToolPointMotion', 'tool_jacobian', 'tool_point_motion']


class ToolPointMotion(NamedTuple):
    """The tool point's kinematics (seed 000 eqs. (23)-(24)): jacobian (6, n) [m/rad or 1,
    rad/rad]; bias (6,) J̇ q̇ [m/s^2, rad/s^2]; point (3,) [m]; velocity (6,) J q̇ [m/s,
    rad/s]. All in the base_link frame."""

    jacobian: np.ndarray
    bias: np.ndarray
    point: np.ndarray
    velocity: np.ndarray


def _axes(model: RobotModel, q: np.ndarray, offset: np.ndarray | None):
    """(z_k, o_k per joint, the point p)."""
    poses = model.body_poses(q)
    tip = (poses[-1] if poses else np.eye(4)) @ model.tool
    if offset is not None:
        tip = tip @ offset
    z = [pose[:3, :3] @ joint.axis for joint, pose in zip(model.joints, poses)]
    o = [pose[:3, 3] for pose in poses]
    return z, o, tip[:3, 3]


def _offset(offset: ArrayLike | None) -> np.ndarray | None:
    if offset is None:
        return None
    out = np.asarray(offset, dtype=float)
    if out.shape != (4, 4) or not np.all(np.isfinite(out)):
        raise ValueError(f'offset: expected a finite 4x4 transform, got shape {out.shape}')
    return out


def _columns(model: RobotModel, z, o, p) -> np.ndarray:
    """(6, n) J from the axes z_k, their points o_k and the point p."""
    jac = np.zeros((6, model.n))
    for k, joint in enumerate(model.joints):
        if joint.type == 'prismatic':
            jac[:3, k] = z[k]
        else:
            jac[:3, k] = np.cross(z[k], p - o[k])
            jac[3:, k] = z[k]
    return jac


def tool_jacobian(model: RobotModel, q: ArrayLike, offset: ArrayLike | None = None
                  ) -> np.ndarray:
    """(6, n) geometric Jacobian of the tool point, base_link frame: the rows of seed 000
    eqs. (23)-(24) for the point at the tool instead of a centre of mass."""
    return _columns(model, *_axes(model, check_q(model, q), _offset(offset)))


def tool_point_motion(model: RobotModel, q: ArrayLike, qd: ArrayLike,
                      offset: ArrayLike | None = None) -> ToolPointMotion:
    """J(q), J̇(q, q̇) q̇, the point and its velocity, base_link frame: seed 000 eqs.
    (23)-(24) and their derivative along the motion (module doc)."""
    angles = check_q(model, q)
    rates = check_vector(qd, model.n, 'qd')
    z, o, p = _axes(model, angles, _offset(offset))
    jac = _columns(model, z, o, p)
    velocity = jac @ rates
    w = np.zeros(3)       # angular velocity of the link before joint k
    v_o = np.zeros(3)     # velocity of o_k as a point of the link before joint k
    v_prev = np.zeros(3)  # velocity of o_{k-1} as a point of link k-1
    bias = np.zeros(6)
    for k, joint in enumerate(model.joints):
        if k > 0:  # o_k is fixed in link k-1, which turns at w about o_{k-1}
            v_o = v_prev + np.cross(w, o[k] - o[k - 1])
        prismatic = joint.type == 'prismatic'
        w_k = w if prismatic else w + z[k] * rates[k]
        zdot = np.cross(w_k, z[k])
        if prismatic:
            bias[:3] += zdot * rates[k]
        else:
            bias[:3] += (np.cross(zdot, p - o[k]) + np.cross(z[k], velocity[:3] - v_o)) * rates[k]
            bias[3:] += zdot * rates[k]
        # link k's origin o_k moves at v_o (+ z_k qd_k when the joint slides)
        v_prev = v_o + (z[k] * rates[k] if prismatic else 0.0)
        w = w_k
    return ToolPointMotion(jac, bias, p, velocity)
