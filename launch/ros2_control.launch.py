"""The real ros2_control stack around an arm, with the robodyn controller in it.

  ros2 launch robodyn_ros ros2_control.launch.py robot:=panda hardware:=mujoco bag_path:=run
  ros2 launch robodyn_ros ros2_control.launch.py robot:=/path/arm.urdf.xacro \
      xacro_args:='arm_id:=fr3 hand:=false' config:=my_arm.yaml hardware:=mock

``controller``:
  plugin  (default) the C++ controller robodyn_controllers/ComputedTorqueController inside
          controller_manager's real-time loop, on the model ``robodyn export`` writes
          (generated here), with the real JointTrajectoryController chained into its
          reference interfaces; the config's reference (sum_of_sines, ...) is sent to the
          JTC as one trajectory (reference_sender), FollowJointTrajectory goals go to
          ``/joint_trajectory_controller/follow_joint_trajectory``. The recorder takes
          ``/robodyn_controller/{reference,commands}`` and ``/joint_states``.
  node    the robodyn node (Python) on ``/effort_controller/commands``, as below.

With ``controller:=node``: controller_manager (``ros2_control_node``) with a generated
controllers YAML for exactly the controller's chain, a ``/robot_description`` publisher,
``controller_starter`` (in place of a chain of spawners: it joins DDS with the stack and
leaves with it, so no participant joins while the node commands) bringing up
``joint_state_broadcaster`` + ``effort_controller`` (robodyn_controllers'
SlewLimitedEffortController on the effort interfaces, its per-cycle limit open: it
deactivates itself when the node's commands stop for 4 state timeouts) active and
``joint_trajectory_controller`` (effort interfaces, PD 100 / 10 with the damping capped
where a joint is too light for it: control/jtc_gains.py) loaded inactive,
the robodyn controller on ``/effort_controller/commands`` (started with the stack: it
configures while the hardware starts and ramps in at the first joint state) and, with
``bag_path``, the recorder of what ``robodyn validate`` reads.

``hardware``:
  mujoco  physics: MuJoCo on an MJCF generated from the same model (one motor per joint),
          run by robodyn_controllers/MujocoLockstepSystem inside controller_manager's
          loop: each cycle steps it by that cycle's period, so every state is fresh and
          every command acts for one period, as an arm's driver at 1 kHz gives them. It
          holds g(q0) until a controller writes. What tracking is measured on.
  mujoco_ros2_control  the same MJCF on mujoco_ros2_control's system plugin: the physics
          free-running in a thread of its own, controller_manager reading its latest
          snapshot (which may lag by a few steps); effort commands start at g(q0).
          physics_gate pauses the physics, configures the robodyn node, resumes the
          physics and only then activates the node (no command on paused physics).
  mock    mock_components/GenericSystem: every command is mirrored to the effort state; the
          arm never moves, so mock checks the wiring (controllers, topics, goals, the
          safe command), not tracking: `validate` of a mock run fails by design, and the
          tracking guard is off.
  gz      Gazebo (the headless Fortress server, DART at 1 ms) through gz_ros2_control:
          controller_manager runs inside the simulation step, on simulated time (the
          nodes and the recorder too). The effort commands start at g(q0); joints no
          controller claims are held by GazeboSimSystem. Its effort state reads 0: judge
          the torque from ``~/commands``.
  robot   the description's own ``<ros2_control>`` block: a real arm's driver. Nothing else
          changes; see docs/real_arm.md.
"""

import os
import sys
import tempfile

from ament_index_python.packages import get_package_share_directory
from launch.actions import (
    DeclareLaunchArgument,
    EmitEvent,
    ExecuteProcess,
    GroupAction,
    LogInfo,
    OpaqueFunction,
    RegisterEventHandler,
    TimerAction,
)
from launch.event_handlers import OnProcessExit
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from launch import LaunchDescription
from robodyn_ros.defaults import CONTROLLER_NAME, NODE_RATE_SHARE
from robodyn_ros.nodes.launch_robot import LaunchArgumentError as ArgumentError
from robodyn_ros.nodes.launch_robot import new_bag_path, transport_actions

