"""Controller core, pure (no ROS): laws, references, safety supervisor, statistics."""

from .controller_config import ControllerConfig
from .controller_core import Command, ControllerCore
from .joint_map import JointMap
from .laws import MODES, ControlLaw, LawConfig
from .reference_manager import ReferenceManager
from .supervisor import SafetyLimits, SafetySupervisor
from .trajectories import Hold, OneMinusCos, SplineTrajectory, SumOfSines, make_reference
from .trajectory_message import trajectory_from_message

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
