"""Controller-rate inverse dynamics: recursive Newton-Euler in the links' DH frames,
compiled with numba (cached on disk).

tau = M(q) qdd + C(q, qd) qd + g(q) (seed 000 eq. 29) without forming M or C: velocities
and accelerations run outward from the base, forces inward from the tip (Luh, Walker and
Paul's recursion). Every quantity of link i is expressed in its own DH frame i, where its
centre of mass and inertia are constants (recursive_params: the parameters of seed 003
eq. 49's M in DH frames), so nothing is rotated into a common frame: about 300 flops per
link, all in scalars, against the spatial 6x6 algebra of the composite-rigid-body M and C
(recursive.py). In a 1 kHz loop whose caches are cold at every state, less code and
less data is the speed that counts.

Conventions (standard DH, seed 001): frame i-1 -> i is Rz(theta_i) Tz(d_i) Tx(a_i)
Rx(alpha_i) Ry(beta_i), beta_i being Hayati's rotation on nearly parallel axes (0 on
other rows); joint i moves along/about z_{i-1}, which is the last row of R_i,
(-cos alpha_i sin beta_i, sin alpha_i, cos alpha_i cos beta_i), in frame i; the origin of
frame i seen from frame i-1's, in frame i, is p_i = Ry(beta_i)^T (a_i, d_i sin alpha_i,
d_i cos alpha_i). Gravity enters as a base acceleration -g0.
"""

import numba
import numpy as np

from .recursive_params import (
    COL_COM,
    COL_COS_BETA,
    COL_COULOMB,
    COL_INERTIA,
    COL_MASS,
    COL_PRISMATIC,
    COL_SIN_BETA,
    COL_SMOOTHING,
    COL_VISCOUS,
)

__all__ = ['newton_euler', 'rnea_kernel', 'computed_torque_kernel']