HARDWARE = ('mujoco', 'mujoco_ros2_control', 'mock', 'gz', 'robot')
#: Mock hardware mirrors each effort command to the effort state and never moves: it
#: tests the wiring (controllers, topics, goals, the safe command), not tracking, so the
#: tracking guard (which would trip at once) is off there.
MOCK_OVERRIDES = {'mock': [{'max_tracking_error': 0.0}]}
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
#: How long (s) the launch waits for the words of a Gazebo server that ended, at most; how
#: long its output must have been quiet; how often it looks. A server that said nothing
#: is reported by its exit code.
REASON_WAIT, REASON_QUIET, REASON_POLL = 3.0, 0.3, 0.1


class LaunchArgumentError(ArgumentError):
    """A launch argument no run can be made of: launch prints this one line and exits 1."""

    def __init__(self, text):
        super().__init__('ros2_control', text)


def _server_watch(server):
    """Event handlers that end the launch, with one ERROR line naming Gazebo's reason,
    when the server ends by itself (a description it cannot load: 'Failed to load a
    world'), instead of leaving the spawners waiting for a controller_manager that never
    comes. An exit after Ctrl-C is not one: the wrapper exits 0 only when stopped by a
    signal (sim/gazebo_server.py), and a terminal's Ctrl-C reaches it as soon as launch.

    The exit event can overtake the server's last output (launch learns of the exit from
    the process, of the output from its pipes, and a busy machine delivers them in either
    order), and the output comes in chunks that can split a line: the reason is read from
    the whole output once it has been quiet for REASON_QUIET s (at most REASON_WAIT s)."""
    import re
    import time

    from launch.event_handlers import OnProcessIO, OnShutdown
    from launch.events import Shutdown
    output, heard, stopping = {'stdout': [], 'stderr': []}, [0.0], []

    def note(stream):
        def take(event):
            output[stream].append(event.text.decode(errors='replace'))
            heard[0] = time.monotonic()
        return take

    def reasons():
        found = []
        for chunks in output.values():  # each stream's lines whole: chunks joined first
            text = re.sub(r'\x1b\[[0-9;]*m', '', ''.join(chunks))
            found += [line.split('Msg:', 1)[1].strip() for line in text.splitlines()
                      if 'Msg:' in line]
        return [r for r in dict.fromkeys(found) if r]

    def report(context, returncode, waited):
        if stopping:
            return None
        settling = not any(output.values()) or time.monotonic() - heard[0] < REASON_QUIET
        if settling and waited < REASON_WAIT:
            return [TimerAction(period=REASON_POLL, actions=[OpaqueFunction(
                function=lambda c: report(c, returncode, waited + REASON_POLL))])]
        import launch.logging
        why = '; '.join(reasons()) or f'exit code {returncode}'
        launch.logging.get_logger('launch').error(
            f'hardware:=gz: the Gazebo server ended: {why} (a description Gazebo cannot '
            'load); stopping')
        return [EmitEvent(event=Shutdown(reason='the Gazebo server ended'))]

    def ended(event, context):
        if stopping or event.returncode == 0:
            return None
        return report(context, event.returncode, 0.0)

    return [RegisterEventHandler(OnProcessIO(target_action=server, on_stderr=note('stderr'),
                                             on_stdout=note('stdout'))),
            RegisterEventHandler(OnShutdown(on_shutdown=lambda *_: stopping.append(1))),
            RegisterEventHandler(OnProcessExit(target_action=server, on_exit=ended))]


def _library_path():
    """LD_LIBRARY_PATH for ros2_control_node from pip wheels (what the wheels'
    ros2_control_env.sh sets): the venv's lib/, the bundled ros_*.libs and libpython, and
    the lib/ of every AMENT_PREFIX_PATH entry (a workspace's robodyn_controllers)."""
    import glob
    import sysconfig
    prefix = sys.prefix
    parts = [os.path.join(p, 'lib') for p in os.environ.get('AMENT_PREFIX_PATH', '').split(
        os.pathsep) if p and os.path.isdir(os.path.join(p, 'lib'))]
    parts += [os.path.join(prefix, 'lib'), sysconfig.get_config_var('LIBDIR') or '']
    parts += sorted(glob.glob(os.path.join(prefix, 'lib', 'python3*', 'site-packages',
                                           'ros_*.libs')))
    old = os.environ.get('LD_LIBRARY_PATH', '')
    return ':'.join([p for p in parts if p] + ([old] if old else []))


