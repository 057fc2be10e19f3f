"""The ros2_control launch's actions: controller_manager on the chosen hardware, the robodyn
controller on its path (``controller:=plugin``: the C++ controller in controller_manager's
loop behind the JTC; ``node``: the Python node on a forward effort controller), the
description publisher, the controllers' start and the recorder.

Why a module: launch/ros2_control.launch.py stays the short list of the arguments a user
gives (``ros2 launch robodyn_ros ros2_control.launch.py --show-args``); what they start is
here, in functions of a screen each.
"""

import os
import tempfile

from ament_index_python.packages import get_package_share_directory
from launch.actions import ExecuteProcess, GroupAction, LogInfo
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from ..defaults import CONTROLLER_NAME, NODE_RATE_SHARE
from .arguments import config_model, new_bag_path
from .gazebo_watch import server_watch
from .hardware import (
    HARDWARE,
    MOCK_OVERRIDES,
    LaunchArgumentError,
    description,
    library_path,
    simulator_argument,
)

__all__ = ['CONTROLLERS', 'actions']

COMMAND_TOPIC = '/effort_controller/commands'
#: The controllers' ``velocity_lag`` [s] per simulator, unless the config sets it: the lock-
#: step MuJoCo system (mj_step1 + mj_step2: semi-implicit Euler whatever the MJCF names)
#: and Gazebo's DART integrate with semi-implicit Euler at 1 ms, so the velocity they
#: report is the step's mean, half a step older than the position (control/laws.py).
#: mujoco_ros2_control calls mj_step (RK4, as the MJCF says): position and velocity agree.
VELOCITY_LAG = {'mujoco': 0.0005, 'gz': 0.0005}
#: The node path's forward controller stops applying commands that stopped after this many
#: of the node's state timeouts (0.2 s by default): a node that is late recovers within its
#: own watchdog's time; one this late has stopped.
COMMAND_TIMEOUTS = 4
#: plugin: JTC -> the C++ robodyn_controllers controller in controller_manager's loop;
#: node: the robodyn node (Python) -> forward effort controller.
CONTROLLERS = ('plugin', 'node')
#: Ctrl-C: controller_manager deactivates every controller within milliseconds (the robodyn
#: controller leaves the hardware its hold), then tears itself down; that teardown has been
#: seen to hang past 1.7 s after the hardware was shut down (loaded machine). Launch sends
#: SIGTERM this long [s] after SIGINT, and SIGKILL this long after SIGTERM: the process is
#: gone 1.1 s after Ctrl-C, leaving launch itself time to exit within 2 s. The Gazebo
#: server (controller_manager inside its step) ends within 0.2-0.3 s and gets the same.
MANAGER_SIGTERM_AFTER = '0.6'
MANAGER_SIGKILL_AFTER = '0.5'
CONTROLLER = CONTROLLER_NAME


def _recorder(context, topics, sim_time=False):
    """The recorder of ``topics`` when ``bag_path`` is given."""
    bag = new_bag_path(context, 'ros2_control')
    if not bag:
        return []
    return [Node(package='robodyn_ros', executable='recorder', name='robodyn_recorder',
                 output='screen',
                 parameters=[{'bag_path': bag, 'storage': LaunchConfiguration('storage'),
                              'topics': topics, 'use_sim_time': sim_time}])]


def _plugin_actions(context, hardware, config_path, params, model, manager_node):
    """controller:=plugin: JTC -> robodyn_controllers/ComputedTorqueController -> hardware,
    inside controller_manager's loop; the configured reference goes to the JTC."""
    from ..control.plugin_parameters import PLUGIN, plugin_config, plugin_parameters
    from ..io.params_yaml import dump_parameters
    from ..model.ros2_control_urdf import chained_controllers_config
    from ..nodes.reference_sender import SENT_PARAMETERS
    try:
        get_package_share_directory('robodyn_controllers')
    except Exception:  # noqa: BLE001 - PackageNotFoundError: say what to do
        raise LaunchArgumentError('controller:=plugin needs the C++ package '
                                  'robodyn_controllers in the workspace (bash '
                                  'scripts/build_workspace.sh WS); or use controller:=node')
    from ..errors import RobodynError
    try:
        values = plugin_parameters(model, plugin_config(params), source=config_path)
    except RobodynError as exc:
        raise LaunchArgumentError(f'config:={config_path}: {exc}') from None
    if hardware == 'mock':
        values['max_tracking_error'] = 0.0  # mock hardware never moves (module doc)
    controllers = os.path.join(manager_node[1], 'controllers.yaml')
    with open(controllers, 'w', encoding='utf-8') as handle:
        dump_parameters(chained_controllers_config(
            model, int(params.get('rate', 1000)), values, PLUGIN, CONTROLLER,
            constraints=hardware != 'mock'), handle)
    actions = [manager_node[0](controllers),
               Node(package='controller_manager', executable='spawner', output='screen',
                    arguments=['joint_state_broadcaster', CONTROLLER,
                               'joint_trajectory_controller'], prefix=manager_node[2])]
    if params.get('reference', 'hold') != 'hold':
        sent = {k: params[k] for k in SENT_PARAMETERS if k in params}
        actions.append(Node(package='robodyn_ros', executable='reference_sender',
                            output='screen',
                            parameters=[sent, {'robot_description': model.xml,
                                               'base_link': model.base_link,
                                               'tip_link': model.tip_link}]))
    return actions + _recorder(context, ['/joint_states', f'/{CONTROLLER}/commands',
                                f'/{CONTROLLER}/reference', f'/{CONTROLLER}/target_pose',
                                '/diagnostics', '/robot_description'])


