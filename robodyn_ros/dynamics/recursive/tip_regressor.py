"""The Slotine-Li regressor of a payload rigidly attached to the tip, derived (compiled with
numba): the adaptive law's Y_p(q, qd, v, a) with Y_p pi = M_p(q) a + C_p(q, qd) v + g_p(q),
C the seeds' Christoffel matrix (seed 003 eq. 55; seed 000 eq. 52: Mdot - 2C skew).

Why derived and not differenced: the payload enters the dynamics only through the tip
body's Newton-Euler equations at the tip origin, both linear in pi = [m, h = m c, I_O],

    f = m a_O + w' x h + w x (w x h),    n_O = I_O w' + w x (I_O w) + h x a_O,

and tau = J_v^T f + J_w^T n_O with the tip point's Jacobian. So three outward passes of
seed 000's recursion on the DH poses (the tip's w, w', a_O for (0, a) with gravity, and
for qd + v and qd - v without: the polarisation C(q, qd) v = 1/4 (n(qd + v) - n(qd - v)))
give the whole (n, 10) map, where differencing the inverse dynamics needs 33 recursions.
The same derivation as the C++ controller's PayloadRegressor (payload_adaptation.hpp).
Frames: everything in DH frame 0, then the tip's axes; ``tool`` (4, 4) is the tip link in
DH frame n (DHTable.tool), ``params`` the packed rows (recursive_params, gravity in row n).
"""

import numba

from .newton_euler import _dh_joint, _dh_rotation
from .recursive_params import COL_A, COL_PRISMATIC

__all__ = ['tip_slotine_li']


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _axpy(k, x, y):
    """k x + y for 3-tuples."""
    return (k * x[0] + y[0], k * x[1] + y[1], k * x[2] + y[2])


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _rot(r, v):
    """R v, R a row-major 9-tuple."""
    return (r[0] * v[0] + r[1] * v[1] + r[2] * v[2], r[3] * v[0] + r[4] * v[1] + r[5] * v[2],
            r[6] * v[0] + r[7] * v[1] + r[8] * v[2])


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _rot_t(r, v):
    """R^T v: v in R's own axes."""
    return (r[0] * v[0] + r[3] * v[1] + r[6] * v[2], r[1] * v[0] + r[4] * v[1] + r[7] * v[2],
            r[2] * v[0] + r[5] * v[1] + r[8] * v[2])


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _mul(a, b):
    """A B for row-major 9-tuples."""
    return (a[0] * b[0] + a[1] * b[3] + a[2] * b[6], a[0] * b[1] + a[1] * b[4] + a[2] * b[7],
            a[0] * b[2] + a[1] * b[5] + a[2] * b[8], a[3] * b[0] + a[4] * b[3] + a[5] * b[6],
            a[3] * b[1] + a[4] * b[4] + a[5] * b[7], a[3] * b[2] + a[4] * b[5] + a[5] * b[8],
            a[6] * b[0] + a[7] * b[3] + a[8] * b[6], a[6] * b[1] + a[7] * b[4] + a[8] * b[7],
            a[6] * b[2] + a[7] * b[5] + a[8] * b[8])


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _poses(q, params, tool, work):
    """Per joint (rows of ``work``): z_{i-1}, o_{i-1} and the arm o_i - o_{i-1} (frame 0);
    returns (R_0tip row-major, o_tip - o_n, o_n)."""
    r = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
    o = (0.0, 0.0, 0.0)
    for i in range(q.shape[0]):
        ct, st, ca, sa, d, _ = _dh_joint(params, i, q[i])
        a = params[i, COL_A]
        arm = _rot(r, (a * ct, a * st, d))
        for k in range(3):
            work[i, k], work[i, 3 + k], work[i, 6 + k] = r[3 * k + 2], o[k], arm[k]
        o = _axpy(1.0, arm, o)
        r = _mul(r, _dh_rotation(params, i, ct, st, ca, sa))
    t = tool
    r_tool = (t[0, 0], t[0, 1], t[0, 2], t[1, 0], t[1, 1], t[1, 2], t[2, 0], t[2, 1], t[2, 2])
    return _mul(r, r_tool), _rot(r, (t[0, 3], t[1, 3], t[2, 3])), o


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _outward(x, y, g, params, work, tip_arm):
    """The tip's (w, w', a_O) in frame 0 for joint velocities ``x`` and accelerations ``y``
    (Luh-Walker-Paul's outward pass; joint i about or along z_{i-1} through o_{i-1}); the
    base accelerated by -``g`` (gravity, or zeros)."""
    w, wd, acc = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (-g[0], -g[1], -g[2])
    for i in range(x.shape[0]):
        z = (work[i, 0], work[i, 1], work[i, 2])
        r = (work[i, 6], work[i, 7], work[i, 8])
        if params[i, COL_PRISMATIC] > 0.5:
            acc = _axpy(y[i], z, _axpy(2.0 * x[i], _cross(w, z), acc))
        else:
            wd = _axpy(x[i], _cross(w, z), _axpy(y[i], z, wd))
            w = _axpy(x[i], z, w)
        acc = _axpy(1.0, _cross(w, _cross(w, r)), _axpy(1.0, _cross(wd, r), acc))
    acc = _axpy(1.0, _cross(w, _cross(w, tip_arm)), _axpy(1.0, _cross(wd, tip_arm), acc))
    return w, wd, acc


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _add_terms(w, wd, acc, k, f, m):
    """k x the tip body's rows into f and m (3, 10), in the tip's axes: f = m a + w' x h +
    w x (w x h), n_O = I_O w' + w x (I_O w) + h x a (h x a = -a x h)."""
    ww = w[0] * w[0] + w[1] * w[1] + w[2] * w[2]
    skew_wd = ((0.0, -wd[2], wd[1]), (wd[2], 0.0, -wd[0]), (-wd[1], wd[0], 0.0))
    skew_a = ((0.0, -acc[2], acc[1]), (acc[2], 0.0, -acc[0]), (-acc[1], acc[0], 0.0))
    for r in range(3):
        f[r, 0] += k * acc[r]
        for c in range(3):
            f[r, 1 + c] += k * (skew_wd[r][c] + w[r] * w[c] - (ww if r == c else 0.0))
            m[r, 1 + c] -= k * skew_a[r][c]
    # I_O u = L(u) [xx xy xz yy yz zz]; n gets L(w') + w x L(w), column by column
    for c in range(6):
        lwd = ((wd[0], 0.0, 0.0), (wd[1], wd[0], 0.0), (wd[2], 0.0, wd[0]), (0.0, wd[1], 0.0),
               (0.0, wd[2], wd[1]), (0.0, 0.0, wd[2]))[c]
        lw = ((w[0], 0.0, 0.0), (w[1], w[0], 0.0), (w[2], 0.0, w[0]), (0.0, w[1], 0.0),
              (0.0, w[2], w[1]), (0.0, 0.0, w[2]))[c]
        turn = _cross(w, lw)
        for r in range(3):
            m[r, 4 + c] += k * (lwd[r] + turn[r])