def _description(context, hardware, model, q0, out, max_torque_rate):
    """(URDF for controller_manager, notes, ros2_control_node's package). The lock-step
    MuJoCo hardware holds a joint no controller claims, at ``max_torque_rate`` [N m/s];
    with ``fault_injection:=true`` it corrupts its states and pushes the tool on request
    (tests only)."""
    from robodyn_ros.model.ros2_control_urdf import (
        LOCKSTEP_SYSTEM,
        MOCK_SYSTEM,
        MUJOCO_SYSTEM,
        control_urdf,
        hardware_urdf,
        initial_positions,
    )
    q0 = initial_positions(model, q0)
    if hardware == 'robot':
        xml, notes = hardware_urdf(model.xml, model, MOCK_SYSTEM, q0)
        if 'existing' not in notes[0]:
            raise RuntimeError("hardware:=robot needs the description's own <ros2_control> "
                               "block (the arm's driver); this description has none")
        return xml, notes, 'controller_manager'
    if hardware == 'mock':
        xml, notes = control_urdf(model.xml, model, MOCK_SYSTEM, q0)
        return xml, notes, 'controller_manager'
    from robodyn_ros.dynamics import RigidBodyDynamics
    # The simulated hardware starts its commands from the states' initial values (not with
    # a keyframe): effort g(q0) holds the arm at q0 until the controller writes.
    hold = RigidBodyDynamics(model, 'kronecker').gravity_vector(q0)
    if hardware == 'gz':
        return _gazebo_description(model, q0, out, hold)
    from robodyn_ros.sim.mujoco_sim import plugin_mjcf
    simulated = _sim_payload(context, hardware, model)
    if simulated is not model:  # the simulator holds the arm it simulates
        hold = RigidBodyDynamics(simulated, 'kronecker').gravity_vector(q0)
    mjcf, notes = plugin_mjcf(simulated, q0, obstacle=_obstacle(context, hardware))
    path = os.path.join(out, 'model.xml')
    with open(path, 'w', encoding='utf-8') as handle:
        handle.write(mjcf)
    if hardware == 'mujoco':  # robodyn_controllers' lock-step system, in controller_manager
        xml, more = control_urdf(model.xml, model, LOCKSTEP_SYSTEM, q0,
                                 params={'mujoco_model': path,
                                         'max_torque_rate': repr(float(max_torque_rate)),
                                         'fault_injection': _fault_injection(context),
                                         # where a test's push acts: the tip link origin
                                         'push_body': f'{model.joints[-1].name}_body',
                                         'push_point': ' '.join(
                                             repr(float(v)) for v in model.tool[:3, 3])},
                                 effort0=hold)
        return xml, notes + more, 'controller_manager'
    xml, more = control_urdf(model.xml, model, MUJOCO_SYSTEM, q0,
                             params={'mujoco_model': path, 'headless': 'true'},
                             effort0=hold)
    return xml, notes + more, 'mujoco_ros2_control'


def _simulator_argument(context, name, hardware):
    """The words of the launch argument ``name`` (commas as spaces), [] when empty; a
    LaunchArgumentError when it is given for a hardware that does not simulate."""
    text = LaunchConfiguration(name).perform(context).replace(',', ' ').split()
    if text and hardware not in ('mujoco', 'mujoco_ros2_control'):
        raise LaunchArgumentError(f'{name}:= is for hardware:=mujoco or mujoco_ros2_control, '
                                  f'not {hardware!r}')
    return text


def _obstacle(context, hardware):
    """The launch argument ``obstacle`` ('cx cy cz hx hy hz' [m], base frame: a box the
    tool's 0.03 m sphere can strike) as an Obstacle; None when empty."""
    from robodyn_ros.sim.mujoco_sim import Obstacle
    text = _simulator_argument(context, 'obstacle', hardware)
    if not text:
        return None
    try:
        return Obstacle.from_values([float(v) for v in text])
    except ValueError:  # InputError too: one line either way
        raise LaunchArgumentError(f'obstacle:={" ".join(text)!r}; valid: six finite numbers '
                                  "'cx cy cz hx hy hz' [m], half sizes > 0") from None


def _sim_payload(context, hardware, model):
    """The launch argument ``sim_payload`` ('KG [CX CY CZ]': a point mass [kg] at CX CY CZ
    [m] in the tip link's frame) as the model the simulator runs; the controller's model
    does not carry it (what the adaptive law estimates). Empty: ``model`` itself."""
    text = _simulator_argument(context, 'sim_payload', hardware)
    if not text:
        return model
    from robodyn_ros.errors import RobodynError
    from robodyn_ros.model.payload import point_mass, with_payload
    try:
        values = [float(v) for v in text]
        if len(values) not in (1, 4):
            raise ValueError
        return with_payload(model, point_mass(values[0], values[1:] or [0.0] * 3), xml=False)
    except (ValueError, RobodynError):
        raise LaunchArgumentError(f'sim_payload:={" ".join(text)!r}; valid: a mass > 0 [kg], '
                                  "then optionally its centre 'cx cy cz' [m] in the tip "
                                  'frame') from None


