"""robodyn controller for a real arm or an already running simulator.

  ros2 launch robodyn_ros controller.launch.py \
      [config:=<share>/config/panda_real.yaml] [urdf_file:=/path/robot.urdf.xacro] \
      [xacro_args:='arm_id:=fr3 hand:=true'] \
      [command_topic:=/effort_controller/commands] [mode:=computed_torque] \
      [include_gravity:=false] [autostart:=false] [use_sim_time:=false]

Every parameter comes from the YAML; an argument given on the command line overrides the
YAML value, one not given leaves it alone. Without urdf_file (or robot_description / robot
in the YAML) the controller takes the robot_description topic (transient local), as
robot_state_publisher publishes it. The default config is for a real Franka arm: hold
position until a trajectory arrives, gravity and friction left to the robot. The controller
configures and activates at start-up (``autostart:=false``: it waits unconfigured for
``ros2 lifecycle set /robodyn_controller configure`` and ``activate``, and says so).
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from launch import LaunchDescription
from robodyn_ros.bringup.arguments import (
    LaunchArgumentError,
    existing_config,
    transport_actions,
)
from robodyn_ros.defaults import CONTROLLER_NAME

#: Arguments that override the YAML only when given (empty default = not given).
OVERRIDES = {
    'urdf_file': '.urdf or .xacro path (robot_description topic when neither this nor the '
                 'YAML names the robot)',
    'xacro_args': "xacro arguments for a .xacro urdf_file: 'name:=value name2:=value2'",
    'command_topic': 'effort command topic, e.g. /effort_controller/commands',
    'mode': 'computed_torque | feedforward | gravity',
    'include_gravity': 'true | false (false on robots that compensate gravity)',
    'include_friction': 'true | false',
    'reference': 'hold | one_minus_cos | sum_of_sines',
    'autostart': 'true (default) | false: configure and activate at start-up',
    'use_sim_time': 'true | false',
}
#: Launch-argument defaults ('' = the YAML's value).
DEFAULTS = {'autostart': 'true'}
BOOLEANS = ('include_gravity', 'include_friction', 'autostart', 'use_sim_time')


def _controller(context):
    overrides = {}
    for name in OVERRIDES:
        value = LaunchConfiguration(name).perform(context)
        if value == '':
            continue
        if name in BOOLEANS:
            if value.lower() not in ('true', 'false'):
                raise LaunchArgumentError('controller', f'{name}:={value!r}; valid: true, false')
            value = value.lower() == 'true'
        overrides[name] = value
    return [Node(package='robodyn_ros', executable='controller', name=CONTROLLER_NAME,
                 output='screen',
                 parameters=[existing_config(context, 'controller'), overrides])]


def generate_launch_description():
    share = get_package_share_directory('robodyn_ros')
    args = [DeclareLaunchArgument('config', default_value=os.path.join(
        share, 'config', 'panda_real.yaml'), description='robodyn parameter YAML')]
    args += [DeclareLaunchArgument(name, default_value=DEFAULTS.get(name, ''),
                                   description=text) for name, text in OVERRIDES.items()]
    return LaunchDescription(transport_actions() + args +
                             [OpaqueFunction(function=_controller)])
