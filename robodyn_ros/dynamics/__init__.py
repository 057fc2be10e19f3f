"""M, C, g and inverse dynamics: seed formulations and the controller-rate recursive path."""

from .chain import DHChain, dh_chain
from .coriolis_matrix import coriolis_christoffel, coriolis_kronecker
from .friction import friction_torque
from .gravity_vector import gravity_jacobian, potential_energy
from .link_kinematics import LinkKinematics, link_kinematics
from .mass_matrix import (
                          mass_matrix_derivative,
                          mass_matrix_dh_frames,
                          mass_matrix_jacobian,
                          mass_matrix_pseudo_inertia,
)
from .rigid_body_dynamics import METHODS, RigidBodyDynamics

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