def _fault_injection(context):
    """'true' or 'false' from the launch argument ``fault_injection``."""
    value = LaunchConfiguration('fault_injection').perform(context)
    if value not in ('true', 'false'):
        raise LaunchArgumentError(f'fault_injection:={value!r}; valid: true, false')
    return value


def _gazebo_description(model, q0, out, hold):
    """hardware:=gz: the simulation URDF (GazeboSimSystem, the plugin reading it and
    out/controllers.yaml) and the world that includes it, written to ``out``; the effort
    commands start at g(q0) (``hold``). Returns (URDF, notes, 'gz')."""
    from robodyn_ros.model.ros2_control_urdf import gazebo_world, simulation_urdf
    from robodyn_ros.sim.gazebo_server import physics_engine
    path = os.path.join(out, 'robot_gz.urdf')
    xml, notes = simulation_urdf(model.xml, model, os.path.join(out, 'controllers.yaml'), q0,
                                 description_file=path, effort0=hold, geometry=False)
    with open(path, 'w', encoding='utf-8') as handle:
        handle.write(xml)
    with open(os.path.join(out, 'world.sdf'), 'w', encoding='utf-8') as handle:
        handle.write(gazebo_world(path, physics_engine()))
    return xml, notes, 'gz'


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
    from robodyn_ros.control.plugin_parameters import PLUGIN, plugin_config, plugin_parameters
    from robodyn_ros.io.params_yaml import dump_parameters
    from robodyn_ros.model.ros2_control_urdf import chained_controllers_config
    from robodyn_ros.nodes.reference_sender import SENT_PARAMETERS
    try:
        get_package_share_directory('robodyn_controllers')
    except Exception:  # noqa: BLE001 - PackageNotFoundError: say what to do
        raise LaunchArgumentError('controller:=plugin needs the C++ package '
                                  'robodyn_controllers in the workspace (bash '
                                  'scripts/build_workspace.sh WS); or use controller:=node')
    from robodyn_ros.errors import RobodynError
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
    from robodyn_ros.control.parameters import PARAMETERS
    return float(params.get('max_torque_rate', PARAMETERS['max_torque_rate'].default))


def _forward_limits(params):
    """The node path's forward controller (robodyn_controllers' slew-limited one): each
    cycle's change of the torque applied limited to the configured max_torque_rate (the
    node publishes within NODE_RATE_SHARE of it), and a command timeout of COMMAND_TIMEOUTS
    state timeouts, after which commands that stopped (a node stalled or gone) deactivate
    it and the hardware holds the arm."""
    from robodyn_ros.control.parameters import PARAMETERS
    timeout = params.get('state_timeout', PARAMETERS['state_timeout'].default)
    return {'max_torque_rate': _max_torque_rate(params),
            'command_timeout': COMMAND_TIMEOUTS * float(timeout)}


def _node_actions(context, hardware, config_path, params, model, manager_node):
    """controller:=node: the robodyn node -> forward effort controller -> hardware. The
    node is the control loop here, so ``realtime_priority`` runs it under chrt as well
    (docs/real_arm.md: an arm's node runs SCHED_FIFO)."""
    from robodyn_ros.control.jtc_gains import jtc_gains
    from robodyn_ros.dynamics import RigidBodyDynamics
    from robodyn_ros.io.params_yaml import dump_parameters
    from robodyn_ros.model.ros2_control_urdf import controllers_config
    from robodyn_ros.nodes.recorder import DEFAULT_TOPICS
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
    from robodyn_ros.control.laws import MODES
    if mode not in MODES:
        raise LaunchArgumentError(f'mode:={mode!r}; valid: {", ".join(MODES)}')
    if mode != params.get('mode', 'computed_torque'):
        from robodyn_ros.demo.config import mode_gains
        params['kp'], params['kd'] = mode_gains(mode, model, q0 or model.mid_range, params)
    params['mode'] = mode


