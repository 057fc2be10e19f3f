"""ros2_control descriptions from a RobotModel: the ``<ros2_control>`` block, the URDF for
simulation (gz_ros2_control) or hardware, and the controllers YAML. Pure XML/dict
processing, no ROS imports.

For simulation the URDF's own hardware ``<ros2_control>`` blocks are replaced (they name
drivers that cannot run in a simulator) and the gz_ros2_control plugin is added; for
hardware an existing block is kept as is (it is the robot vendor's). A URDF whose root link
is not ``world`` gets a ``world`` link and a fixed joint to it, so the arm is bolted to the
ground in gz instead of being a free body.
"""

import xml.etree.ElementTree as ET

import numpy as np

from ..defaults import CONTROLLER_NAME
from ..errors import ModelError, UrdfError
from .description import read_description
from .spatial import axis_angle_matrix, matrix_to_rpy, rpy_to_matrix, transform

__all__ = ['GZ_SYSTEM', 'MOCK_SYSTEM', 'MUJOCO_SYSTEM', 'LOCKSTEP_SYSTEM', 'TEST_SYSTEM',
           'ros2_control_element',
           'simulation_urdf', 'gazebo_world', 'hardware_urdf', 'control_urdf',
           'controllers_config', 'chained_controllers_config', 'trajectory_constraints',
           'initial_positions', 'JTC_KP', 'JTC_KD']

GZ_SYSTEM = 'gz_ros2_control/GazeboSimSystem'
MOCK_SYSTEM = 'mock_components/GenericSystem'
MUJOCO_SYSTEM = 'mujoco_ros2_control/MujocoSystemInterface'
#: MuJoCo stepped in controller_manager's loop by each cycle's period (robodyn_controllers).
LOCKSTEP_SYSTEM = 'robodyn_controllers/MujocoLockstepSystem'
#: The same with the tests' fault injection, pushes and applied-step witness (installed by a
#: build with BUILD_TESTING only).
TEST_SYSTEM = 'robodyn_controllers/MujocoTestSystem'
GZ_PLUGIN = ('gz_ros2_control-system', 'gz_ros2_control::GazeboSimROS2ControlPlugin')


def initial_positions(model, q0=None):
    """(n,) initial joint positions: ``q0`` checked against the limits, or the middle of
    each finite range (0 for unlimited joints). ModelError naming a joint outside."""
    if q0 is None:
        return model.mid_range
    q0 = np.asarray(q0, dtype=float)
    if q0.shape != (model.n,) or not np.all(np.isfinite(q0)):
        raise ModelError(f'initial positions: expected {model.n} finite values (one per joint '
                         f'{list(model.joint_names)}), got {q0.tolist()}')
    for name, q, lo, hi in zip(model.joint_names, q0, model.lower, model.upper):
        if not lo <= q <= hi:
            raise ModelError(f'initial position {q:g} of {name} is outside its limits '
                             f'[{lo:g}, {hi:g}]')
    return q0


def _param(parent, name, value):
    ET.SubElement(parent, 'param', name=name).text = f'{value:.17g}' \
        if isinstance(value, float) else str(value)


def ros2_control_element(model, q0=None, plugin=GZ_SYSTEM, name='RobodynEffortSystem',
                         params=None, effort0=None):
    """``<ros2_control>`` element: per chain joint an effort command interface (bounded by
    the effort limit) and position (initial value ``q0``), velocity and effort states
    (initial value of the effort state and command ``effort0``: the hardware applies it
    until a controller writes, so g(q0) holds a simulated arm where it starts).
    ``params``: the hardware's parameters {name: value}."""
    q0 = initial_positions(model, q0)
    effort0 = np.zeros(model.n) if effort0 is None else np.asarray(effort0, dtype=float)
    control = ET.Element('ros2_control', name=name, type='system')
    hardware = ET.SubElement(control, 'hardware')
    ET.SubElement(hardware, 'plugin').text = plugin
    for key, value in (params or {}).items():
        ET.SubElement(hardware, 'param', name=key).text = str(value)
    for joint, q, tau in zip(model.joints, q0, effort0):
        elem = ET.SubElement(control, 'joint', name=joint.name)
        command = ET.SubElement(elem, 'command_interface', name='effort')
        _param(command, 'min', -float(joint.effort))
        _param(command, 'max', float(joint.effort))
        _param(command, 'initial_value', float(tau))
        _param(ET.SubElement(elem, 'state_interface', name='position'), 'initial_value',
               float(q))
        ET.SubElement(elem, 'state_interface', name='velocity')
        _param(ET.SubElement(elem, 'state_interface', name='effort'), 'initial_value',
               float(tau))
    return control


