"""URDF -> RobotModel (chain, joints, limits, inertials, friction); DH extraction; FK.

No ROS imports here.
"""

from .dh import DHInertial, DHRow, DHTable, dh_table
from .inertial import Inertial
from .kinematics import check_q, check_vector
from .robot_model import Joint, RobotModel, load_urdf

__all__ = [
    'DHInertial',
    'DHRow',
    'DHTable',
    'Inertial',
    'Joint',
    'RobotModel',
    'check_q',
    'check_vector',
    'dh_table',
    'load_urdf',
]
