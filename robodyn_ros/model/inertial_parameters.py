"""A rigid body's 10 inertial parameters, pi = [m, m c (3), I_O (xx, xy, xz, yy, yz, zz)]
(inertia about the frame origin), the vector the dynamics are linear in; conversions to
and from :class:`~robodyn_ros.model.inertial.Inertial`; the log-Cholesky parametrisation
of the pseudo-inertia J = [[Sigma, h], [h^T, m]], Sigma = tr(I_O)/2 1 - I_O (seed 001's
pseudo-inertia), which makes every estimate physically consistent: J positive definite
<=> m > 0, inertia about the COM positive definite, and the triangle inequalities.
"""

import numpy as np

from .inertial import Inertial

__all__ = ['to_vector', 'from_vector', 'pseudo_inertia', 'from_pseudo_inertia',
           'log_cholesky', 'from_log_cholesky', 'is_consistent', 'NAMES']

NAMES = ('m', 'mcx', 'mcy', 'mcz', 'Ixx', 'Ixy', 'Ixz', 'Iyy', 'Iyz', 'Izz')
_UPPER = ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))


def to_vector(body: Inertial) -> np.ndarray:
    """pi (10,) of an Inertial (inertia about its COM) in the same frame."""
    io = body.inertia_origin
    return np.array([body.mass, *(body.mass * body.com), *(io[r, c] for r, c in _UPPER)])


def _inertia(pi):
    io = np.zeros((3, 3))
    for value, (r, c) in zip(pi[4:], _UPPER):
        io[r, c] = io[c, r] = value
    return io


def from_vector(pi: np.ndarray) -> Inertial:
    """The Inertial of pi (mass must be > 0)."""
    mass = float(pi[0])
    com = np.asarray(pi[1:4]) / mass
    inertia = _inertia(pi) - mass * (com @ com * np.eye(3) - np.outer(com, com))
    return Inertial(mass, com, inertia)


def pseudo_inertia(pi: np.ndarray) -> np.ndarray:
    """4x4 pseudo-inertia J of pi."""
    io = _inertia(pi)
    j = np.zeros((4, 4))
    j[:3, :3] = 0.5 * np.trace(io) * np.eye(3) - io
    j[:3, 3] = j[3, :3] = pi[1:4]
    j[3, 3] = pi[0]
    return j


def from_pseudo_inertia(j: np.ndarray) -> np.ndarray:
    """pi of a pseudo-inertia J."""
    sigma = j[:3, :3]
    io = np.trace(sigma) * np.eye(3) - sigma
    return np.array([j[3, 3], *j[:3, 3], *(io[r, c] for r, c in _UPPER)])


def from_log_cholesky(theta: np.ndarray) -> np.ndarray:
    """pi of theta = [alpha, d1, d2, d3, s12, s23, s13, t1, t2, t3]: J = U U^T with
    U = e^alpha [[e^d1, s12, s13, t1], [0, e^d2, s23, t2], [0, 0, e^d3, t3], [0, 0, 0, 1]]."""
    alpha, d1, d2, d3, s12, s23, s13, t1, t2, t3 = theta
    u = np.exp(alpha) * np.array([[np.exp(d1), s12, s13, t1], [0.0, np.exp(d2), s23, t2],
                                  [0.0, 0.0, np.exp(d3), t3], [0.0, 0.0, 0.0, 1.0]])
    return from_pseudo_inertia(u @ u.T)


def log_cholesky(pi: np.ndarray, floor: float = 1e-9) -> np.ndarray:
    """theta of the consistent pi nearest to ``pi`` (J's eigenvalues raised to ``floor``)."""
    j = pseudo_inertia(pi)
    w, v = np.linalg.eigh(0.5 * (j + j.T))
    j = (v * np.maximum(w, floor)) @ v.T
    flip = np.eye(4)[::-1]
    u = flip @ np.linalg.cholesky(flip @ j @ flip) @ flip  # upper triangular, J = U U^T
    scale = u[3, 3]
    u = u / scale
    return np.array([np.log(scale), np.log(u[0, 0]), np.log(u[1, 1]), np.log(u[2, 2]),
                     u[0, 1], u[1, 2], u[0, 2], u[0, 3], u[1, 3], u[2, 3]])


def is_consistent(pi: np.ndarray, tol: float = 0.0) -> bool:
    """True when pi is physically consistent (pseudo-inertia positive definite)."""
    return bool(np.linalg.eigvalsh(pseudo_inertia(pi))[0] > tol)
