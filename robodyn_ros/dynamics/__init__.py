"""M, C, g and inverse dynamics, in three roles (one subpackage each):

* ``seed/``: the formulations of the seeds, closed form, the reference (slow);
* ``recursive/``: the compiled recursive path the 1 kHz controller runs;
* ``verification/``: the cross-check against Pinocchio.

``chain`` (DH parameters of a chain: the input of all three), ``friction`` and
``rigid_body_dynamics`` (one object per robot, choosing a formulation) sit at the top.
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
