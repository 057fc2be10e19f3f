"""M, C, g and inverse dynamics, in three roles (one subpackage each):

* ``seed/``: the formulations of the seeds, closed form, the reference (slow);
* ``recursive/``: the compiled recursive path the 1 kHz controller runs;
* ``verification/``: the cross-check against Pinocchio.

``chain`` (DH parameters of a chain: the input of all three), ``friction`` and
``rigid_body_dynamics`` (one object per robot, choosing a formulation) sit at the top.

"Seed NNN eq. K" in the docstrings cites equation K of one of the five texts the
formulations come from: 000 and 002 Truc et al. 2020 (the Kronecker-product Coriolis
matrix), 001 a thesis' chapter II (DH frames), 003 Fateh (Christoffel symbols), 004 an
RMIT lecture (friction). docs/formulations.md lists every function with its equations.
"""

from .chain import DHChain, dh_chain
from .friction import friction_torque
from .rigid_body_dynamics import METHODS, RigidBodyDynamics
from .seed.coriolis_matrix import coriolis_christoffel, coriolis_kronecker
from .seed.gravity_vector import gravity_jacobian, potential_energy
from .seed.link_kinematics import LinkKinematics, link_kinematics
from .seed.mass_matrix import (
                          mass_matrix_derivative,
                          mass_matrix_dh_frames,
                          mass_matrix_jacobian,
                          mass_matrix_pseudo_inertia,
)

__all__ = [
    'DHChain',
    'LinkKinematics',
    'METHODS',
    'RigidBodyDynamics',
    'coriolis_christoffel',
    'coriolis_kronecker',
    'dh_chain',
    'friction_torque',
    'gravity_jacobian',
    'link_kinematics',
    'mass_matrix_derivative',
    'mass_matrix_dh_frames',
    'mass_matrix_jacobian',
    'mass_matrix_pseudo_inertia',
    'potential_energy',
]
