"""The controller's dynamics and law for its model, friction overrides and payload: built
at configure and again when the payload changes (between two cycles)."""

from ..dynamics import RigidBodyDynamics
from ..errors import ConfigError, InputError, ModelError
from ..model.payload import payload_inertial, with_payload
from .laws import ControlLaw, LawConfig

__all__ = ['controller_dynamics', 'payload_body']


def payload_body(mass, com, inertia):
    """The payload Inertial (tip frame) of the parameters, None for mass 0; ConfigError
    naming what is not physical."""
    if mass == 0:
        return None
    try:
        return payload_inertial(float(mass), com, inertia)
    except ModelError as exc:
        raise ConfigError(str(exc)) from None


def controller_dynamics(model, config, payload=None):
    """(RigidBodyDynamics, ControlLaw) of ``model`` carrying ``payload`` (an Inertial in the
    tip frame, or None), with the config's friction overrides (empty: the URDF's)."""
    n = model.n
    try:
        dyn = RigidBodyDynamics(with_payload(model, payload), gravity=config.gravity,
                                viscous=config.per_joint('viscous', n) if config.viscous
                                else None,
                                coulomb=config.per_joint('coulomb', n) if config.coulomb
                                else None,
                                friction_smoothing=config.friction_smoothing)
        law = ControlLaw(dyn, LawConfig(
            config.mode, config.per_joint('kp', n), config.per_joint('kd', n),
            config.include_gravity, config.include_friction, config.feedforward_pd))
    except InputError as exc:
        raise ConfigError(str(exc)) from None
    return dyn, law
