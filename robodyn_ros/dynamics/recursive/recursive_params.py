"""Parameters and scratch space of the compiled recursive dynamics (plain numpy: importing
this does not load numba).

One row per joint of a (n + 1, PARAM_WIDTH) float array, columns named below; row n holds
gravity [m/s^2] in frame 0. Inertial columns are in DH frame i (mass [kg], centre of mass
[m], inertia about the COM [kg m^2], row-major); friction as in seed 004.
"""

import numpy as np

__all__ = ['PARAM_WIDTH', 'COL_A', 'COL_ALPHA', 'COL_D', 'COL_THETA0', 'COL_PRISMATIC',
           'COL_MASS', 'COL_COM', 'COL_INERTIA', 'COL_VISCOUS', 'COL_COULOMB',
           'COL_SMOOTHING', 'COL_COS_BETA', 'COL_SIN_BETA', 'MODE_M', 'MODE_C', 'MODE_G',
           'MODE_ALL', 'SCRATCH',
           'pack_params', 'workspace', 'workspace_size']

COL_A, COL_ALPHA, COL_D, COL_THETA0, COL_PRISMATIC, COL_MASS = range(6)
COL_COM = 6  # 3 columns
COL_INERTIA = 9  # 9 columns
COL_VISCOUS, COL_COULOMB, COL_SMOOTHING = 18, 19, 20
#: cos and sin of Hayati's beta (DHChain.beta), stored so no kernel evaluates them.
COL_COS_BETA, COL_SIN_BETA = 21, 22
PARAM_WIDTH = 23
#: What terms_kernel computes: bits of M, C, g.
MODE_M, MODE_C, MODE_G = 1, 2, 4
MODE_ALL = MODE_M | MODE_C | MODE_G

SCRATCH = 80


def pack_params(chain, viscous, coulomb, smoothing):
    """Pack a DHChain and friction into one (n + 1, PARAM_WIDTH) array; row n is gravity."""
    n = chain.n
    params = np.zeros((n + 1, PARAM_WIDTH))
    params[:n, COL_A], params[:n, COL_ALPHA] = chain.a, chain.alpha
    params[:n, COL_D], params[:n, COL_THETA0] = chain.d, chain.theta0
    params[:n, COL_PRISMATIC] = chain.prismatic.astype(float)
    params[:n, COL_MASS] = chain.mass
    params[:n, COL_COM:COL_COM + 3] = chain.com
    params[:n, COL_INERTIA:COL_INERTIA + 9] = chain.inertia.reshape(n, 9)
    params[:n, COL_VISCOUS], params[:n, COL_COULOMB] = viscous, coulomb
    params[:n, COL_SMOOTHING] = smoothing
    params[:n, COL_COS_BETA], params[:n, COL_SIN_BETA] = np.cos(chain.beta), np.sin(chain.beta)
    params[n, 0:3] = chain.gravity
    return params


def workspace(n):
    """Flat scratch buffer for the kernels (one per dynamics object)."""
    return np.zeros(workspace_size(n))


def workspace_size(n):
    """Length of the flat scratch buffer for n joints."""
    return 9 * (n + 1) + 3 * (n + 1) + 6 * 6 * n + 4 * 36 * n + SCRATCH + n
