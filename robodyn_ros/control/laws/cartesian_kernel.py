"""cartesian_impedance's task-space terms, compiled with numba (the law's cycle stays short
on the node path: numpy's small solves cost 9-11 us each); the equations are the law's
(cartesian_impedance.py), the Cholesky factorisations those of small SPD matrices."""

import math

import numba

__all__ = ['rotation_vector_into', 'task_torque_into']


@numba.njit(cache=True, nogil=True, error_model='numpy')
def rotation_vector_into(r, out):
    """theta u (3,) of the rotation matrix ``r`` (3, 3) into ``out``, theta in [0, pi]."""
    cos = min(max(0.5 * (r[0, 0] + r[1, 1] + r[2, 2] - 1.0), -1.0), 1.0)
    theta = math.acos(cos)
    s0, s1, s2 = 0.5 * (r[2, 1] - r[1, 2]), 0.5 * (r[0, 2] - r[2, 0]), 0.5 * (r[1, 0] - r[0, 1])
    if theta < 1e-6:
        out[0], out[1], out[2] = s0, s1, s2
        return
    if math.pi - theta > 1e-4:
        k = theta / math.sin(theta)
        out[0], out[1], out[2] = k * s0, k * s1, k * s2
        return
    # near pi: u from the symmetric part, (R + R^T) / 2 = cos 1 + (1 - cos) u u^T
    best, col = -1.0, 0
    for c in range(3):
        uu = (r[c, c] - cos) / (1.0 - cos)
        if uu > best:
            best, col = uu, c
    norm = 0.0
    for k in range(3):
        sym = 0.5 * (r[k, col] + r[col, k]) - (cos if k == col else 0.0)
        out[k] = sym / (1.0 - cos)
        norm += out[k] * out[k]
    sign = 1.0 if out[0] * s0 + out[1] * s1 + out[2] * s2 >= 0.0 else -1.0
    scale = sign * theta / math.sqrt(max(norm, 1e-300))
    for k in range(3):
        out[k] *= scale


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _cholesky(a, n):
    """Lower Cholesky factor of the SPD ``a`` (n, n), in place (the upper part unread)."""
    for j in range(n):
        d = a[j, j]
        for k in range(j):
            d -= a[j, k] * a[j, k]
        d = math.sqrt(max(d, 1e-300))
        a[j, j] = d
        for i in range(j + 1, n):
            s = a[i, j]
            for k in range(j):
                s -= a[i, k] * a[j, k]
            a[i, j] = s / d


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _solve(l_fac, n, b):
    """b := A^-1 b with A = L L^T (``l_fac`` from _cholesky), b (n,)."""
    for i in range(n):
        s = b[i]
        for k in range(i):
            s -= l_fac[i, k] * b[k]
        b[i] = s / l_fac[i, i]
    for i in range(n - 1, -1, -1):
        s = b[i]
        for k in range(i + 1, n):
            s -= l_fac[k, i] * b[k]
        b[i] = s / l_fac[i, i]


@numba.njit(cache=True, nogil=True, error_model='numpy')
def task_torque_into(j, e_x, xd_r, qd, mass, posture, k_x, zeta, mu, out, work):
    """out += J^T (K_x e_x + D_x (xd_r - J qd)) + N posture, with D_x,i = 2 zeta
    sqrt(K_x,i Lambda_ii), Lambda = (J M^-1 J^T + mu^2 1)^-1 and N = 1 - J^T (J J^T +
    mu^2 1)^-1 J (the law's docstring). ``work`` (n + 21, max(n, 6)) is overwritten."""
    n = qd.shape[0]
    lm, minv_jt = work[:n, :n], work[n:n + 6, :n]  # chol(M); rows: M^-1 J^T's columns
    task, jjt = work[n + 6:n + 12, :6], work[n + 12:n + 18, :6]
    vec, force, unit = work[n + 18, :], work[n + 19, :6], work[n + 20, :6]
    lm[:, :] = mass
    _cholesky(lm, n)
    for r in range(6):
        for i in range(n):
            vec[i] = j[r, i]
        _solve(lm, n, vec)
        for i in range(n):
            minv_jt[r, i] = vec[i]
    for a in range(6):
        for b in range(6):
            s, t = 0.0, 0.0
            for i in range(n):
                s += j[a, i] * minv_jt[b, i]
                t += j[a, i] * j[b, i]
            task[a, b] = s + (mu * mu if a == b else 0.0)
            jjt[a, b] = t + (mu * mu if a == b else 0.0)
    _cholesky(task, 6)
    for a in range(6):  # Lambda_aa = e_a^T (J M^-1 J^T + mu^2)^-1 e_a
        for b in range(6):
            unit[b] = 1.0 if a == b else 0.0
        _solve(task, 6, unit)
        d = 2.0 * zeta * math.sqrt(k_x[a] * max(unit[a], 0.0))
        xd = 0.0
        for i in range(n):
            xd += j[a, i] * qd[i]
        force[a] = k_x[a] * e_x[a] + d * (xd_r[a] - xd)
    _cholesky(jjt, 6)
    for a in range(6):  # (J J^T + mu^2)^-1 J posture
        s = 0.0
        for i in range(n):
            s += j[a, i] * posture[i]
        unit[a] = s
    _solve(jjt, 6, unit)
    for i in range(n):
        s = posture[i]
        for a in range(6):
            s += j[a, i] * (force[a] - unit[a])
        out[i] += s
