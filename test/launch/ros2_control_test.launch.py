"""launch/ros2_control.launch.py with the tests' own argument, which a user's launch does
not offer:

  ros2 launch test/launch/ros2_control_test.launch.py fault_injection:=true [its arguments]

``fault_injection:=true`` (``hardware:=mujoco``) puts the tests' hardware,
robodyn_controllers/MujocoTestSystem, under controller_manager: it corrupts its states on
request (std_msgs/String on /<hardware>/inject_fault), pushes the tool (~/push) and
publishes its applied-step witness (~/applied_step). A workspace built with
ROBODYN_BUILD_TESTING=ON installs it (docs/reliability.md).
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource

from launch import LaunchDescription


def generate_launch_description():
    product = os.path.join(get_package_share_directory('robodyn_ros'), 'launch',
                           'ros2_control.launch.py')
    return LaunchDescription([
        DeclareLaunchArgument('fault_injection', default_value='false',
                              description="hardware:=mujoco: the tests' hardware "
                                          '(robodyn_controllers/MujocoTestSystem)'),
        IncludeLaunchDescription(PythonLaunchDescriptionSource(product)),
    ])