def _root(source, mappings):
    try:
        return ET.fromstring(read_description(source, mappings))
    except ET.ParseError as exc:
        raise UrdfError(f'invalid URDF XML: {exc}') from None


def _bolt_to_world(root, model):
    """Add link ``world`` and a fixed joint to the model's root link when missing."""
    if model.root_link == 'world' or root.find("link[@name='world']") is not None:
        return False
    root.insert(0, ET.Element('link', name='world'))
    joint = ET.Element('joint', name='world_joint', type='fixed')
    ET.SubElement(joint, 'parent', link='world')
    ET.SubElement(joint, 'child', link=model.root_link)
    ET.SubElement(joint, 'origin', xyz='0 0 0', rpy='0 0 0')
    root.insert(1, joint)
    return True


def _resolve_meshes(root, package_dir):
    """``package://pkg/path`` mesh URIs -> ``file://`` paths; visuals and collisions whose
    mesh cannot be resolved are dropped. Returns notes (one per package dropped)."""
    dropped: dict[str, int] = {}
    for link in root.findall('link'):
        for kind in ('visual', 'collision'):
            for elem in link.findall(kind):
                mesh = elem.find('geometry/mesh')
                uri = mesh.get('filename', '') if mesh is not None else ''
                if not uri.startswith('package://'):
                    continue
                package, _, rest = uri[len('package://'):].partition('/')
                base = package_dir(package) if package_dir else None
                if base:
                    mesh.set('filename', f'file://{base.rstrip("/")}/{rest}')
                else:
                    link.remove(elem)
                    dropped[package] = dropped.get(package, 0) + 1
    return [f'{count} visual/collision meshes of package {package!r} dropped (not found)'
            for package, count in sorted(dropped.items())]


def _lock_off_chain(root, model):
    """Off-chain moving joints (fingers, mimics among them) -> fixed at the positions the
    model locks them at, so the simulator holds them as the model assumes. Returns notes."""
    locked = []
    for elem in root.findall('joint'):
        name = elem.get('name')
        if name not in model.locked or elem.get('type') not in ('revolute', 'continuous',
                                                                 'prismatic'):
            continue
        value = float(model.locked[name])
        if value:
            origin = elem.find('origin')
            pose = transform(rpy_to_matrix([float(v) for v in (origin.get('rpy') or '0 0 0')
                                            .split()]) if origin is not None else None,
                             [float(v) for v in (origin.get('xyz') or '0 0 0').split()]
                             if origin is not None else None)
            axis = elem.find('axis')
            direction = np.array([float(v) for v in axis.get('xyz').split()]) \
                if axis is not None else np.array([1.0, 0.0, 0.0])
            direction /= np.linalg.norm(direction)
            motion = transform(None, direction * value) if elem.get('type') == 'prismatic' \
                else transform(axis_angle_matrix(direction, value))
            pose = pose @ motion
            if origin is None:
                origin = ET.SubElement(elem, 'origin')
            origin.set('xyz', ' '.join(repr(float(v)) for v in pose[:3, 3]))
            origin.set('rpy', ' '.join(repr(float(v)) for v in matrix_to_rpy(pose[:3, :3])))
        elem.set('type', 'fixed')
        for child in [c for c in elem if c.tag in ('mimic', 'limit', 'axis', 'dynamics',
                                                     'safety_controller', 'calibration')]:
            elem.remove(child)
        locked.append(name)
    return [f'off-chain joints {locked} locked (fixed at the positions the model holds them '
            'at)'] if locked else []


