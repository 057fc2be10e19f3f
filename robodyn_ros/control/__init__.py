"""Computed-torque laws, reference trajectories, safety filters. Pure, no ROS."""

from .laws import MODES, ControlLaw, LawConfig
from .safety import SafetyFilter
from .trajectories import Hold, OneMinusCos, SplineTrajectory, SumOfSines, make_reference

__all__ = [
    'ControlLaw',
    'Hold',
    'LawConfig',
    'MODES',
    'OneMinusCos',
    'SafetyFilter',
    'SplineTrajectory',
    'SumOfSines',
    'make_reference',
]