#: Entries of the scratch buffer newton_euler uses per joint (from the start of ``buf``):
#: rotation R_i (9) and p_i (3), then the link's force and moment about its COM (6).
FRAME, WRENCH = 12, 6


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _all_finite(x):
    """True when every element of the 1-D array ``x`` is finite (the kernels' input check)."""
    for k in range(x.shape[0]):
        if not np.isfinite(x[k]):
            return False
    return True


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _dh_joint(params, i, qi):
    """Joint i at position ``qi``: (cos theta, sin theta, cos alpha, sin alpha, d,
    prismatic) of its standard DH transform (seed 001), theta or d moved by ``qi``."""
    alpha, theta, d = params[i, 1], params[i, 3], params[i, 2]
    prismatic = params[i, COL_PRISMATIC] > 0.5
    if prismatic:
        d += qi
    else:
        theta += qi
    return np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha), d, prismatic


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _dh_rotation(params, i, ct, st, ca, sa):
    """Rows of R_i = Rz(theta) Rx(alpha) Ry(beta) of joint i, row-major (9 scalars)."""
    cb, sb = params[i, COL_COS_BETA], params[i, COL_SIN_BETA]
    return (ct * cb - st * sa * sb, -st * ca, ct * sb + st * sa * cb,
            st * cb + ct * sa * sb, ct * ca, st * sb - ct * sa * cb,
            -ca * sb, sa, ca * cb)


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _outward(q, qd, qdd, params, buf):
    """Velocities and accelerations base -> tip; stores each link's R_i, p_i, and its
    inertial force m a_c and moment I w' + w x I w (about the COM, frame i) in ``buf``."""
    n = q.shape[0]
    w0 = w1 = w2 = 0.0  # angular velocity of the previous link
    e0 = e1 = e2 = 0.0  # its angular acceleration
    a0, a1, a2 = -params[n, 0], -params[n, 1], -params[n, 2]  # its origin's acceleration
    for i in range(n):
        ct, st, ca, sa, d, prismatic = _dh_joint(params, i, q[i])
        r00, r01, r02, r10, r11, r12, r20, r21, r22 = _dh_rotation(params, i, ct, st, ca, sa)
        k = FRAME * i
        buf[k], buf[k + 1], buf[k + 2] = r00, r01, r02
        buf[k + 3], buf[k + 4], buf[k + 5] = r10, r11, r12
        buf[k + 6], buf[k + 7], buf[k + 8] = r20, r21, r22
        cb, sb, dca = params[i, COL_COS_BETA], params[i, COL_SIN_BETA], d * ca
        p0, p1, p2 = cb * params[i, 0] - sb * dca, d * sa, sb * params[i, 0] + cb * dca
        buf[k + 9], buf[k + 10], buf[k + 11] = p0, p1, p2
        if prismatic:  # in frame i-1: w, w' unchanged; the joint accelerates along z
            b0, b1, b2, c0, c1, c2 = w0, w1, w2, e0, e1, e2
            a2 += qdd[i]
        else:  # w + z qd, w' + z qdd + w x z qd
            b0, b1, b2 = w0, w1, w2 + qd[i]
            c0, c1, c2 = e0 + w1 * qd[i], e1 - w0 * qd[i], e2 + qdd[i]
        # Into frame i: R_i^T (.).
        w0, w1, w2 = r00 * b0 + r10 * b1 + r20 * b2, r01 * b0 + r11 * b1 + r21 * b2, \
            r02 * b0 + r12 * b1 + r22 * b2
        e0, e1, e2 = r00 * c0 + r10 * c1 + r20 * c2, r01 * c0 + r11 * c1 + r21 * c2, \
            r02 * c0 + r12 * c1 + r22 * c2
        v0, v1, v2 = r00 * a0 + r10 * a1 + r20 * a2, r01 * a0 + r11 * a1 + r21 * a2, \
            r02 * a0 + r12 * a1 + r22 * a2
        if prismatic:  # Coriolis term 2 w x (z qd), z = (r20, r21, r22) in frame i
            z0, z1, z2 = r20 * qd[i], r21 * qd[i], r22 * qd[i]
            v0 += 2.0 * (w1 * z2 - w2 * z1)
            v1 += 2.0 * (w2 * z0 - w0 * z2)
            v2 += 2.0 * (w0 * z1 - w1 * z0)
        # Origin i: + w' x p + w x (w x p).
        x0, x1, x2 = w1 * p2 - w2 * p1, w2 * p0 - w0 * p2, w0 * p1 - w1 * p0
        a0 = v0 + e1 * p2 - e2 * p1 + w1 * x2 - w2 * x1
        a1 = v1 + e2 * p0 - e0 * p2 + w2 * x0 - w0 * x2
        a2 = v2 + e0 * p1 - e1 * p0 + w0 * x1 - w1 * x0
        # Centre of mass c: m (a + w' x c + w x (w x c)).
        m, s0, s1, s2 = params[i, COL_MASS], params[i, COL_COM], params[i, COL_COM + 1], \
            params[i, COL_COM + 2]
        x0, x1, x2 = w1 * s2 - w2 * s1, w2 * s0 - w0 * s2, w0 * s1 - w1 * s0
        h = FRAME * n + WRENCH * i
        buf[h] = m * (a0 + e1 * s2 - e2 * s1 + w1 * x2 - w2 * x1)
        buf[h + 1] = m * (a1 + e2 * s0 - e0 * s2 + w2 * x0 - w0 * x2)
        buf[h + 2] = m * (a2 + e0 * s1 - e1 * s0 + w0 * x1 - w1 * x0)
        inertia = params[i, COL_INERTIA:COL_INERTIA + 9]
        l0 = inertia[0] * w0 + inertia[1] * w1 + inertia[2] * w2
        l1 = inertia[3] * w0 + inertia[4] * w1 + inertia[5] * w2
        l2 = inertia[6] * w0 + inertia[7] * w1 + inertia[8] * w2
        buf[h + 3] = inertia[0] * e0 + inertia[1] * e1 + inertia[2] * e2 + w1 * l2 - w2 * l1
        buf[h + 4] = inertia[3] * e0 + inertia[4] * e1 + inertia[5] * e2 + w2 * l0 - w0 * l2
        buf[h + 5] = inertia[6] * e0 + inertia[7] * e1 + inertia[8] * e2 + w0 * l1 - w1 * l0


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _inward(params, tau, buf):
    """Forces tip -> base: f_i = R_{i+1} f_{i+1} + F_i and the moment about origin i-1,
    n_i = R_{i+1} n_{i+1} + p_i x R_{i+1} f_{i+1} + (p_i + c_i) x F_i + N_i; tau_i is
    their component along z_{i-1} (n for revolute, f for prismatic joints)."""
    n = tau.shape[0]
    f0 = f1 = f2 = 0.0  # the child's force and moment, already in this link's frame
    t0 = t1 = t2 = 0.0
    for i in range(n - 1, -1, -1):
        k = FRAME * i
        h = FRAME * n + WRENCH * i
        p0, p1, p2 = buf[k + 9], buf[k + 10], buf[k + 11]
        F0, F1, F2 = buf[h], buf[h + 1], buf[h + 2]
        c0, c1, c2 = p0 + params[i, COL_COM], p1 + params[i, COL_COM + 1], \
            p2 + params[i, COL_COM + 2]
        t0 += p1 * f2 - p2 * f1 + c1 * F2 - c2 * F1 + buf[h + 3]
        t1 += p2 * f0 - p0 * f2 + c2 * F0 - c0 * F2 + buf[h + 4]
        t2 += p0 * f1 - p1 * f0 + c0 * F1 - c1 * F0 + buf[h + 5]
        f0, f1, f2 = f0 + F0, f1 + F1, f2 + F2
        z0, z1, z2 = buf[k + 6], buf[k + 7], buf[k + 8]  # last row of R_i: z_{i-1}
        if params[i, COL_PRISMATIC] > 0.5:
            tau[i] = z0 * f0 + z1 * f1 + z2 * f2
        else:
            tau[i] = z0 * t0 + z1 * t1 + z2 * t2
        # Into frame i-1: R_i (.).
        f0, f1, f2 = buf[k] * f0 + buf[k + 1] * f1 + buf[k + 2] * f2, \
            buf[k + 3] * f0 + buf[k + 4] * f1 + buf[k + 5] * f2, z0 * f0 + z1 * f1 + z2 * f2
        t0, t1, t2 = buf[k] * t0 + buf[k + 1] * t1 + buf[k + 2] * t2, \
            buf[k + 3] * t0 + buf[k + 4] * t1 + buf[k + 5] * t2, z0 * t0 + z1 * t1 + z2 * t2


