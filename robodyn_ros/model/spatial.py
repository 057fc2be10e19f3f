"""Small rigid-body helpers: rotations, homogeneous transforms, skew matrices."""

import numpy as np

__all__ = [
    'skew',
    'rpy_to_matrix',
    'matrix_to_rpy',
    'axis_angle_matrix',
    'transform',
    'invert_transform',
    'dh_standard',
    'rot_y',
    'dh_modified',
]


def skew(v):
    """Cross-product matrix S(v) with S(v) w = v x w (seed 000 eq. 1)."""
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def rpy_to_matrix(rpy):
    """URDF roll-pitch-yaw [rad] to a rotation matrix R = Rz(yaw) Ry(pitch) Rx(roll)."""
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])


def matrix_to_rpy(rotation):
    """URDF roll-pitch-yaw [rad] of a rotation matrix (inverse of rpy_to_matrix; pitch in
    [-pi/2, pi/2])."""
    r = np.asarray(rotation, dtype=float)
    pitch = np.arctan2(-r[2, 0], np.hypot(r[0, 0], r[1, 0]))
    return np.array([np.arctan2(r[2, 1], r[2, 2]), pitch, np.arctan2(r[1, 0], r[0, 0])])


def axis_angle_matrix(axis, angle):
    """Rotation by ``angle`` [rad] about the unit vector ``axis`` (Rodrigues)."""
    k = skew(axis)
    return np.eye(3) + np.sin(angle) * k + (1.0 - np.cos(angle)) * (k @ k)


def transform(rotation=None, translation=None):
    """4x4 homogeneous transform from a rotation matrix and a translation [m]."""
    t = np.eye(4)
    if rotation is not None:
        t[:3, :3] = rotation
    if translation is not None:
        t[:3, 3] = translation
    return t


def invert_transform(t):
    """Inverse of a 4x4 homogeneous transform."""
    r = t[:3, :3]
    return transform(r.T, -r.T @ t[:3, 3])


def dh_standard(a, alpha, d, theta, beta=0.0):
    """Standard DH link transform A = Rz(theta) Tz(d) Tx(a) Rx(alpha) (seed 001 eq. 2.5),
    times Ry(beta): Hayati's extra rotation for nearly parallel axes (zero otherwise)."""
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    a_i = np.array([
        [ct, -st * ca, st * sa, a * ct],
        [st, ct * ca, -ct * sa, a * st],
        [0.0, sa, ca, d],
        [0.0, 0.0, 0.0, 1.0],
    ])
    if beta:
        a_i[:3, :3] = a_i[:3, :3] @ rot_y(beta)
    return a_i


def rot_y(angle):
    """Rotation about y by ``angle`` [rad]."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def dh_modified(a, alpha, d, theta):
    """Modified (Craig) DH transform A = Rx(alpha) Tx(a) Rz(theta) Tz(d).

    ``a`` and ``alpha`` are a_{i-1}, alpha_{i-1}; ``d`` and ``theta`` belong to joint i.
    """
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    return np.array([
        [ct, -st, 0.0, a],
        [st * ca, ct * ca, -sa, -sa * d],
        [st * sa, ct * sa, ca, ca * d],
        [0.0, 0.0, 0.0, 1.0],
    ])
