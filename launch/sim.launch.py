"""MuJoCo simulated arm + robodyn controller + bag recorder (separate processes).

  ros2 launch robodyn_ros sim.launch.py config:=<share>/config/panda.yaml bag_path:=run1
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from launch import LaunchDescription


def generate_launch_description():
    share = get_package_share_directory('robodyn_ros')
    config = LaunchConfiguration('config')
    args = [
        DeclareLaunchArgument('config', default_value=os.path.join(share, 'config',
                                                                   'panda.yaml')),
        DeclareLaunchArgument('bag_path', default_value='robodyn_bag'),
        DeclareLaunchArgument('storage', default_value='mcap', description='mcap | sqlite3'),
    ]
    sim = Node(package='robodyn_ros', executable='sim', name='robodyn_sim', output='screen',
               parameters=[config, {'use_sim_time': False, 'publish_clock': True}])
    controller = Node(package='robodyn_ros', executable='controller',
                      name='robodyn_controller', output='screen',
                      parameters=[config, {'use_sim_time': True}])
    recorder = Node(package='robodyn_ros', executable='recorder', name='robodyn_recorder',
                    output='screen',
                    parameters=[{'bag_path': LaunchConfiguration('bag_path'),
                                 'storage': LaunchConfiguration('storage'),
                                 'use_sim_time': True}])
    return LaunchDescription(args + [sim, controller, recorder])
