"""Controller core, pure (no ROS): laws, the core and its fused cycle, the parameters it
takes; references (reference/) and the safety supervisor (safety/) in their packages.

ControllerCore, Command and SafetySupervisor are imported on first use: they load numba
(about 0.3 s), which the parameters, the references and bag validation do not need.
"""

from typing import TYPE_CHECKING

from .controller_config import ControllerConfig
from .joint_map import JointMap
from .laws import MODES, ControlLaw, LawConfig
from .reference import (
    Hold,
    OneMinusCos,
    ReferenceManager,
    SplineTrajectory,
    SumOfSines,
    make_reference,
    trajectory_from_message,
)
from .safety import SafetyLimits

if TYPE_CHECKING:
    from .controller_core import Command, ControllerCore
    from .safety.supervisor import SafetySupervisor

__all__ = [
    'Command',
    'ControlLaw',
    'ControllerConfig',
    'ControllerCore',
    'Hold',
    'JointMap',
    'LawConfig',
    'MODES',
    'OneMinusCos',
    'ReferenceManager',
    'SafetyLimits',
    'SafetySupervisor',
    'SplineTrajectory',
    'SumOfSines',
    'make_reference',
    'trajectory_from_message',
]

#: Names imported on first use, and their modules.
_LAZY = {'Command': '.controller_core', 'ControllerCore': '.controller_core',
         'SafetySupervisor': '.safety.supervisor'}


def __getattr__(name):
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
