"""The controller's dynamics and law for its model, friction overrides and payload: built
at configure and again when the payload changes (between two cycles)."""

import numpy as np

from ..dynamics import RigidBodyDynamics
from ..errors import ConfigError, InputError, ModelError
from ..model.payload import payload_inertial, with_payload
from .laws import Adaptation, Cartesian, ControlLaw, LawConfig

__all__ = ['controller_dynamics', 'payload_body', 'arm_reach']


def arm_reach(model):
    """Upper bound of the distance from joint 1 to the tip frame [m]: the sum of the
    chain's joint-to-joint and tool offsets."""
    offsets = [np.linalg.norm(j.origin[:3, 3]) for j in model.joints[1:]]
    return float(sum(offsets) + np.linalg.norm(model.tool[:3, 3]))


def payload_body(mass, com, inertia, model=None, gravity=9.81):
    """The payload Inertial (tip frame) of the parameters, None for mass 0; ConfigError
    naming what is not physical or what ``model`` cannot carry: a centre of mass farther from
    the tip than the arm's reach, or a weight whose moment at that distance plus the reach
    exceeds every joint's effort limit (no joint could hold it)."""
    if not all(np.isfinite(v) for v in (mass, *com, *inertia)):
        raise ConfigError(f'payload: non-finite values: mass {mass}, com {list(com)}, '
                          f'inertia {list(inertia)}')
    if model is not None:
        reach, distance = arm_reach(model), float(np.linalg.norm(com))
        if distance > reach:
            raise ConfigError(f'payload.com: {list(com)} is {distance:.3g} m from the tip, '
                              f"beyond the arm's reach ({reach:.3g} m)")
    if mass == 0:
        return None
    if model is not None:
        moment = float(mass) * gravity * (reach + distance)
        strongest = float(np.max(model.effort_limits))
        if moment > strongest:
            raise ConfigError(f"payload.mass: {mass:g} kg weighs {moment:.4g} N m at the arm's "
                              f"reach, more than the strongest joint's effort limit "
                              f'({strongest:.4g} N m): not a payload this arm can carry')
    try:
        return payload_inertial(float(mass), com, inertia)
    except ModelError as exc:
        raise ConfigError(str(exc)) from None


def controller_dynamics(model, config, payload=None, method='recursive'):
    """(RigidBodyDynamics, ControlLaw) of ``model`` carrying ``payload`` (an Inertial in the
    tip frame, or None), with the config's friction overrides (empty: the URDF's).
    ``method``: RigidBodyDynamics' method; 'kronecker' (numpy only, nothing compiled) where
    only the chain and the friction values are read, as an export or a launch file does."""
    n = model.n
    try:
        dyn = RigidBodyDynamics(with_payload(model, payload), method, gravity=config.gravity,
                                viscous=config.per_joint('viscous', n) if config.viscous
                                else None,
                                coulomb=config.per_joint('coulomb', n) if config.coulomb
                                else None,
                                friction_smoothing=config.friction_smoothing)
        law = ControlLaw(dyn, LawConfig(
            config.mode, config.per_joint('kp', n), config.per_joint('kd', n),
            config.include_gravity, config.include_friction, config.feedforward_pd,
            config.velocity_lag, config.inertia_feedforward, Adaptation(
                tuple(config.adaptive_gamma), config.adaptive_mass_max,
                config.adaptive_rest_speed), Cartesian(
                tuple(config.cartesian_stiffness), config.cartesian_damping_ratio)))
    except InputError as exc:
        raise ConfigError(str(exc)) from None
    return dyn, law
