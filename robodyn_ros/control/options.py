"""The controller's option parameters as enums: the value is the word of the parameter, the
logs and /diagnostics (a StrEnum compares equal to it)."""

from enum import StrEnum

__all__ = ['Trigger', 'SafeCommand', 'InitialOutput', 'OPTION_TYPES']

class Trigger(StrEnum):
    """What runs a control cycle (parameter ``trigger``)."""

    TIMER = 'timer'  # the timer, at ``rate``
    STATE = 'state'  # each new joint state, answered at once; the timer is the watchdog


class SafeCommand(StrEnum):
    """The command of safe mode (parameter ``safe_command``)."""

    HOLD = 'hold'  # position hold while the state is trusted, else gravity + damping
    ZERO = 'zero'  # zero torque


class InitialOutput(StrEnum):
    """Where the rate limit starts at the first activation (parameter ``initial_output``)."""

    HOLD = 'hold'  # the torque holding the arm where its brakes held it
    ZERO = 'zero'


#: The parameters whose value is one of an enum's members: ControllerConfig holds the member.
OPTION_TYPES: dict[str, type[StrEnum]] = {'trigger': Trigger, 'safe_command': SafeCommand,
                                          'initial_output': InitialOutput}
