"""Gazebo (gz sim) + gz_ros2_control + joint_state_broadcaster + effort controller +
the robodyn controller.

  ros2 launch robodyn_ros gazebo.launch.py urdf_file:=/path/panda.urdf \
      config:=<share>/config/panda.yaml

The URDF gets a <ros2_control> block with effort command interfaces for the controller's
joints and the gz_ros2_control plugin (robodyn_ros.model.ros2_control_urdf), loading
config/ros2_controllers.yaml.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription, OpaqueFunction
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
import yaml

from launch import LaunchDescription


def _nodes(context):
    share = get_package_share_directory('robodyn_ros')
    from robodyn_ros.model.ros2_control_urdf import add_ros2_control
    config_path = LaunchConfiguration('config').perform(context)
    with open(config_path, encoding='utf-8') as handle:
        params = yaml.safe_load(handle)['robodyn_controller']['ros__parameters']
    controllers = os.path.join(share, 'config', 'ros2_controllers.yaml')
    description = add_ros2_control(LaunchConfiguration('urdf_file').perform(context),
                                   params['joints'], controllers)
    gz = IncludeLaunchDescription(
        PythonLaunchDescriptionSource(os.path.join(
            get_package_share_directory('ros_gz_sim'), 'launch', 'gz_sim.launch.py')),
        launch_arguments={'gz_args': '-r empty.sdf'}.items())
    rsp = Node(package='robot_state_publisher', executable='robot_state_publisher',
               parameters=[{'robot_description': description, 'use_sim_time': True}])
    spawn = Node(package='ros_gz_sim', executable='create',
                 arguments=['-topic', 'robot_description', '-name', 'robot'])
    clock = Node(package='ros_gz_bridge', executable='parameter_bridge',
                 arguments=['/clock@rosgraph_msgs/msg/Clock[gz.msgs.Clock'])
    broadcaster = Node(package='controller_manager', executable='spawner',
                       arguments=['joint_state_broadcaster'])
    effort = Node(package='controller_manager', executable='spawner',
                  arguments=['effort_controller'])
    controller = Node(package='robodyn_ros', executable='controller', name='robodyn_controller',
                      output='screen',
                      parameters=[config_path, {'robot': '', 'use_sim_time': True,
                                                'include_gravity': True, 'autostart': True}])
    return [gz, rsp, spawn, clock, broadcaster, effort, controller]


def generate_launch_description():
    share = get_package_share_directory('robodyn_ros')
    return LaunchDescription([
        DeclareLaunchArgument('urdf_file', description='robot URDF (meshes may be dropped)'),
        DeclareLaunchArgument('config', default_value=os.path.join(share, 'config',
                                                                   'panda.yaml')),
        OpaqueFunction(function=_nodes),
    ])
