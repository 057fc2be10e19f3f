"""Record a run next to a running controller (a real arm or any simulator).

  ros2 launch robodyn_ros record.launch.py [bag_path:=robodyn_bag] [storage:=mcap] \
      [topics:="['/joint_states', '/effort_controller/commands', ...]"] [nice:=10]

Default topics: what `robodyn validate` needs (/joint_states, the effort commands,
/robodyn_controller/reference, /diagnostics) plus /clock, /robot_description, /tf and
/tf_static. Stop with Ctrl-C: the bag is closed and validates with `robodyn validate`.
"""

from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from launch import LaunchDescription


def _niceness(context):
    """The ``nice`` argument, an integer 0-19 (else one line naming it, exit 1)."""
    from robodyn_ros.bringup.arguments import LaunchArgumentError
    text = LaunchConfiguration('nice').perform(context)
    if not text.isdigit() or int(text) > 19:
        raise LaunchArgumentError('record', f'nice:={text!r}; valid: an integer 0 to 19')
    return int(text)


def _recorder(context):
    from robodyn_ros.bringup.arguments import new_bag_path
    nice = _niceness(context)
    params = {'bag_path': new_bag_path(context, 'record'), 'nice': nice,
              'storage': LaunchConfiguration('storage').perform(context),
              'use_sim_time': LaunchConfiguration('use_sim_time').perform(context) == 'true'}
    topics = LaunchConfiguration('topics').perform(context)
    if topics:
        import yaml
        params['topics'] = [str(t) for t in yaml.safe_load(topics)]
    return [Node(package='robodyn_ros', executable='recorder', name='robodyn_recorder',
                 output='screen', parameters=[params])]


def generate_launch_description():
    from robodyn_ros.bringup.arguments import transport_actions
    return LaunchDescription(transport_actions() + [
        DeclareLaunchArgument('bag_path', default_value='robodyn_bag',
                              description='rosbag2 directory to write'),
        DeclareLaunchArgument('storage', default_value='mcap', description='mcap | sqlite3'),
        DeclareLaunchArgument('topics', default_value='',
                              description='YAML list of topics (empty: the defaults)'),
        DeclareLaunchArgument('use_sim_time', default_value='false',
                              description='stamp receipt times with /clock'),
        DeclareLaunchArgument('nice', default_value='10',
                              description='raise the niceness of the recorder by this (0-19): '
                              'it yields the CPU to control, and on a busy machine can fall '
                              'seconds behind, which a kill loses; 0: keep up with the rest'),
        OpaqueFunction(function=_recorder),
    ])
