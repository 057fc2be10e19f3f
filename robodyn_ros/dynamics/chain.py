"""Dynamic parameters of a chain in standard DH frames (the common input of every method)."""

from dataclasses import dataclass

import numpy as np

from ..defaults import GRAVITY
from ..errors import InputError

__all__ = ['DHChain', 'dh_chain']


@dataclass(frozen=True)
class DHChain:
    """Arrays describing a chain in standard DH frames; frame 0 is the fixed base.

    The model's :class:`~robodyn_ros.model.DHTable` (standard convention) as columns, the
    form the formulations and compiled kernels index, with gravity moved into frame 0;
    built only by :func:`dh_chain`.

    Attributes:
        a, alpha, d, theta0: (n,) DH parameters (d and theta0 are the offsets).
        beta: (n,) Hayati's rotation about y of nearly parallel axes [rad] (0 elsewhere):
            frame i-1 -> i is Rz(theta) Tz(d) Tx(a) Rx(alpha) Ry(beta).
        prismatic: (n,) bool.
        mass: (n,) [kg]; com: (n, 3) in frame i [m]; inertia: (n, 3, 3) about the COM,
            frame-i axes [kg m^2].
        gravity: (3,) gravitational acceleration in frame 0 [m/s^2].
    """

    a: np.ndarray
    alpha: np.ndarray
    d: np.ndarray
    theta0: np.ndarray
    beta: np.ndarray
    prismatic: np.ndarray
    mass: np.ndarray
    com: np.ndarray
    inertia: np.ndarray
    gravity: np.ndarray

    @property
    def n(self):
        """Degrees of freedom."""
        return len(self.a)


def dh_chain(model, gravity=GRAVITY):
    """Build the :class:`DHChain` of a RobotModel (standard DH, seed 001 eq. 2.5; inertials
    in DH frame i, seed 003 eq. 45-46); ``gravity`` is given in the base_link frame."""
    gravity = np.asarray(gravity, dtype=float)
    if gravity.shape != (3,) or not np.all(np.isfinite(gravity)):
        raise InputError(f'gravity: expected 3 finite numbers, got {gravity!r}')
    table = model.dh_table('standard')
    rows = table.rows
    return DHChain(
        a=np.array([r.a for r in rows]),
        alpha=np.array([r.alpha for r in rows]),
        d=np.array([r.d for r in rows]),
        theta0=np.array([r.theta_offset for r in rows]),
        beta=np.array([r.beta for r in rows]),
        prismatic=np.array([r.joint_type == 'prismatic' for r in rows]),
        mass=np.array([b.mass for b in table.inertials]),
        com=np.array([b.com for b in table.inertials]),
        inertia=np.array([b.inertia for b in table.inertials]),
        gravity=table.base[:3, :3].T @ gravity,
    )
