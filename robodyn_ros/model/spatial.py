"""Small rigid-body helpers: rotations, homogeneous transforms, skew matrices."""

import numpy as np

__all__ = [
    'skew',
    'rpy_to_matrix',
    'axis_angle_matrix',
    'transform',
    'invert_transform',
    'dh_standard',
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


def dh_standard(a, alpha, d, theta):
    """Standard DH link transform A = Rz(theta) Tz(d) Tx(a) Rx(alpha) (seed 001 eq. 2.5)."""
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    return np.array([
        [ct, -st * ca, st * sa, a * ct],
        [st, ct * ca, -ct * sa, a * st],
        [0.0, sa, ca, d],
        [0.0, 0.0, 0.0, 1.0],
    ])


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
