"""The adaptive law's compiled projection (numba; imported when an adaptive law is built,
so the law registry loads no compiler)."""

import numba
import numpy as np

__all__ = ['project_into']


@numba.njit(cache=True, nogil=True, error_model='numpy')
def project_into(pi, mass_max, eps, out):
    """adaptive.project into ``out``, compiled (a 4x4 eigen-decomposition: about 3 us
    against 40 us in numpy calls). J = [[tr(I)/2 1 - I, h], [h^T, m]] (seed 001's
    pseudo-inertia; model/inertial_parameters.py has the same maps in numpy)."""
    xx, xy, xz, yy, yz, zz = pi[4], pi[5], pi[6], pi[7], pi[8], pi[9]
    half = 0.5 * (xx + yy + zz)
    j = np.array([[half - xx, -xy, -xz, pi[1]], [-xy, half - yy, -yz, pi[2]],
                  [-xz, -yz, half - zz, pi[3]], [pi[1], pi[2], pi[3], pi[0]]])
    w, v = np.linalg.eigh(j)
    if w[0] < eps:
        for k in range(4):
            w[k] = max(w[k], eps)
        j = (v * w) @ v.T
    if j[3, 3] > mass_max:
        j = j * (mass_max / j[3, 3])
    trace = j[0, 0] + j[1, 1] + j[2, 2]  # tr(Sigma) = tr(I) / 2
    out[0], out[1], out[2], out[3] = j[3, 3], j[0, 3], j[1, 3], j[2, 3]
    out[4], out[5], out[6] = trace - j[0, 0], -j[0, 1], -j[0, 2]
    out[7], out[8], out[9] = trace - j[1, 1], -j[1, 2], trace - j[2, 2]