def simulation_urdf(source, model, controllers_yaml, q0=None, mappings=None,
                    package_dir=None, description_file=None, effort0=None,
                    geometry=True):
    """URDF for gz sim + gz_ros2_control. Returns (xml text, notes).

    Args:
        source: the robot description (path or text, URDF or xacro).
        model: RobotModel of the chain to control (its joints get the interfaces).
        controllers_yaml: path of the controllers YAML the plugin loads.
        q0: initial joint positions (default: mid-range), checked against the limits.
        mappings: xacro arguments.
        package_dir: callable package name -> share directory or None, for mesh URIs.
        description_file: where this URDF will be written: the plugin reads its
            ``<ros2_control>`` block from there (``robot_description_file``) instead of
            waiting for a ``/robot_description`` topic.
        effort0: the effort commands' initial values [N m or N] (g(q0): a controller that
            starts from the command interface takes over the arm without a step).
        geometry: keep visual and collision geometry (False: drop it, for a server that
            renders nothing and an arm that touches nothing).
    """
    root = _root(source, mappings)
    notes = []
    for block in root.findall('ros2_control'):
        root.remove(block)
        notes.append(f'hardware <ros2_control name="{block.get("name")}"> replaced for '
                     'simulation')
    for gazebo in root.findall('gazebo'):
        for plugin in gazebo.findall('plugin'):
            names = plugin.get('filename', '') + ' ' + plugin.get('name', '')
            if 'ros2_control' in names or 'ros_control' in names:  # also ROS 1's
                gazebo.remove(plugin)
                notes.append(f'gazebo plugin {plugin.get("filename")!r} replaced')
    if _bolt_to_world(root, model):
        notes.append(f'added link world and fixed joint world_joint -> {model.root_link}')
    notes += _lock_off_chain(root, model)
    if geometry:
        notes += _resolve_meshes(root, package_dir)
    else:
        dropped = 0
        for link in root.findall('link'):
            for elem in link.findall('visual') + link.findall('collision'):
                link.remove(elem)
                dropped += 1
        notes.append(f'{dropped} visual and collision elements dropped (the server renders '
                     'nothing; the arm touches nothing in this world)')
    root.append(ros2_control_element(model, q0, GZ_SYSTEM, effort0=effort0))
    plugin = ET.SubElement(ET.SubElement(root, 'gazebo'), 'plugin', filename=GZ_PLUGIN[0],
                           name=GZ_PLUGIN[1])
    ET.SubElement(plugin, 'parameters').text = str(controllers_yaml)
    if description_file:
        ET.SubElement(plugin, 'robot_description_file').text = str(description_file)
    return ET.tostring(root, encoding='unicode'), notes


def gazebo_world(description_file, engine=None, step=0.001, gravity=(0.0, 0.0, -9.81),
                 name='robodyn'):
    """SDF world for the Gazebo server: DART physics at ``step`` [s] in real time,
    ``gravity`` [m/s^2] in the world frame, and the robot included from its simulation URDF
    (sdformat converts it; its ``<gazebo>`` plugin runs controller_manager in the step).
    ``engine``: the physics engine library's path (Debian ships it versioned only)."""
    sdf = ET.Element('sdf', version='1.8')
    world = ET.SubElement(sdf, 'world', name=name)
    physics = ET.SubElement(world, 'physics', name='step', type='dart')
    ET.SubElement(physics, 'max_step_size').text = repr(float(step))
    ET.SubElement(physics, 'real_time_factor').text = '1.0'
    ET.SubElement(world, 'gravity').text = ' '.join(repr(float(g)) for g in gravity)
    system = ET.SubElement(world, 'plugin', filename='ignition-gazebo-physics-system',
                           name='ignition::gazebo::systems::Physics')
    if engine:
        ET.SubElement(ET.SubElement(system, 'engine'), 'filename').text = str(engine)
    ET.SubElement(ET.SubElement(world, 'include'), 'uri').text = f'file://{description_file}'
    return '<?xml version="1.0"?>\n' + ET.tostring(sdf, encoding='unicode')