@numba.njit(cache=True, nogil=True, error_model='numpy')
def tip_slotine_li(q, qd, v, a, params, tool, out, scratch):
    """Y_p(q, qd, v, a) (n, 10) into ``out``: Y_p pi = M_p a + C_p v + g_p (seed 000 eq. 29
    for the tip body alone, C as seed 003 eq. 55), pi in the tip frame (module docstring);
    ``scratch`` (n + 9, max(n, 10)) is overwritten. No checks (the law checks its inputs)."""
    n = q.shape[0]
    work, plus, minus, zero = scratch[:n], scratch[n, :n], scratch[n + 1, :n], scratch[n + 2, :n]
    f, m = scratch[n + 3:n + 6, :10], scratch[n + 6:n + 9, :10]
    r_tip, tip_arm, o_n = _poses(q, params, tool, work)
    tip = _axpy(1.0, tip_arm, o_n)
    none = (0.0, 0.0, 0.0)
    g = (params[n, 0], params[n, 1], params[n, 2])
    for i in range(n):
        plus[i], minus[i], zero[i] = qd[i] + v[i], qd[i] - v[i], 0.0
    f[:, :] = 0.0
    m[:, :] = 0.0
    _, wd, acc = _outward(zero, a, g, params, work, tip_arm)
    w_up, wd_up, acc_up = _outward(plus, zero, none, params, work, tip_arm)
    w_down, wd_down, acc_down = _outward(minus, zero, none, params, work, tip_arm)
    wd = _axpy(-0.25, wd_down, _axpy(0.25, wd_up, wd))
    acc = _axpy(-0.25, acc_down, _axpy(0.25, acc_up, acc))
    _add_terms(none, _rot_t(r_tip, wd), _rot_t(r_tip, acc), 1.0, f, m)
    _add_terms(_rot_t(r_tip, w_up), none, none, 0.25, f, m)
    _add_terms(_rot_t(r_tip, w_down), none, none, -0.25, f, m)
    for j in range(n):
        z = (work[j, 0], work[j, 1], work[j, 2])
        if params[j, COL_PRISMATIC] > 0.5:
            jv, jw = _rot_t(r_tip, z), none
        else:
            arm = (tip[0] - work[j, 3], tip[1] - work[j, 4], tip[2] - work[j, 5])
            jv, jw = _rot_t(r_tip, _cross(z, arm)), _rot_t(r_tip, z)
        for c in range(10):
            out[j, c] = (jv[0] * f[0, c] + jv[1] * f[1, c] + jv[2] * f[2, c] +
                         jw[0] * m[0, c] + jw[1] * m[1, c] + jw[2] * m[2, c])
    return out
