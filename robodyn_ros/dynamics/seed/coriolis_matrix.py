"""Coriolis/centrifugal matrix C(q, qd) from the analytic dM/dq."""

import numpy as np

__all__ = ['coriolis_kronecker', 'coriolis_christoffel', 'kronecker_dmdq']


def kronecker_dmdq(dm):
    """dM/dq laid out as seed 000 Definition 2 (eq. 31): an n x n^2 matrix whose
    column q*n + k holds dM[:, q] / dq_k."""
    n = dm.shape[0]
    return np.transpose(dm, (1, 2, 0)).reshape(n, n * n)


def coriolis_kronecker(dm, qd):
    """C = 1/2 [ dM/dq (1_n (x) qd) + dM/dq (qd (x) 1_n) - (dM/dq (qd (x) 1_n))^T ]
    (seed 000 eq. 52), so that Mdot - 2C = V^T - V is skew-symmetric (eq. 55).

    Args:
        dm: (n, n, n) dM/dq_k, k first.
        qd: (n,) joint velocities.
    """
    n = len(qd)
    dmdq = kronecker_dmdq(dm)
    eye = np.eye(n)
    col = qd.reshape(n, 1)
    u = dmdq @ np.kron(eye, col)
    v = dmdq @ np.kron(col, eye)
    return 0.5 * (u + v - v.T)


def coriolis_christoffel(dm, qd):
    """C_kj = 1/2 sum_i (dM_kj/dq_i + dM_ki/dq_j - dM_ij/dq_k) qd_i (seed 003 eq. 55,
    seed 004 Christoffel symbols of the first kind)."""
    return 0.5 * (np.einsum('ikj,i->kj', dm, qd) + np.einsum('jki,i->kj', dm, qd)
                  - np.einsum('kij,i->kj', dm, qd))