def control_urdf(source, model, plugin, q0=None, mappings=None, params=None, effort0=None):
    """URDF for controller_manager with a hardware of ours (``plugin``: mock_components/
    GenericSystem, mujoco_ros2_control/MujocoSystemInterface): the description's own
    ``<ros2_control>`` blocks and gazebo control plugins removed, off-chain joints locked,
    one block for exactly the chain (see ros2_control_element). Returns (xml, notes)."""
    root = _root(source, mappings)
    notes = []
    for block in root.findall('ros2_control'):
        root.remove(block)
        notes.append(f'hardware <ros2_control name="{block.get("name")}"> replaced by '
                     f'{plugin}')
    notes += _lock_off_chain(root, model)
    root.append(ros2_control_element(model, q0, plugin, params=params, effort0=effort0))
    return ET.tostring(root, encoding='unicode'), notes


def hardware_urdf(source, model, plugin, q0=None, mappings=None):
    """URDF for a real arm: an existing ``<ros2_control>`` block is kept (the vendor's);
    without one, a block for ``plugin`` (e.g. ``mock_components/GenericSystem``) is added.
    Returns (xml text, notes)."""
    root = _root(source, mappings)
    if root.find('ros2_control') is not None:
        return ET.tostring(root, encoding='unicode'), ['existing <ros2_control> kept']
    root.append(ros2_control_element(model, q0, plugin))
    return ET.tostring(root, encoding='unicode'), [f'added <ros2_control> for {plugin}']


#: The forward controllers of the node path: robodyn_controllers' slew-limited one (each
#: cycle's change limited in the hardware's own cycle, and deactivated when the commands
#: stop: docs/reliability.md), or ros2_controllers' ForwardCommandController.
SLEW_LIMITED_FORWARD = 'robodyn_controllers/SlewLimitedEffortController'
FORWARD = 'forward_command_controller/ForwardCommandController'


#: The JointTrajectoryController's default PD on the node path [N m/rad, N m s/rad] (the
#: launch caps the damping per joint: control/jtc_gains.py).
JTC_KP, JTC_KD = 100.0, 10.0


def controllers_config(model, update_rate=1000, kp=None, kd=None, joints=None,
                       max_torque_rate=None, command_timeout=None):
    """controller_manager parameters (a dict for dump_parameters) for exactly the chain's
    joints: joint_state_broadcaster, ``effort_controller`` (forward effort commands, what
    the robodyn controller publishes to) and ``joint_trajectory_controller`` (effort
    command interface, PD gains ``kp``/``kd`` [N m/rad, N m s/rad]; load it inactive: it
    claims the same effort interfaces). ``joints``: the order of the chain's joints in a
    command (the robodyn controller's ``joints`` parameter; default the chain's order):
    the forward controller assigns a command's values in this order (``kp``, ``kd``: 1 or n
    values in the chain's order; default JTC_KP and JTC_KD, the launch caps kd with
    control.jtc_gains). ``max_torque_rate``
    [N m/s]: the effort controller is SLEW_LIMITED_FORWARD with this limit per cycle (the
    robodyn node's own: a message it publishes never needs more) and ``command_timeout``
    [s] (None: its default, 0.2; 0: off), after which commands that stopped deactivate it
    and the hardware holds the arm; None: FORWARD."""
    if joints:
        if sorted(joints) != sorted(model.joint_names):
            raise ModelError(f'joints {list(joints)}: expected an order of the chain joints '
                             f'{list(model.joint_names)}')
        joints = list(joints)
    else:
        joints = list(model.joint_names)
    kp = np.broadcast_to(np.asarray(JTC_KP if kp is None else kp, dtype=float), (model.n,))
    kd = np.broadcast_to(np.asarray(JTC_KD if kd is None else kd, dtype=float), (model.n,))
    return {
        'controller_manager': {'ros__parameters': {
            'update_rate': int(update_rate),
            # the robodyn node clamps and rate-limits its commands itself (see
            # chained_controllers_config)
            'enforce_command_limits': False,
            'joint_state_broadcaster': {
                'type': 'joint_state_broadcaster/JointStateBroadcaster'},
            'effort_controller': {
                'type': FORWARD if max_torque_rate is None else SLEW_LIMITED_FORWARD},
            'joint_trajectory_controller': {
                'type': 'joint_trajectory_controller/JointTrajectoryController'},
        }},
        'effort_controller': {'ros__parameters': {'joints': joints,
                                                  'interface_name': 'effort'}
                              if max_torque_rate is None else
                              _slew_limited(joints, max_torque_rate, command_timeout,
                                            _velocity_limits(model, joints))},
        'joint_trajectory_controller': {'ros__parameters': {
            'joints': joints, 'command_interfaces': ['effort'],
            'state_interfaces': ['position', 'velocity'],
            # kp, kd are in the chain's order, whatever order the commands take
            'gains': {j: {'p': float(p), 'd': float(d), 'i': 0.0, 'i_clamp': 0.0}
                      for j, p, d in zip(model.joint_names, kp, kd)},
        }},
    }


