"""Link poses, Jacobians and their analytic partial derivatives (seed 000 sections 2-3).

All vectors are expressed in DH frame 0 (the fixed base). Index conventions are
0-based: joint j turns about ``z[j]`` (the z axis of DH frame j-1) through ``o[j]``,
body i carries DH frame i+1 and its centre of mass ``c[i]``.
"""

from dataclasses import dataclass

import numpy as np

from ...model.spatial import rot_y

__all__ = ['LinkKinematics', 'link_kinematics']


@dataclass(frozen=True)
class LinkKinematics:
    """Kinematic quantities of all links at one configuration.

    Attributes:
        frames: (n+1, 4, 4) T_i^0 (seed 000 eq. 15), frame 0 first.
        z, o: (n, 3) axis direction and a point of joint j.
        c: (n, 3) p_{C_i}^0, the COM of body i (eq. 14).
        rot: (n, 3, 3) R_i^0 of body i.
        jt: (n, 3, n) J_{T_i}^0 = d p_{C_i}^0 / dq (eq. 24).
        jr0: (n, 3, n) J_{R_i}^0, base frame (eq. 23).
        jr: (n, 3, n) J_{R_i} = (R_i^0)^T J_{R_i}^0, body frame (eq. 25).
        djt, djr: (n, n, 3, n) d J / d q_k (index k first), analytic.
    """

    frames: np.ndarray
    z: np.ndarray
    o: np.ndarray
    c: np.ndarray
    rot: np.ndarray
    jt: np.ndarray
    jr0: np.ndarray
    jr: np.ndarray
    djt: np.ndarray | None
    djr: np.ndarray | None


def _frames(chain, q):
    n = chain.n
    theta = chain.theta0 + np.where(chain.prismatic, 0.0, q)
    d = chain.d + np.where(chain.prismatic, q, 0.0)
    ct, st = np.cos(theta), np.sin(theta)
    ca, sa = np.cos(chain.alpha), np.sin(chain.alpha)
    frames = np.empty((n + 1, 4, 4))
    frames[0] = np.eye(4)
    for i in range(n):
        a_i = np.array([[ct[i], -st[i] * ca[i], st[i] * sa[i], chain.a[i] * ct[i]],
                        [st[i], ct[i] * ca[i], -ct[i] * sa[i], chain.a[i] * st[i]],
                        [0.0, sa[i], ca[i], d[i]],
                        [0.0, 0.0, 0.0, 1.0]])
        if chain.beta[i]:  # Hayati's Ry(beta) on a nearly parallel axis
            a_i[:3, :3] = a_i[:3, :3] @ rot_y(chain.beta[i])
        frames[i + 1] = frames[i] @ a_i
    return frames


def link_kinematics(chain, q, derivatives=True):
    """Poses, Jacobians and (optionally) dJ/dq of every link at ``q`` (seed 000 eqs. 15,
    24-25).

    The derivatives are analytic: a direction fixed in body m >= k turns as
    d(v)/dq_k = z_k x v for a revolute joint k; a point additionally translates by
    z_k for a prismatic joint k (seed 000 Theorem 1 applied link by link).
    """
    n = chain.n
    rev = ~chain.prismatic
    frames = _frames(chain, q)
    rot = frames[1:, :3, :3]
    z = frames[:-1, :3, 2]
    o = frames[:-1, :3, 3]
    c = frames[1:, :3, 3] + np.einsum('iab,ib->ia', rot, chain.com)
    lower = np.tril(np.ones((n, n), dtype=bool))  # [i, j]: j <= i
    # J_T: column j of body i.
    lever = c[:, None, :] - o[None, :, :]  # (i, j, 3)
    col = np.where(rev[None, :, None], np.cross(z[None, :, :], lever), z[None, :, :])
    col = col * lower[:, :, None]
    jt = np.transpose(col, (0, 2, 1))
    jr0_cols = (z[None, :, :] * (lower & rev[None, :])[:, :, None])
    jr0 = np.transpose(jr0_cols, (0, 2, 1))
    jr = np.einsum('iba,ibj->iaj', rot, jr0)
    if not derivatives:
        return LinkKinematics(frames, z, o, c, rot, jt, jr0, jr, None, None)
    strict = np.triu(np.ones((n, n), dtype=bool), 1)  # [k, j]: k < j
    # d z_j / d q_k and d o_j / d q_k.
    dz = np.cross(z[:, None, :], z[None, :, :]) * (strict & rev[:, None])[:, :, None]
    do = np.where(rev[:, None, None], np.cross(z[:, None, :], o[None, :, :] - o[:, None, :]),
                  z[:, None, :]) * strict[:, :, None]
    # d c_i / d q_k, k <= i.
    upper = lower.T  # [k, i]: k <= i
    dc = np.where(rev[:, None, None], np.cross(z[:, None, :], c[None, :, :] - o[:, None, :]),
                  z[:, None, :]) * upper[:, :, None]
    # d J_T[i][:, j] / d q_k  -> shape (k, i, j, 3).
    dcol_rev = (np.cross(dz[:, None, :, :], lever[None, :, :, :])
                + np.cross(z[None, None, :, :], dc[:, :, None, :] - do[:, None, :, :]))
    dcol = np.where(rev[None, None, :, None], dcol_rev, dz[:, None, :, :])
    dcol = dcol * lower[None, :, :, None]
    djt = np.transpose(dcol, (0, 1, 3, 2))
    djr0 = np.transpose(dz[:, None, :, :] * (lower & rev[None, :])[None, :, :, None],
                        (0, 1, 3, 2))
    # Body-frame J_R: d(R^T J)/dq_k = R^T (dJ0 - [k <= i, rev_k] z_k x J0).
    turn = np.cross(z[:, None, None, :], np.transpose(jr0, (0, 2, 1))[None, :, :, :])
    turn = turn * (upper & rev[:, None])[:, :, None, None]
    djr = np.einsum('iba,kibj->kiaj', rot, djr0 - np.transpose(turn, (0, 1, 3, 2)))
    return LinkKinematics(frames, z, o, c, rot, jt, jr0, jr, djt, djr)
