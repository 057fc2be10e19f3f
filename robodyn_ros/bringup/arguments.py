"""What the launch files that build a robot's ros2_control stack share: the ``robot``,
``xacro_args`` and ``config`` arguments, and the model and start they name."""

import os

from ..defaults import CONTROLLER_NAME

__all__ = ['LaunchArgumentError', 'robot_arguments', 'config_model', 'existing_config',
           'new_bag_path', 'transport_actions']


def transport_actions() -> list:
    """The launch's first actions: every process it starts gets UDP instead of Fast DDS's
    shared memory (dds_transport.py: why), and the log says which transport it is; the
    shared-memory files of processes that died are removed first (a port one left locked
    blocks the next process that opens it: dds_transport.remove_dead_segments)."""
    from launch.actions import LogInfo, SetEnvironmentVariable

    from ..nodes.dds_transport import remove_dead_segments, transport_environment
    changes, line = transport_environment(os.environ)
    removed = remove_dead_segments()
    said = [LogInfo(msg=f'robodyn: removed {removed} Fast DDS shared-memory files of '
                        'processes that died')] if removed else []
    return [SetEnvironmentVariable(k, v) for k, v in changes.items()] + said + [
        LogInfo(msg=f'robodyn: {line}')]


class LaunchArgumentError(RuntimeError):
    """A launch argument no run can be made of: launch prints this one line (``robodyn
    <launch file>: error: <text>``) and exits 1, before any process starts."""

    def __init__(self, launch: str, text: str) -> None:
        super().__init__(launch, text)

    def __str__(self) -> str:
        return f'robodyn {self.args[0]}: error: {self.args[1]}'


def existing_config(context, launch: str) -> str:
    """The ``config`` argument, a file that exists (else LaunchArgumentError: the nodes
    would start without their parameters and wait for ever); empty: the package's config
    of the ``robot`` argument when it has one, else the Panda's."""
    from launch.substitutions import LaunchConfiguration
    path = LaunchConfiguration('config').perform(context)
    if not path:
        from ament_index_python.packages import get_package_share_directory
        configs = os.path.join(get_package_share_directory('robodyn_ros'), 'config')
        robot = LaunchConfiguration('robot').perform(context) if 'robot' in \
            context.launch_configurations else ''
        own = os.path.join(configs, f'{robot}.yaml')
        path = own if robot and os.path.isfile(own) else os.path.join(configs, 'panda.yaml')
    if not os.path.isfile(path):
        raise LaunchArgumentError(launch, f'config:={path!r} is not a file: give a robodyn '
                                          "parameter YAML (the package's own are in its "
                                          'share/robodyn_ros/config)')
    return path


def new_bag_path(context, launch: str) -> str:
    """The ``bag_path`` argument, which must not exist yet (else LaunchArgumentError: the
    recorder would refuse it while the rest runs on, and the old bag would be validated)."""
    from launch.substitutions import LaunchConfiguration
    bag = LaunchConfiguration('bag_path').perform(context)
    if bag and os.path.exists(bag):
        raise LaunchArgumentError(launch, f'bag_path:={bag!r} exists: give a new name, or '
                                          'remove it first (its recording is not overwritten)')
    return bag


def robot_arguments(share):
    """DeclareLaunchArgument of ``robot``, ``xacro_args`` and ``config`` (default: the
    Panda's config in ``share``)."""
    from launch.actions import DeclareLaunchArgument
    return [
        DeclareLaunchArgument('robot', default_value='',
                              description="robot name or .urdf/.xacro path (default: the "
                                          "config's robot)"),
        DeclareLaunchArgument('xacro_args', default_value='',
                              description="xacro arguments, 'name:=value name2:=value2'"),
        DeclareLaunchArgument('config', default_value='',
                              description='robodyn config (robodyn_controller; robodyn_sim.q0: '
                                          "initial positions; default: the package's "
                                          'config/<robot>.yaml when it has one, else '
                                          'config/panda.yaml)'),
    ]


def config_model(context, launch):
    """(config path, the controller's parameters, RobotModel, q0 or None) from the launch
    arguments: the description is ``robot`` or the config's, expanded with ``xacro_args``,
    with the config's base, tip and effort limits. ``launch``: the launch file's name, for
    the one-line error of a config that is not a file."""
    from launch.substitutions import LaunchConfiguration
    import yaml

    from ..errors import RobodynError
    from ..model import load_robot
    config_path = existing_config(context, launch)
    with open(config_path, encoding='utf-8') as handle:
        data = yaml.safe_load(handle)
    params = data[CONTROLLER_NAME]['ros__parameters']
    robot = LaunchConfiguration('robot').perform(context) or params['robot']
    mappings = LaunchConfiguration('xacro_args').perform(context).split()
    try:
        model = load_robot(robot, params.get('base_link') or None,
                           params.get('tip_link') or None, mappings=mappings,
                           effort_limits=params.get('effort_limits') or None)
    except RobodynError as exc:
        raise LaunchArgumentError(launch, f'the description {robot} with config:='
                                          f'{config_path}: {exc} (a config written for '
                                          "another robot? give the robot's own)") from None
    q0 = data.get('robodyn_sim', {}).get('ros__parameters', {}).get('q0')
    return config_path, params, model, q0
