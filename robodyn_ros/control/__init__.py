"""Controller core, pure (no ROS): laws, the core and its fused cycle, the parameters it
takes; references (reference/) and the safety supervisor (safety/) in their packages."""

from .controller_config import ControllerConfig
from .controller_core import Command, ControllerCore
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
from .safety import SafetyLimits, SafetySupervisor

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