def _nodes(context):
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
        from robodyn_ros.sim.gazebo_server import missing
        why = missing()
        if why:
            raise LaunchArgumentError(f'hardware:=gz: {why}')
    for name in ('obstacle', 'sim_payload'):  # refused, not ignored, where nothing simulates
        _simulator_argument(context, name, hardware)
    from robodyn_ros.nodes.launch_robot import config_model
    config_path, params, model, q0 = config_model(context, 'ros2_control')
    params.setdefault('velocity_lag', VELOCITY_LAG.get(hardware, 0.0))
    _choose_law(LaunchConfiguration('mode').perform(context), params, model, q0)
    out = tempfile.mkdtemp(prefix='robodyn_ros2_control_')
    description, notes, package = _description(context, hardware, model, q0, out,
                                               params.get('max_torque_rate', 1000.0))

    priority = LaunchConfiguration('realtime_priority').perform(context)
    if not priority.isdigit() or not 0 <= int(priority) <= 99:
        raise LaunchArgumentError(f'realtime_priority:={priority!r}; valid: 0 (off) to 99')
    prefix = f'chrt -f {int(priority)}' if int(priority) else ''

    def manager(controllers):
        if package == 'gz':  # controller_manager runs inside Gazebo's step (the plugin)
            from robodyn_ros.sim.gazebo_server import server_command
            server = ExecuteProcess(cmd=server_command(os.path.join(out, 'world.sdf')),
                                    name='gz_server', output='screen', prefix=prefix or None,
                                    additional_env={'LD_LIBRARY_PATH': _library_path()},
                                    sigterm_timeout=MANAGER_SIGTERM_AFTER,
                                    sigkill_timeout=MANAGER_SIGKILL_AFTER)
            return GroupAction([server, *_server_watch(server)])
        return Node(package=package, executable='ros2_control_node', output='screen',
                    parameters=[controllers], prefix=prefix,
                    additional_env={'LD_LIBRARY_PATH': _library_path()},
                    sigterm_timeout=MANAGER_SIGTERM_AFTER, sigkill_timeout=MANAGER_SIGKILL_AFTER)
    # The start-up chain (the description, the controllers' start) at the loop's priority:
    # beside real-time processes that keep both cores busy (a simulator in the loop on a
    # loaded machine) a normal-priority start waited minutes; each is idle once done.
    describe = Node(package='robodyn_ros', executable='describe', output='screen',
                    parameters=[{'robot_description': description}], prefix=prefix)
    actions = [LogInfo(msg=f'robodyn ros2_control: {note}') for note in notes]
    build = _plugin_actions if kind == 'plugin' else _node_actions
    return actions + [describe] + build(context, hardware, config_path, params, model,
                                        (manager, out, prefix))


def generate_launch_description():
    share = get_package_share_directory('robodyn_ros')
    from robodyn_ros.nodes.launch_robot import robot_arguments
    return LaunchDescription(transport_actions() + robot_arguments(share) + [
        DeclareLaunchArgument('hardware', default_value='mujoco',
                              description=' | '.join(HARDWARE)),
        DeclareLaunchArgument('controller', default_value='plugin',
                              description=' | '.join(CONTROLLERS)),
        DeclareLaunchArgument('realtime_priority', default_value='0',
                              description='run ros2_control_node (and, controller:=node, '
                                          'the robodyn node) under chrt -f N (SCHED_FIFO, '
                                          "as an arm's driver runs; needs the privilege); 0: "
                                          'off'),
        DeclareLaunchArgument('mode', default_value='',
                              description="the control law (robodyn_ros.control.laws."
                                          "MODES; default: the config's)"),
        DeclareLaunchArgument('bag_path', default_value='',
                              description='rosbag2 directory to record (empty: none)'),
        DeclareLaunchArgument('storage', default_value='mcap', description='mcap | sqlite3'),
        DeclareLaunchArgument('fault_injection', default_value='false',
                              description='tests only, hardware:=mujoco: corrupt the states '
                                          'on request (std_msgs/String on '
                                          '/<hardware>/inject_fault, docs/reliability.md)'),
        DeclareLaunchArgument('obstacle', default_value='',
                              description="hardware:=mujoco: a box fixed in the world, 'cx cy "
                                          "cz hx hy hz' [m] (base frame), that a 0.03 m "
                                          "sphere at the tool strikes (empty: none)"),
        DeclareLaunchArgument('sim_payload', default_value='',
                              description="hardware:=mujoco: a payload only the simulator "
                                          "knows, 'KG [CX CY CZ]' (a point mass, its centre "
                                          "in the tip frame [m]; empty: none)"),
        OpaqueFunction(function=_nodes),
    ])
