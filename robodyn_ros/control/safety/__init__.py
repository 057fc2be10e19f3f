"""The safety supervisor: its state machine, the limits it enforces and the compiled
checks both the supervisor and the fused cycle call (one implementation of each rule).

SafetySupervisor is imported on first use: it loads numba (about 0.3 s), which
configuring, validating and the command line do not need.
"""

from typing import TYPE_CHECKING

from .limits import SafetyLimits

if TYPE_CHECKING:
    from .supervisor import SafetySupervisor

__all__ = ['SafetyLimits', 'SafetySupervisor']


def __getattr__(name):
    if name == 'SafetySupervisor':
        from .supervisor import SafetySupervisor
        return SafetySupervisor
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
