"""Joint-space inertia matrix M(q): three reference routes from the seeds."""

import numpy as np

from ...model.inertial import inertia_about_origin
from ...model.spatial import skew
from .link_kinematics import link_kinematics

__all__ = [
    'mass_matrix_jacobian',
    'mass_matrix_derivative',
    'mass_matrix_dh_frames',
    'mass_matrix_pseudo_inertia',
]


def mass_matrix_jacobian(chain, q, kin=None):
    """M = sum_i m_i J_Ti^T J_Ti + J_Ri^T I_i J_Ri (seed 000 eq. 28).

    Args:
        chain: :class:`DHChain`.
        q: (n,) joint positions [rad or m].
        kin: optional precomputed :class:`LinkKinematics`.

    Returns:
        (n, n) inertia matrix [kg m^2 / kg m / kg].
    """
    kin = kin or link_kinematics(chain, q, derivatives=False)
    m = np.einsum('i,iaj,iak->jk', chain.mass, kin.jt, kin.jt)
    m += np.einsum('iaj,iab,ibk->jk', kin.jr, chain.inertia, kin.jr)
    return 0.5 * (m + m.T)


def mass_matrix_derivative(chain, kin):
    """Analytic dM/dq_k for every k, shape (n, n, n) with k first (seed 000 eq. 28
    differentiated with Theorem 1, eq. 32)."""
    djt_t_jt = np.einsum('i,kiaj,iab->kjb', chain.mass, kin.djt, kin.jt)
    dm = djt_t_jt + np.transpose(djt_t_jt, (0, 2, 1))
    rot_term = np.einsum('kiaj,iab,ibl->kjl', kin.djr, chain.inertia, kin.jr)
    dm += rot_term + np.transpose(rot_term, (0, 2, 1))
    return dm


def mass_matrix_dh_frames(chain, q):
    """Inertia matrix formed directly in DH frames (seed 003 eq. 49).

    D = sum_i [ m_i J_vi^T J_vi + J_wi^T R_i I_Oi R_i^T J_wi - 2 m_i J_vi^T R_i S(r_i) R_i^T J_wi ]
    with J_vi the Jacobian of the DH-frame origin d_0^i (eq. 41-42), J_wi the angular
    Jacobian (eq. 43-44), I_Oi the inertia about the frame origin (eq. 45-46) and r_i
    the centre of mass in frame i. (The seed prints the revolute and prismatic cases of
    eq. 42 swapped; the standard form z_{j-1} x (o_i - o_{j-1}) / z_{j-1} is used.)
    The -2m term is symmetrised, as it enters the quadratic form K = 1/2 qd^T D qd.
    """
    kin = link_kinematics(chain, q, derivatives=False)
    n = chain.n
    m = np.zeros((n, n))
    for i in range(n):
        origin = kin.frames[i + 1, :3, 3]
        jv = np.zeros((3, n))
        for j in range(i + 1):
            if chain.prismatic[j]:
                jv[:, j] = kin.z[j]
            else:
                jv[:, j] = np.cross(kin.z[j], origin - kin.o[j])
        rot, jw = kin.rot[i], kin.jr0[i]
        i_o = inertia_about_origin(chain.mass[i], chain.com[i], chain.inertia[i])
        cross = chain.mass[i] * jv.T @ rot @ skew(chain.com[i]) @ rot.T @ jw
        m += chain.mass[i] * jv.T @ jv + jw.T @ rot @ i_o @ rot.T @ jw - (cross + cross.T)
    return m


def _pseudo_inertia(mass, com, inertia_com):
    """J_i = integral of r r^T dm in homogeneous form (seed 001 eq. 2.20-2.21)."""
    i_o = inertia_about_origin(mass, com, inertia_com)
    j = np.zeros((4, 4))
    j[:3, :3] = 0.5 * np.trace(i_o) * np.eye(3) - i_o
    j[:3, 3] = j[3, :3] = mass * np.asarray(com)
    j[3, 3] = mass
    return j


def mass_matrix_pseudo_inertia(chain, q):
    """D_ij = sum_{p >= max(i,j)} tr(dT_p/dq_j J_p dT_p^T/dq_i) (seed 001 eq. 2.39).

    dT_p/dq_j = T_{j-1} Q_j T_{j-1}^{-1} T_p with Q_j the derivative operator of a
    rotation about (revolute) or translation along (prismatic) z.
    """
    kin = link_kinematics(chain, q, derivatives=False)
    n = chain.n
    q_rev = np.zeros((4, 4))
    q_rev[0, 1], q_rev[1, 0] = -1.0, 1.0
    q_pri = np.zeros((4, 4))
    q_pri[2, 3] = 1.0
    frames = kin.frames
    pseudo = [_pseudo_inertia(chain.mass[i], chain.com[i], chain.inertia[i]) for i in range(n)]
    dt = np.zeros((n, n, 4, 4))  # [p, j]
    for j in range(n):
        op = frames[j] @ (q_pri if chain.prismatic[j] else q_rev) @ np.linalg.inv(frames[j])
        for p in range(j, n):
            dt[p, j] = op @ frames[p + 1]
    m = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            for p in range(max(i, j), n):
                m[i, j] += np.trace(dt[p, j] @ pseudo[p] @ dt[p, i].T)
    return m
