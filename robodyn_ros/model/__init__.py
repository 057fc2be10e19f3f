"""URDF/xacro -> RobotModel (chain, joints, limits, inertials, friction); DH extraction;
FK; the robot registry; the ros2_control description generator.

No ROS imports here.
"""

from .dh import DHRow, DHTable, dh_table
from .inertial import Inertial
from .kinematics import check_q, check_vector
from .registry import ROBOTS, RobotSpec, load_robot, robot_path
from .robot_model import Joint, RobotModel, load_urdf

__all__ = [
    'DHRow',
    'DHTable',
    'Inertial',
    'Joint',
    'ROBOTS',
    'RobotModel',
    'RobotSpec',
    'check_q',
    'check_vector',
    'dh_table',
    'load_robot',
    'load_urdf',
    'robot_path',
]
