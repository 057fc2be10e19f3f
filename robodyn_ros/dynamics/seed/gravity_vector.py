"""Gravity vector g(q) = (dP/dq)^T (seed 000 eq. 45)."""

import numpy as np

__all__ = ['gravity_jacobian', 'potential_energy']


def potential_energy(chain, kin):
    """P = -sum_i m_i (g^0)^T p_Ci^0 [J] (seed 000 eq. 17)."""
    return float(-np.einsum('i,a,ia->', chain.mass, chain.gravity, kin.c))


def gravity_jacobian(chain, kin):
    """g = (dP/dq)^T = -sum_i m_i (J_Ti^0)^T g^0 (seed 000 eq. 45 with eq. 24)."""
    return -np.einsum('i,iaj,a->j', chain.mass, kin.jt, chain.gravity)
