"""MuJoCo simulated arm + robodyn controller + bag recorder, each in its own process.

  ros2 launch robodyn_ros sim.launch.py [config:=<share>/config/panda.yaml] \
      [bag_path:=robodyn_bag] [storage:=mcap]

The sim runs at its rate on the wall clock and publishes /clock (it waits for a controller
that falls more than 3 steps behind: on a loaded machine simulated time slows, the result
does not change; the controller runs on that simulated time); its brakes hold the
arm at q0 until the controller (a lifecycle node, autostarted: configure loads the model
and warms its kernels, activate ramps in) sends its first command. Stop with Ctrl-C: every
node exits 0, the controller publishes its safe command last and the bag is closed. A
``config`` that is not a file, or a ``bag_path`` that exists, stops the launch before
anything starts (one line, exit 1).
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from launch import LaunchDescription
from robodyn_ros.bringup.arguments import existing_config, new_bag_path, transport_actions
from robodyn_ros.defaults import CONTROLLER_NAME
from robodyn_ros.nodes.recorder import DEFAULT_TOPICS


def generate_launch_description():
    share = get_package_share_directory('robodyn_ros')
    args = [
        DeclareLaunchArgument('config', default_value=os.path.join(share, 'config',
                                                                   'panda.yaml'),
                              description='parameter YAML with robodyn_sim and '
                                          'robodyn_controller sections'),
        DeclareLaunchArgument('bag_path', default_value='robodyn_bag',
                              description='rosbag2 directory to write'),
        DeclareLaunchArgument('storage', default_value='mcap', description='mcap | sqlite3'),
    ]
    return LaunchDescription(transport_actions() + args + [OpaqueFunction(function=_nodes)])


def _nodes(context):
    """The simulator, the controller and the recorder, once the arguments are checked."""
    config = existing_config(context, 'sim')
    bag = new_bag_path(context, 'sim')
    sim = Node(package='robodyn_ros', executable='sim', name='robodyn_sim', output='screen',
               parameters=[config, {'use_sim_time': False, 'publish_clock': True}])
    controller = Node(package='robodyn_ros', executable='controller',
                      name=CONTROLLER_NAME, output='screen',
                      parameters=[config, {'autostart': True, 'use_sim_time': True}])
    # The recorder stays off /clock (1 kHz): on 2 cores every message counts, and the bag's
    # alignment uses header stamps, which are simulated time already.
    recorder = Node(package='robodyn_ros', executable='recorder', name='robodyn_recorder',
                    output='screen',
                    parameters=[{'bag_path': bag, 'storage': LaunchConfiguration('storage'),
                                 'topics': [t for t in DEFAULT_TOPICS if t != '/clock'],
                                 'use_sim_time': False}])
    return [sim, controller, recorder]
