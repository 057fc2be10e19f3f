"""The safety supervisor's vocabulary: its states, the safe command's kinds, their
diagnostic levels, and what the fused cycle reads from it (control/safety/supervisor.py)."""

from enum import StrEnum
from typing import NamedTuple

import numpy as np

from ..levels import Level

__all__ = ['SupervisorState', 'HoldKind', 'FusedInputs', 'INACTIVE', 'WAITING', 'RAMP_IN',
           'ACTIVE', 'SAFE', 'HELD', 'LEVELS', 'POSITION_HOLD', 'GRAVITY_HOLD', 'ZERO_TORQUE']


class SupervisorState(StrEnum):
    """Where the supervisor is (its ``state``; ``mode`` names the control law): the value
    is the word logs and /diagnostics show."""

    INACTIVE = 'inactive'
    WAITING = 'waiting'
    RAMP_IN = 'ramp_in'
    ACTIVE = 'active'
    SAFE = 'safe'
    #: deactivated, still supervising: the safe command at rate, a position hold where the
    #: arm was released (what holds the arm once a forward controller keeps the last
    #: message is nothing but this publisher)
    HELD = 'held'


INACTIVE, WAITING, RAMP_IN, ACTIVE, SAFE, HELD = SupervisorState


class HoldKind(StrEnum):
    """The safe command's kinds (SafetySupervisor.hold_kind), as diagnostics name them."""

    POSITION = 'position hold'  # g(q) + PD to the position of the trip: the state is trusted
    GRAVITY = 'gravity + damping'  # g(q_v) - D qd_v at the last valid state: it is not
    ZERO = 'zero torque'  # safe_command: zero


POSITION_HOLD, GRAVITY_HOLD, ZERO_TORQUE = HoldKind
#: Diagnostic level of each state.
LEVELS = {INACTIVE: Level.WARN, WAITING: Level.WARN, RAMP_IN: Level.OK, ACTIVE: Level.OK,
          SAFE: Level.ERROR, HELD: Level.WARN}


class FusedInputs(NamedTuple):
    """What the fused cycle reads from the supervisor for one active cycle
    (:meth:`SafetySupervisor.fused_inputs`); it hands the result back through
    :meth:`SafetySupervisor.accept_fused`, and touches nothing else of the supervisor.

    Attributes:
        output: the last output (chain order) [N m or N]; the fused kernel rate-limits
            and clamps the new output into it in place, and only on success.
        elapsed: time since that output [s] (the rate limit's budget, see step_at).
        previous: the last valid state's positions (chain order), for the jump check.
        since_valid: time between that state and this one [s] (see since_valid).
    """

    output: np.ndarray
    elapsed: float
    previous: np.ndarray
    since_valid: float
