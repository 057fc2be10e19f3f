"""Controller-rate recursive dynamics, compiled with numba (cached on disk).

Spatial-vector formulation in DH frame 0 (Featherstone's notation, motion vectors
[w; v_O] and force vectors [n_O; f] at the frame-0 origin):

* inertia matrix: composite rigid bodies, M_ij = S_i^T I^C_max(i,j) S_j;
* Coriolis matrix: C_ij = S_i^T (I^C_k Sdot_j + B^C_k S_j), k = max(i, j), with the
  body factor B(I, v) = 1/2 (v x* I + (I v) xbar - I v x). B + B^T = dI/dt, hence
  Mdot - 2C is skew-symmetric, and C equals the Christoffel C (seed 003 eq. 55) and
  seed 000's Kronecker C (eq. 52);
* gravity: g_i = -S_i^T I^C_i [0; g0].

Inverse dynamics and the computed-torque law need neither M nor C: newton_euler.py.

All kernels write into preallocated arrays and allocate nothing.
"""

import numba

from .newton_euler import _all_finite, _dh_joint, _dh_rotation
from .recursive_params import COL_COM, COL_INERTIA, COL_MASS, SCRATCH

__all__ = ['terms_kernel']


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _views(buf, n):
    o = 0
    rot = buf[o:o + 9 * (n + 1)].reshape((n + 1, 3, 3))
    o += 9 * (n + 1)
    pos = buf[o:o + 3 * (n + 1)].reshape((n + 1, 3))
    o += 3 * (n + 1)
    vec = buf[o:o + 36 * n].reshape((6, n, 6))
    o += 36 * n
    mat = buf[o:o + 144 * n].reshape((4, n, 6, 6))
    o += 144 * n
    scr = buf[o:o + SCRATCH]
    return rot, pos, vec, mat, scr


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _kinematics(q, qd, params, rot, pos, vec, mat, scr, with_b):
    """Base to tip, everything in frame 0 at its origin: per joint i the frame's rotation
    and origin (``rot``, ``pos``: index i + 1 for frame i, 0 the base), the joint's motion
    subspace S_i and its rate Sdot_i (``vec[0]``, ``vec[1]``), body i's spatial velocity
    v_i (``vec[2]``), its spatial inertia I_i about the frame-0 origin (``mat[0]``) and,
    with ``with_b``, the body factor B(I_i, v_i) (``mat[1]``; the Coriolis matrix needs it,
    the inertia matrix and gravity do not). The composite pass (tip to base) follows in
    the callers. ``q`` [rad or m], ``qd`` [rad/s or m/s]; ``params`` the DH rows
    (recursive_params), ``scr`` scratch. Writes only into the given arrays."""
    n = q.shape[0]
    s_all, sd_all, v_all = vec[0], vec[1], vec[2]
    inert, bmat = mat[0], mat[1]
    for r in range(3):
        for c in range(3):
            rot[0, r, c] = 1.0 if r == c else 0.0
        pos[0, r] = 0.0
    w = scr[0:3]
    u = scr[3:6]
    c = scr[6:9]
    h = scr[9:15]
    ic = scr[15:24].reshape((3, 3))
    tmp = scr[24:33].reshape((3, 3))
    x = scr[33:69].reshape((6, 6))
    for i in range(n):
        ct, st, ca, sa, d, prism = _dh_joint(params, i, q[i])
        a = params[i, 0]
        # Local rotation/translation of the standard DH transform, Rz Rx Ry(beta) (Hayati).
        l00, l01, l02, l10, l11, l12, l20, l21, l22 = _dh_rotation(params, i, ct, st, ca, sa)
        t0, t1, t2 = a * ct, a * st, d
        for r in range(3):
            p0, p1, p2 = rot[i, r, 0], rot[i, r, 1], rot[i, r, 2]
            rot[i + 1, r, 0] = p0 * l00 + p1 * l10 + p2 * l20
            rot[i + 1, r, 1] = p0 * l01 + p1 * l11 + p2 * l21
            rot[i + 1, r, 2] = p0 * l02 + p1 * l12 + p2 * l22
            pos[i + 1, r] = pos[i, r] + p0 * t0 + p1 * t1 + p2 * t2
        # Motion subspace of joint i (axis z of frame i-1 through its origin).
        z0, z1, z2 = rot[i, 0, 2], rot[i, 1, 2], rot[i, 2, 2]
        o0, o1, o2 = pos[i, 0], pos[i, 1], pos[i, 2]
        s = s_all[i]
        if prism:
            s[0] = s[1] = s[2] = 0.0
            s[3], s[4], s[5] = z0, z1, z2
        else:
            s[0], s[1], s[2] = z0, z1, z2
            s[3], s[4], s[5] = o1 * z2 - o2 * z1, o2 * z0 - o0 * z2, o0 * z1 - o1 * z0
        for k in range(6):
            prev = v_all[i - 1, k] if i > 0 else 0.0
            v_all[i, k] = prev + s[k] * qd[i]
        w[0], w[1], w[2] = v_all[i, 0], v_all[i, 1], v_all[i, 2]
        u[0], u[1], u[2] = v_all[i, 3], v_all[i, 4], v_all[i, 5]
        sd = sd_all[i]
        sd[0] = w[1] * s[2] - w[2] * s[1]
        sd[1] = w[2] * s[0] - w[0] * s[2]
        sd[2] = w[0] * s[1] - w[1] * s[0]
        sd[3] = u[1] * s[2] - u[2] * s[1] + w[1] * s[5] - w[2] * s[4]
        sd[4] = u[2] * s[0] - u[0] * s[2] + w[2] * s[3] - w[0] * s[5]
        sd[5] = u[0] * s[1] - u[1] * s[0] + w[0] * s[4] - w[1] * s[3]
        # Spatial inertia of body i about the frame-0 origin.
        m = params[i, COL_MASS]
        for r in range(3):
            c[r] = pos[i + 1, r]
            for k in range(3):
                c[r] += rot[i + 1, r, k] * params[i, COL_COM + k]
        for r in range(3):
            for k in range(3):
                acc = 0.0
                for j in range(3):
                    acc += rot[i + 1, r, j] * params[i, COL_INERTIA + 3 * j + k]
                tmp[r, k] = acc
        for r in range(3):
            for k in range(3):
                acc = 0.0
                for j in range(3):
                    acc += tmp[r, j] * rot[i + 1, k, j]
                ic[r, k] = acc
        cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2]
        big = inert[i]
        for r in range(3):
            for k in range(3):
                big[r, k] = ic[r, k] + m * ((cc if r == k else 0.0) - c[r] * c[k])
                big[r + 3, k + 3] = m if r == k else 0.0
        # m S(c) top right, m S(c)^T bottom left.
        big[0, 3], big[0, 4], big[0, 5] = 0.0, -m * c[2], m * c[1]
        big[1, 3], big[1, 4], big[1, 5] = m * c[2], 0.0, -m * c[0]
        big[2, 3], big[2, 4], big[2, 5] = -m * c[1], m * c[0], 0.0
        for r in range(3):
            for k in range(3):
                big[r + 3, k] = big[k, r + 3]
        if with_b:
            # B(I, v) = 1/2 (v x* I + (I v) xbar - I v x) in 3x3 blocks, with I_O the
            # rotational inertia about the origin, W = S(w), U = S(u), Sc = S(c) and
            # h = I v = (n, f):  B11 = 1/2 (W I_O - I_O W - m (U Sc + Sc U) - S(n)),
            # B12 = 0, B21 = -S(f), B22 = 0.
            for r in range(3):
                acc_n = 0.0
                for k in range(3):
                    acc_n += big[r, k] * w[k] + big[r, k + 3] * u[k]
                h[r] = acc_n
                acc_f = 0.0
                for k in range(3):
                    acc_f += big[r + 3, k] * w[k]
                h[r + 3] = acc_f + m * u[r]
            sw = x[0:3, 0:3]
            su = x[3:6, 0:3]
            sc = x[0:3, 3:6]
            _skew_into(w, sw)
            _skew_into(u, su)
            _skew_into(c, sc)
            bm = bmat[i]
            for r in range(3):
                for k in range(3):
                    acc = 0.0
                    for j in range(3):
                        acc += (sw[r, j] * big[j, k] - big[r, j] * sw[j, k]
                                - m * (su[r, j] * sc[j, k] + sc[r, j] * su[j, k]))
                    bm[r, k] = 0.5 * acc
                    bm[r, k + 3] = 0.0
                    bm[r + 3, k + 3] = 0.0
            n0, n1, n2, f0, f1, f2 = h[0], h[1], h[2], h[3], h[4], h[5]
            bm[0, 1] += 0.5 * n2
            bm[0, 2] -= 0.5 * n1
            bm[1, 0] -= 0.5 * n2
            bm[1, 2] += 0.5 * n0
            bm[2, 0] += 0.5 * n1
            bm[2, 1] -= 0.5 * n0
            bm[3, 0], bm[3, 1], bm[3, 2] = 0.0, f2, -f1
            bm[4, 0], bm[4, 1], bm[4, 2] = -f2, 0.0, f0
            bm[5, 0], bm[5, 1], bm[5, 2] = f1, -f0, 0.0


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _skew_into(v, out):
    out[0, 0], out[0, 1], out[0, 2] = 0.0, -v[2], v[1]
    out[1, 0], out[1, 1], out[1, 2] = v[2], 0.0, -v[0]
    out[2, 0], out[2, 1], out[2, 2] = -v[1], v[0], 0.0


