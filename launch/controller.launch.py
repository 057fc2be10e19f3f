"""robodyn controller for a real arm or an already running simulator.

  ros2 launch robodyn_ros controller.launch.py config:=<share>/config/panda.yaml \
      urdf_file:=/path/robot.urdf command_topic:=/effort_controller/commands

Without urdf_file the controller takes /robot_description (transient local), as
published by robot_state_publisher.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from launch import LaunchDescription


def generate_launch_description():
    share = get_package_share_directory('robodyn_ros')
    args = [
        DeclareLaunchArgument('config', default_value=os.path.join(share, 'config',
                                                                   'panda.yaml'),
                              description='robodyn parameter YAML'),
        DeclareLaunchArgument('urdf_file', default_value='',
                              description='URDF path (empty: use /robot_description)'),
        DeclareLaunchArgument('command_topic', default_value='/effort_controller/commands'),
        DeclareLaunchArgument('mode', default_value='computed_torque',
                              description='computed_torque | feedforward | gravity'),
        DeclareLaunchArgument('include_gravity', default_value='true',
                              description='false on robots compensating gravity internally'),
        DeclareLaunchArgument('use_sim_time', default_value='false'),
    ]
    controller = Node(
        package='robodyn_ros', executable='controller', name='robodyn_controller',
        output='screen',
        parameters=[LaunchConfiguration('config'), {
            'urdf_file': LaunchConfiguration('urdf_file'),
            'robot': '',
            'command_topic': LaunchConfiguration('command_topic'),
            'mode': LaunchConfiguration('mode'),
            'include_gravity': LaunchConfiguration('include_gravity'),
            'use_sim_time': LaunchConfiguration('use_sim_time'),
        }])
    return LaunchDescription(args + [controller])