def _max_torque_rate(params):
    """The configured max_torque_rate [N m/s]: what the hardware may be given per second."""
    from ..control.parameters import PARAMETERS
    return float(params.get('max_torque_rate', PARAMETERS['max_torque_rate'].default))


def _forward_limits(params):
    """The node path's forward controller (robodyn_controllers' slew-limited one): each
    cycle's change of the torque applied limited to the configured max_torque_rate (the
    node publishes within NODE_RATE_SHARE of it), and a command timeout of COMMAND_TIMEOUTS
    state timeouts, after which commands that stopped (a node stalled or gone) deactivate
    it and the hardware holds the arm."""
    from ..control.parameters import PARAMETERS
    timeout = params.get('state_timeout', PARAMETERS['state_timeout'].default)
    return {'max_torque_rate': _max_torque_rate(params),
            'command_timeout': COMMAND_TIMEOUTS * float(timeout)}


def _node_actions(context, hardware, config_path, params, model, manager_node):
    """controller:=node: the robodyn node -> forward effort controller -> hardware. The
    node is the control loop here, so ``realtime_priority`` runs it under chrt as well
    (docs/real_arm.md: an arm's node runs SCHED_FIFO)."""
    from ..control.jtc_gains import jtc_gains
    from ..dynamics import RigidBodyDynamics
    from ..io.params_yaml import dump_parameters
    from ..model.ros2_control_urdf import controllers_config
    from ..nodes.recorder import DEFAULT_TOPICS
    controllers = os.path.join(manager_node[1], 'controllers.yaml')
    rate = int(params.get('rate', 1000))
    # the JTC alone (an operator's switch): its PD with the damping each joint can take
    # (seed 000's Kronecker M(q): numpy only, no kernel to compile in the launch)
    kp, kd = (None, None) if model.massless else \
        jtc_gains(model, RigidBodyDynamics(model, 'kronecker').mass_matrix, 1.0 / rate)
    with open(controllers, 'w', encoding='utf-8') as handle:
        dump_parameters(controllers_config(model, rate, kp=kp, kd=kd,
                                           joints=params.get('joints'),
                                           **_forward_limits(params)), handle)
    starter = Node(package='robodyn_ros', executable='controller_starter', output='screen',
                   parameters=[{'active': ['joint_state_broadcaster', 'effort_controller'],
                                'inactive': ['joint_trajectory_controller']}],
                   prefix=manager_node[2])
    controller = Node(package='robodyn_ros', executable='controller', name=CONTROLLER,
                      output='screen', prefix=manager_node[2], exec_name='controller',
                      parameters=[config_path, {'robot': '', 'robot_description': model.xml,
                                                'command_topic': COMMAND_TOPIC,
                                                'max_torque_rate':
                                                    NODE_RATE_SHARE * _max_torque_rate(params),
                                                'autostart': hardware != 'mujoco_ros2_control',
                                                'velocity_lag': params['velocity_lag'],
                                                'mode': params.get('mode',
                                                                   'computed_torque'),
                                                'kp': params.get('kp', [0.0]),
                                                'kd': params.get('kd', [0.0]),
                                                'use_sim_time': hardware == 'gz'}] +
                      MOCK_OVERRIDES.get(hardware, []))
    # The robodyn controller starts with the stack, not after the spawners: its configure
    # (model, kernels, the check against Pinocchio) then overlaps the hardware's start-up,
    # while the hardware holds g(q0); it ramps in at the first state the broadcaster sends.
    # The controllers come up from controller_starter, not from a chain of spawners: a
    # process that joins DDS while the node commands can hold every send and receipt of
    # the node and of ros2_control_node for up to a third of a second on shared memory
    # (docs/reliability.md, "A process that joins DDS"), and a spawner joins only once it
    # holds controller_manager's spawner lock, after the one before it started the states.
    actions = [manager_node[0](controllers), controller, starter]
    if hardware == 'mujoco_ros2_control':  # pause, configure, resume, activate: no race
        actions.append(Node(package='robodyn_ros', executable='physics_gate', output='screen',
                            parameters=[{'controller': f'/{CONTROLLER}'}]))
    return actions + _recorder(context, [t for t in DEFAULT_TOPICS if t != '/clock'],
                               sim_time=hardware == 'gz')


