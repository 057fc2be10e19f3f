"""Rigid-body inertial parameters: validation, frame changes, lumping."""

from dataclasses import dataclass

import numpy as np

from ..errors import ModelError

__all__ = ['Inertial', 'check_physical', 'lump', 'inertia_about_origin']

POINT_MASS = 1e-14  # [kg m^2]: an inertia tensor below this is treated as a point mass


@dataclass(frozen=True)
class Inertial:
    """Mass [kg], centre of mass [m] and inertia about the COM [kg m^2], one frame's axes."""

    mass: float
    com: np.ndarray
    inertia: np.ndarray

    @property
    def inertia_origin(self):
        """Inertia about this frame's origin, its axes [kg m^2] (seed 003 eq. 45-46)."""
        return inertia_about_origin(self.mass, self.com, self.inertia)

    def transformed(self, t):
        """The same body expressed in another frame, ``t`` = pose of this frame in it."""
        rot = t[:3, :3]
        return Inertial(self.mass, rot @ self.com + t[:3, 3], rot @ self.inertia @ rot.T)


def inertia_about_origin(mass, com, inertia_com):
    """Inertia about the frame origin: I_O = I_C + m (|c|^2 1 - c c^T) (seed 003 eq. 45-46)."""
    com = np.asarray(com)
    return inertia_com + mass * (com @ com * np.eye(3) - np.outer(com, com))


def lump(parts):
    """Combine inertials expressed in one frame into one (parallel-axis theorem)."""
    mass = sum(p.mass for p in parts)
    if mass <= 0.0:
        return Inertial(0.0, np.zeros(3), np.zeros((3, 3)))
    com = sum(p.mass * p.com for p in parts) / mass
    inertia = np.zeros((3, 3))
    for p in parts:
        r = p.com - com
        inertia += p.inertia + p.mass * (r @ r * np.eye(3) - np.outer(r, r))
    return Inertial(mass, com, 0.5 * (inertia + inertia.T))


def check_physical(inertial, what, tol=1e-9, strict=True):
    """Raise :class:`ModelError` unless the inertial is physically consistent; return
    the warnings (a list of one-line strings).

    Accepted: mass > 0 and an inertia about the COM that is symmetric, positive
    definite and satisfies the triangle inequality of principal moments. An
    all-zero inertia tensor (every entry <= POINT_MASS: a point mass, as in seed 004's
    examples) is accepted. ``strict`` False: a violated triangle inequality is a warning
    naming the violation, not an error: vendors' official descriptions (Franka's FER,
    UFactory's xArm6) have such links; Pinocchio loads them, the model uses them as
    given (its M stays positive definite: the tensor is), the simulator balances them.
    """
    if not np.isfinite(inertial.mass) or inertial.mass <= 0.0:
        raise ModelError(f'{what}: mass must be > 0, got {inertial.mass!r}')
    inertia = inertial.inertia
    if not np.all(np.isfinite(inertia)) or not np.all(np.isfinite(inertial.com)):
        raise ModelError(f'{what}: non-finite centre of mass or inertia')
    scale = np.abs(inertia).max()
    if scale <= POINT_MASS:
        return []
    eig = np.linalg.eigvalsh(0.5 * (inertia + inertia.T))
    if eig[0] <= tol * scale:
        raise ModelError(f'{what}: inertia is not positive definite '
                         f'(principal moments {np.array2string(eig, precision=6)})')
    if eig[0] + eig[1] < eig[2] - tol * scale:
        text = (f'{what}: inertia violates the triangle inequality by '
                f'{(eig[2] - eig[0] - eig[1]) / eig[2]:.1%} of its largest principal moment '
                f'(principal moments {np.array2string(eig, precision=6)})')
        if strict:
            raise ModelError(text + '; strict inertia checks refuse it')
        return [text + '; used as given']
    return []
