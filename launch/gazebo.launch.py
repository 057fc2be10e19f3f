"""Gazebo (gz sim) + gz_ros2_control + joint_state_broadcaster + effort controller + the
robodyn controller, for any arm.

  ros2 launch robodyn_ros gazebo.launch.py robot:=panda config:=<share>/config/panda.yaml
  ros2 launch robodyn_ros gazebo.launch.py robot:=/path/arm.urdf.xacro \
      xacro_args:='arm_id:=fr3 hand:=false' config:=my_arm.yaml

The description (URDF or xacro, expanded with ``xacro_args``) is rewritten for simulation
by robodyn_ros.model.ros2_control_urdf: a ``world`` link and fixed joint when the root is
not ``world``, the URDF's hardware ``<ros2_control>`` replaced by gz_ros2_control with
effort command interfaces for exactly the controller's chain, initial positions from the
config's ``robodyn_sim.q0`` (else mid-range; checked against the limits), mesh URIs
resolved to installed share directories (visuals dropped with a note when not found).
The controllers YAML is generated for the same joints. Start-up is chained as in the
ros2_control demos: spawn the robot -> joint_state_broadcaster -> effort_controller (and
joint_trajectory_controller, inactive) -> robodyn controller.
"""

import os
import tempfile

from ament_index_python.packages import get_package_share_directory
from launch.actions import (
    IncludeLaunchDescription,
    LogInfo,
    OpaqueFunction,
    RegisterEventHandler,
)
from launch.event_handlers import OnProcessExit
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare

from launch import LaunchDescription


def _description(context):
    from robodyn_ros.io.params_yaml import dump_parameters
    from robodyn_ros.model.registry import package_share
    from robodyn_ros.model.ros2_control_urdf import controllers_config, simulation_urdf
    from robodyn_ros.nodes.launch_robot import config_model
    config_path, params, model, q0 = config_model(context)
    out = tempfile.mkdtemp(prefix='robodyn_gz_')
    controllers = os.path.join(out, 'ros2_controllers.yaml')
    with open(controllers, 'w', encoding='utf-8') as handle:
        dump_parameters(controllers_config(model, int(params.get('rate', 1000))), handle)
    # model.xml is the expanded description (with any given effort limits): no 2nd xacro run
    xml, notes = simulation_urdf(model.xml, model, controllers, q0, package_dir=package_share)
    return config_path, model, xml, notes


def _nodes(context):
    config_path, model, description, notes = _description(context)
    gz = IncludeLaunchDescription(  # found when it runs: the rest can be built without gz
        PythonLaunchDescriptionSource(PathJoinSubstitution(
            [FindPackageShare('ros_gz_sim'), 'launch', 'gz_sim.launch.py'])),
        launch_arguments={'gz_args': '-r empty.sdf'}.items())
    rsp = Node(package='robot_state_publisher', executable='robot_state_publisher',
               parameters=[{'robot_description': description, 'use_sim_time': True}])
    spawn = Node(package='ros_gz_sim', executable='create',
                 arguments=['-topic', 'robot_description', '-name', model.name])
    clock = Node(package='ros_gz_bridge', executable='parameter_bridge',
                 arguments=['/clock@rosgraph_msgs/msg/Clock[gz.msgs.Clock'])
    broadcaster = Node(package='controller_manager', executable='spawner',
                       arguments=['joint_state_broadcaster'])
    effort = Node(package='controller_manager', executable='spawner',
                  arguments=['effort_controller'])
    jtc = Node(package='controller_manager', executable='spawner',
               arguments=['joint_trajectory_controller', '--inactive'])
    controller = Node(package='robodyn_ros', executable='controller', name='robodyn_controller',
                      output='screen',
                      parameters=[config_path, {'robot': '', 'robot_description': description,
                                                'use_sim_time': True, 'autostart': True}])
    chain = [(spawn, [broadcaster]), (broadcaster, [effort, jtc]), (effort, [controller])]
    log = [LogInfo(msg=f'robodyn gazebo: {note}') for note in notes]
    return log + [gz, rsp, clock, spawn] + [
        RegisterEventHandler(OnProcessExit(target_action=done, on_exit=start))
        for done, start in chain]


def generate_launch_description():
    share = get_package_share_directory('robodyn_ros')
    from robodyn_ros.nodes.launch_robot import robot_arguments
    return LaunchDescription(robot_arguments(share) + [OpaqueFunction(function=_nodes)])
