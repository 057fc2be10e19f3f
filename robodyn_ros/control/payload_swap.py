"""A payload change of a running controller: built off the control thread, swapped in
between two cycles.

Why two steps: a new payload changes the dynamics, the law, the online cross-check and the
fused cycle (about 2.5 ms to build for the Panda), too long for a 1 kHz cycle; the control
thread only swaps references (O(1)). A payload that is not physical is refused before
anything is built (ConfigError), so the parameter callback can answer at once.
"""

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from .controller_dynamics import controller_dynamics, payload_body
from .events import EventKind, emit
from .levels import Level

__all__ = ['PreparedPayload', 'check_payload', 'prepare_payload', 'adopt_payload',
           'gravity_norm']


class PreparedPayload(NamedTuple):
    """A payload's body and the dynamics, law, cross-check and fused cycle carrying it
    (:func:`prepare_payload`); ``text`` says what changed."""

    body: Any
    dyn: Any
    law: Any
    cross_check: Any
    fused: Any
    text: str


def gravity_norm(config) -> float:
    """|gravity| [m/s^2] of a ControllerConfig (the payload check's scale)."""
    return float(np.linalg.norm(config.gravity))


def check_payload(core, mass: float, com: Sequence[float], inertia: Sequence[float]) -> None:
    """ConfigError when the payload (mass [kg], com [m] and inertia about the com [kg m^2]
    in the tip frame) is not physical for ``core``'s model; cheap."""
    payload_body(mass, com, inertia, core.model, gravity_norm(core.config))


def prepare_payload(core, mass: float, com: Sequence[float],
                    inertia: Sequence[float]) -> PreparedPayload:
    """Everything a new payload changes for ``core`` (a ControllerCore), built without
    changing anything: any thread may call it. ConfigError when it is not physical."""
    from .fused_cycle import FusedCycle
    body = payload_body(mass, com, inertia, core.model, gravity_norm(core.config))
    dyn, law = controller_dynamics(core.model, core.config, body)
    cross_check = core._cross_check(dyn)
    fused = FusedCycle.build(core, dyn, law, cross_check)
    return PreparedPayload(body, dyn, law, cross_check, fused,
                           f'payload now {mass:g} kg at {list(com)} m')


def adopt_payload(core, prepared: PreparedPayload) -> None:
    """Swap ``prepared`` into ``core`` (the control thread, between cycles; O(1)): the
    supervisor's gravity and the collision observer follow the new dynamics."""
    law = prepared.law  # built with the configured gains: the ones in force carry over
    law.kp[:], law.kd[:], law.gains = core.law.kp, core.law.kd, core.law.gains
    if prepared.fused is not None:
        prepared.fused.set_gains(law.kp, law.kd)
    core.payload, core.dyn, core.law = prepared.body, prepared.dyn, law
    core.cross_check, core.fused_cycle = prepared.cross_check, prepared.fused
    if core.config.include_gravity:
        core.supervisor.gravity = prepared.dyn.gravity_vector
    if core.collision is not None:
        core.collision.observer.dyn = prepared.dyn
    emit(core.events, EventKind.PAYLOAD_ADOPTED, Level.OK, prepared.text)