def _velocity_limits(model, joints):
    """The model's velocity limits in ``joints`` order, 0 where a joint has none."""
    limits = dict(zip(model.joint_names, np.asarray(model.velocity_limits, dtype=float)))
    return [float(limits[j]) if np.isfinite(limits[j]) and limits[j] > 0 else 0.0
            for j in joints]


def _slew_limited(joints, max_torque_rate, command_timeout, velocity_limits):
    # velocity_limits: a stale command that drives a joint beyond its limit ends at once
    values = {'joints': joints, 'max_torque_rate': float(max_torque_rate),
              'velocity_limits': velocity_limits}
    if command_timeout is not None:
        values['command_timeout'] = float(command_timeout)
    return values


#: The JointTrajectoryController's default tolerances on an arm that moves: a goal whose
#: arm leaves the reference by more than TRAJECTORY_TOLERANCE [rad or m] on the way, or is
#: not within GOAL_TOLERANCE of the last point GOAL_TIME [s] after its time, ABORTs
#: (a goal's result says what the arm did; the robodyn controller holds the arm when the
#: reference leaves the limits, and these turn that hold into the goal's failure).
TRAJECTORY_TOLERANCE, GOAL_TOLERANCE, GOAL_TIME, STOPPED_VELOCITY = 0.1, 0.02, 1.0, 0.05


def trajectory_constraints(joints):
    """The JointTrajectoryController's ``constraints`` block for ``joints``."""
    constraints: dict = {'goal_time': GOAL_TIME,
                         'stopped_velocity_tolerance': STOPPED_VELOCITY}
    for joint in joints:
        constraints[joint] = {'trajectory': TRAJECTORY_TOLERANCE, 'goal': GOAL_TOLERANCE}
    return constraints


def chained_controllers_config(model, update_rate, plugin_values, plugin_type,
                               name=CONTROLLER_NAME, constraints=True):
    """controller_manager parameters for the plugin path: joint_state_broadcaster, the C++
    controller ``name`` (``plugin_type``, parameters ``plugin_values`` from robodyn export)
    on the effort interfaces, and ``joint_trajectory_controller`` chained into its reference
    interfaces ``name/<joint>/{position,velocity,acceleration}`` (``command_joints``), with
    goal and path tolerances (``constraints``: off for hardware that does not move).
    ros2_control's own command limiter is off (``enforce_command_limits``): the robodyn
    controller clamps and rate-limits every command itself, and a second limiter would
    make the torque applied differ from the one it reports on ``~/commands``."""
    joints = list(model.joint_names)
    jtc = {'joints': joints, 'command_joints': [f'{name}/{j}' for j in joints],
           'command_interfaces': ['position', 'velocity', 'acceleration'],
           'state_interfaces': ['position', 'velocity'],
           'allow_nonzero_velocity_at_trajectory_end': True}
    if constraints:
        jtc['constraints'] = trajectory_constraints(joints)
    return {
        'controller_manager': {'ros__parameters': {
            'update_rate': int(update_rate),
            'enforce_command_limits': False,
            'joint_state_broadcaster': {
                'type': 'joint_state_broadcaster/JointStateBroadcaster'},
            name: {'type': plugin_type},
            'joint_trajectory_controller': {
                'type': 'joint_trajectory_controller/JointTrajectoryController'},
        }},
        name: {'ros__parameters': dict(plugin_values, joints=joints)},
        'joint_trajectory_controller': {'ros__parameters': jtc},
    }