@numba.njit(cache=True, nogil=True, error_model='numpy')
def terms_kernel(q, qd, params, out, buf, mode):
    """M, C, g into ``out`` (2n + 1, n): rows [0, n) M, [n, 2n) C, row 2n g (the matrices
    of seed 000 eqs. 28, 52, 45, by composite rigid bodies).

    ``mode`` bits: 1 = M, 2 = C, 4 = g. Returns False (``out`` untouched) when q or
    qd is not finite.
    """
    if not (_all_finite(q) and _all_finite(qd)):
        return False
    n = q.shape[0]
    want_m, want_c, want_g = (mode & 1) != 0, (mode & 2) != 0, (mode & 4) != 0
    rot, pos, vec, mat, scr = _views(buf, n)
    _kinematics(q, qd, params, rot, pos, vec, mat, scr, want_c)
    s_all, sd_all = vec[0], vec[1]
    av, bv, fv = vec[3], vec[4], vec[5]
    inert, bmat, ic, bc = mat[0], mat[1], mat[2], mat[3]
    g0, g1, g2 = params[n, 0], params[n, 1], params[n, 2]
    for i in range(n - 1, -1, -1):
        last = i == n - 1
        for r in range(6):
            for k in range(6):
                ic[i, r, k] = inert[i, r, k] + (0.0 if last else ic[i + 1, r, k])
                if want_c:
                    bc[i, r, k] = bmat[i, r, k] + (0.0 if last else bc[i + 1, r, k])
        for r in range(6):
            acc_a = 0.0
            acc_b = 0.0
            acc_f = 0.0
            for k in range(6):
                acc_a += ic[i, r, k] * s_all[i, k]
                if want_c:
                    acc_b += bc[i, k, r] * s_all[i, k]
                    acc_f += ic[i, r, k] * sd_all[i, k] + bc[i, r, k] * s_all[i, k]
            av[i, r] = acc_a
            bv[i, r] = acc_b
            fv[i, r] = acc_f
    for i in range(n):
        if want_g:
            out[2 * n, i] = -(av[i, 3] * g0 + av[i, 4] * g1 + av[i, 5] * g2)
        for j in range(i + 1):
            if want_m:
                acc = 0.0
                for k in range(6):
                    acc += av[i, k] * s_all[j, k]
                out[i, j] = acc
                out[j, i] = acc
            if want_c:
                acc = 0.0
                for k in range(6):
                    acc += av[i, k] * sd_all[j, k] + bv[i, k] * s_all[j, k]
                out[n + i, j] = acc
                if j < i:
                    acc = 0.0
                    for k in range(6):
                        acc += s_all[j, k] * fv[i, k]
                    out[n + j, i] = acc
    return True
