"""The tip frame's pose and geometric Jacobian from the DH poses, compiled with numba: what a
task-space law needs every cycle (laws/cartesian_impedance.py), as the C++ controller's
TipKinematics (tip_kinematics.hpp) computes them.

Joint i turns about z_{i-1} through o_{i-1} (DH frame i-1 in frame 0), so column i of J
is [z_{i-1} x (p - o_{i-1}); z_{i-1}], or [z_{i-1}; 0] for a prismatic joint (seed 000
eqs. 23-24 for the tip point p instead of a centre of mass): [v; w] = J qd, the point's
velocity and the tip's angular velocity, frame 0. ``tool`` (4, 4) is the tip link in DH
frame n (DHTable.tool), ``params`` the packed rows (recursive_params).

The velocity product Jdot qd (:func:`tip_bias`) is the tip's classical acceleration at
qdd = 0 without gravity (a = J qdd + Jdot qd): the outward pass of seed 000's recursion at
velocity qd, as the C++ TipKinematics::bias computes it.
"""

import numba
import numpy as np

from .recursive_params import COL_PRISMATIC
from .tip_regressor import _outward, _poses

__all__ = ['TipFrame', 'tip_bias', 'tip_frame']


@numba.njit(cache=True, nogil=True, error_model='numpy')
def tip_frame(q, params, tool, jac, rotation, point, work):
    """J (6, n) into ``jac``, the tip's axes (3, 3) into ``rotation`` and its origin (3,)
    [m] into ``point``, all in DH frame 0 (seed 000 eqs. 23-24); ``work`` (n, 9) is
    overwritten. No checks (the law checks its inputs)."""
    n = q.shape[0]
    r_tip, tip_arm, o_n = _poses(q, params, tool, work)
    for k in range(3):
        point[k] = o_n[k] + tip_arm[k]
        for c in range(3):
            rotation[k, c] = r_tip[3 * k + c]
    for j in range(n):
        z0, z1, z2 = work[j, 0], work[j, 1], work[j, 2]
        if params[j, COL_PRISMATIC] > 0.5:
            jac[0, j], jac[1, j], jac[2, j] = z0, z1, z2
            jac[3, j] = jac[4, j] = jac[5, j] = 0.0
            continue
        d0, d1, d2 = point[0] - work[j, 3], point[1] - work[j, 4], point[2] - work[j, 5]
        jac[0, j] = z1 * d2 - z2 * d1
        jac[1, j] = z2 * d0 - z0 * d2
        jac[2, j] = z0 * d1 - z1 * d0
        jac[3, j], jac[4, j], jac[5, j] = z0, z1, z2


@numba.njit(cache=True, nogil=True, error_model='numpy')
def tip_bias(qd, params, point, work, out):
    """Jdot qd (6,) [m/s^2, rad/s^2] into ``out``, DH frame 0: the derivative of seed 000
    eqs. 23-24's J along qd, i.e. the tip's classical acceleration at qdd = 0 without
    gravity, by the outward pass of seed 000 eq. 29's recursion at qd from the poses
    (``work``) and tip point the last :func:`tip_frame` call left (as the C++
    TipKinematics::bias)."""
    n = qd.shape[0]
    o_n = work[n - 1, 3:6] + work[n - 1, 6:9]
    tip_arm = (point[0] - o_n[0], point[1] - o_n[1], point[2] - o_n[2])
    zero = np.zeros(n)
    _, wd, acc = _outward(qd, zero, np.zeros(3), params, work, tip_arm)
    for k in range(3):
        out[k], out[3 + k] = acc[k], wd[k]


class TipFrame:
    """The tip's J (seed 000 eqs. 23-24), axes and origin at q (DH frame 0) for one chain,
    compiled (:func:`tip_frame`) into arrays of its own.

    Args:
        dyn: the chain's RigidBodyDynamics (its packed rows and DH table's tool).
    """

    def __init__(self, dyn):
        self.params = dyn.packed_rows()
        self.tool = np.ascontiguousarray(dyn.model.dh_table('standard').tool, dtype=float)
        n = dyn.n
        self.jac, self.rotation, self.point = np.zeros((6, n)), np.zeros((3, 3)), np.zeros(3)
        self.work = np.zeros((n, 9))
        self._bias = np.zeros(6)

    def at(self, q):
        """(J (6, n), R (3, 3), p (3,) [m]) at ``q`` (seed 000 eqs. 23-24): views of this
        frame's arrays, which the next call overwrites."""
        tip_frame(np.ascontiguousarray(q, dtype=float), self.params, self.tool, self.jac,
                  self.rotation, self.point, self.work)
        return self.jac, self.rotation, self.point

    def bias(self, qd):
        """Jdot qd (6,) [m/s^2, rad/s^2] at the last :meth:`at`'s q (:func:`tip_bias`: the
        time derivative of seed 000 eqs. 23-24's J along qd): a view of this frame's array,
        which the next call overwrites."""
        tip_bias(np.ascontiguousarray(qd, dtype=float), self.params, self.point, self.work,
                 self._bias)
        return self._bias
