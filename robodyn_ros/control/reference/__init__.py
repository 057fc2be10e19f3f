"""References the controller tracks: analytic trajectories, splines from
JointTrajectory messages, FollowJointTrajectory goal checks, the dense effort
feed-forward for a JTC, and the manager that switches between them in real time."""

from .manager import PreparedTrajectory, ReferenceManager
from .trajectories import Hold, OneMinusCos, SplineTrajectory, SumOfSines, make_reference
from .trajectory_message import trajectory_from_message

__all__ = [
    'Hold',
    'OneMinusCos',
    'PreparedTrajectory',
    'ReferenceManager',
    'SplineTrajectory',
    'SumOfSines',
    'make_reference',
    'trajectory_from_message',
]