def _choose_law(mode, params, model, q0):
    """``mode:=M``: the law M (control/laws' registry) instead of the config's, with the
    gains robodyn demo gives it (demo.config.mode_gains); empty: the config's."""
    if not mode:
        return
    from ..control.laws import MODES
    if mode not in MODES:
        raise LaunchArgumentError(f'mode:={mode!r}; valid: {", ".join(MODES)}')
    if mode != params.get('mode', 'computed_torque'):
        from ..demo.config import mode_gains
        params['kp'], params['kd'] = mode_gains(mode, model, q0 or model.mid_range, params)
    params['mode'] = mode


def actions(context) -> list:
    """Every action of the launch, once its arguments are checked (an OpaqueFunction's
    body)."""
    hardware = LaunchConfiguration('hardware').perform(context)
    if hardware not in HARDWARE:
        raise LaunchArgumentError(f'hardware:={hardware!r}; valid: {", ".join(HARDWARE)}')
    kind = LaunchConfiguration('controller').perform(context)
    if kind not in CONTROLLERS:
        raise LaunchArgumentError(f'controller:={kind!r}; valid: {", ".join(CONTROLLERS)}')
    if hardware == 'gz' and kind == 'node':
        raise LaunchArgumentError(
            'controller:=node is not available on hardware:=gz: GazeboSimSystem applies 0 '
            'N m from the moment the forward controller claims a joint until the first '
            'message, and its effort state reads 0, so the node cannot take the arm over '
            'without a step; use controller:=plugin')
    if hardware == 'gz':
        from ..sim.gazebo_server import missing
        why = missing()
        if why:
            raise LaunchArgumentError(f'hardware:=gz: {why}')
    for name in ('obstacle', 'sim_payload'):  # refused, not ignored, where nothing simulates
        simulator_argument(context, name, hardware)
    config_path, params, model, q0 = config_model(context, 'ros2_control')
    params.setdefault('velocity_lag', VELOCITY_LAG.get(hardware, 0.0))
    _choose_law(LaunchConfiguration('mode').perform(context), params, model, q0)
    out = tempfile.mkdtemp(prefix='robodyn_ros2_control_')
    urdf, notes, package = description(context, hardware, model, q0, out,
                                       params.get('max_torque_rate', 1000.0))

    priority = LaunchConfiguration('realtime_priority').perform(context)
    if not priority.isdigit() or not 0 <= int(priority) <= 99:
        raise LaunchArgumentError(f'realtime_priority:={priority!r}; valid: 0 (off) to 99')
    prefix = f'chrt -f {int(priority)}' if int(priority) else ''

    def manager(controllers):
        if package == 'gz':  # controller_manager runs inside Gazebo's step (the plugin)
            from ..sim.gazebo_server import server_command
            server = ExecuteProcess(cmd=server_command(os.path.join(out, 'world.sdf')),
                                    name='gz_server', output='screen', prefix=prefix or None,
                                    additional_env={'LD_LIBRARY_PATH': library_path()},
                                    sigterm_timeout=MANAGER_SIGTERM_AFTER,
                                    sigkill_timeout=MANAGER_SIGKILL_AFTER)
            return GroupAction([server, *server_watch(server)])
        return Node(package=package, executable='ros2_control_node', output='screen',
                    parameters=[controllers], prefix=prefix,
                    additional_env={'LD_LIBRARY_PATH': library_path()},
                    sigterm_timeout=MANAGER_SIGTERM_AFTER, sigkill_timeout=MANAGER_SIGKILL_AFTER)
    # The start-up chain (the description, the controllers' start) at the loop's priority:
    # beside real-time processes that keep both cores busy (a simulator in the loop on a
    # loaded machine) a normal-priority start waited minutes; each is idle once done.
    describe = Node(package='robodyn_ros', executable='describe', output='screen',
                    parameters=[{'robot_description': urdf}], prefix=prefix)
    actions = [LogInfo(msg=f'robodyn ros2_control: {note}') for note in notes]
    build = _plugin_actions if kind == 'plugin' else _node_actions
    return actions + [describe] + build(context, hardware, config_path, params, model,
                                        (manager, out, prefix))