@numba.njit(cache=True, nogil=True, error_model='numpy')
def newton_euler(q, qd, qdd, params, tau, buf):
    """tau = M(q) qdd + C(q, qd) qd + g(q) (seed 000 eq. 29) [N m or N] into ``tau``;
    ``buf`` scratch: its first (FRAME + WRENCH) n entries. No checks (see rnea_kernel)."""
    _outward(q, qd, qdd, params, buf)
    _inward(params, tau, buf)


@numba.njit(cache=True, nogil=True, error_model='numpy')
def rnea_kernel(q, qd, qdd, params, tau, buf):
    """tau = M qdd + C qd + g (seed 000 eq. 29) by recursive Newton-Euler; False on
    non-finite input."""
    if not (_all_finite(q) and _all_finite(qd) and _all_finite(qdd)):
        return False
    newton_euler(q, qd, qdd, params, tau, buf)
    return True


@numba.njit(cache=True, nogil=True, error_model='numpy')
def computed_torque_kernel(q, qd, q_ref, qd_ref, qdd_ref, kp, kd, params, friction, tau, buf):
    """tau = M(q)(qdd_r + Kd (qd_r - qd) + Kp (q_r - q)) + C(q, qd) qd + g(q) [+ tau_f(qd)]
    (seed 000 eq. 29 at that acceleration; friction: seed 004).

    One Newton-Euler pass with the commanded acceleration gives M a + C qd + g exactly;
    the commanded acceleration is staged in the last n entries of ``buf``. Returns False
    on non-finite input.
    """
    if not (_all_finite(q) and _all_finite(qd) and _all_finite(q_ref) and _all_finite(qd_ref)
            and _all_finite(qdd_ref) and _all_finite(kp) and _all_finite(kd)):
        return False
    n = q.shape[0]
    aq = buf[buf.shape[0] - n:]
    for i in range(n):
        aq[i] = qdd_ref[i] + kd[i] * (qd_ref[i] - qd[i]) + kp[i] * (q_ref[i] - q[i])
    newton_euler(q, qd, aq, params, tau, buf)
    if friction:
        for i in range(n):
            eps = params[i, COL_SMOOTHING]
            sgn = np.tanh(qd[i] / eps) if eps > 0.0 else np.sign(qd[i])
            tau[i] += params[i, COL_VISCOUS] * qd[i] + params[i, COL_COULOMB] * sgn
    return True
