"""What each ``hardware:=`` of the ros2_control launch runs on: the description
controller_manager loads (the URDF with its ``<ros2_control>`` block, the simulator's model
beside it) and the simulator's own arguments, checked.

Why here and not in the launch file: the launch file declares the arguments a user gives;
the descriptions are made by functions that can be read, typed and tested on their own.
"""

import os
import sys

from launch.substitutions import LaunchConfiguration

from .arguments import LaunchArgumentError as ArgumentError

__all__ = ['HARDWARE', 'LaunchArgumentError', 'description', 'library_path',
           'simulator_argument']

HARDWARE = ('mujoco', 'mujoco_ros2_control', 'mock', 'gz', 'robot')
#: Mock hardware mirrors each effort command to the effort state and never moves: it
#: tests the wiring (controllers, topics, goals, the safe command), not tracking, so the
#: tracking guard (which would trip at once) is off there.
MOCK_OVERRIDES = {'mock': [{'max_tracking_error': 0.0}]}


class LaunchArgumentError(ArgumentError):
    """A launch argument no run can be made of: launch prints this one line and exits 1."""

    def __init__(self, text):
        super().__init__('ros2_control', text)


def library_path() -> str:
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


def description(context, hardware, model, q0, out, max_torque_rate):
    """(URDF for controller_manager, notes, ros2_control_node's package). The lock-step
    MuJoCo hardware holds a joint no controller claims, at ``max_torque_rate`` [N m/s];
    with ``fault_injection:=true`` it corrupts its states and pushes the tool on request
    (tests only)."""
    from ..model.ros2_control_urdf import (
        LOCKSTEP_SYSTEM,
        MOCK_SYSTEM,
        MUJOCO_SYSTEM,
        TEST_SYSTEM,
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
    from ..dynamics import RigidBodyDynamics
    # The simulated hardware starts its commands from the states' initial values (not with
    # a keyframe): effort g(q0) holds the arm at q0 until the controller writes.
    hold = RigidBodyDynamics(model, 'kronecker').gravity_vector(q0)
    if hardware == 'gz':
        return _gazebo_description(model, q0, out, hold)
    from ..sim.mujoco_sim import plugin_mjcf
    simulated = _sim_payload(context, hardware, model)
    if simulated is not model:  # the simulator holds the arm it simulates
        hold = RigidBodyDynamics(simulated, 'kronecker').gravity_vector(q0)
    mjcf, notes = plugin_mjcf(simulated, q0, obstacle=_obstacle(context, hardware))
    path = os.path.join(out, 'model.xml')
    with open(path, 'w', encoding='utf-8') as handle:
        handle.write(mjcf)
    if hardware == 'mujoco':  # robodyn_controllers' lock-step system, in controller_manager
        params = {'mujoco_model': path, 'max_torque_rate': repr(float(max_torque_rate))}
        system = LOCKSTEP_SYSTEM
        if _fault_injection(context):  # the tests' hardware; where a push acts: the tip
            system = TEST_SYSTEM
            params.update(push_body=f'{model.joints[-1].name}_body',
                          push_point=' '.join(repr(float(v)) for v in model.tool[:3, 3]))
        xml, more = control_urdf(model.xml, model, system, q0, params=params, effort0=hold)
        return xml, notes + more, 'controller_manager'
    xml, more = control_urdf(model.xml, model, MUJOCO_SYSTEM, q0,
                             params={'mujoco_model': path, 'headless': 'true'},
                             effort0=hold)
    return xml, notes + more, 'mujoco_ros2_control'


def simulator_argument(context, name, hardware):
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
    from ..sim.mujoco_sim import Obstacle
    text = simulator_argument(context, 'obstacle', hardware)
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
    text = simulator_argument(context, 'sim_payload', hardware)
    if not text:
        return model
    from ..errors import RobodynError
    from ..model.payload import point_mass, with_payload
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
    """True when the launch configuration ``fault_injection`` is 'true' (the tests' hardware,
    robodyn_controllers/MujocoTestSystem, which only a build with BUILD_TESTING installs;
    test/launch/ros2_control_test.launch.py declares the argument), False for 'false' or
    none; a LaunchArgumentError otherwise, or when that hardware is missing."""
    value = LaunchConfiguration('fault_injection', default='false').perform(context)
    if value not in ('true', 'false'):
        raise LaunchArgumentError(f'fault_injection:={value!r}; valid: true, false')
    if value == 'false':
        return False
    from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
    try:
        share = get_package_share_directory('robodyn_controllers')
    except PackageNotFoundError:
        share = ''
    if not os.path.isfile(os.path.join(share, 'test', 'robodyn_test_hardware.xml')):
        raise LaunchArgumentError('fault_injection:=true needs the test hardware '
                                  'robodyn_controllers/MujocoTestSystem, which a workspace '
                                  'built with ROBODYN_BUILD_TESTING=ON installs')
    return True


def _gazebo_description(model, q0, out, hold):
    """hardware:=gz: the simulation URDF (GazeboSimSystem, the plugin reading it and
    out/controllers.yaml) and the world that includes it, written to ``out``; the effort
    commands start at g(q0) (``hold``). Returns (URDF, notes, 'gz')."""
    from ..model.ros2_control_urdf import gazebo_world, simulation_urdf
    from ..sim.gazebo_server import physics_engine
    path = os.path.join(out, 'robot_gz.urdf')
    xml, notes = simulation_urdf(model.xml, model, os.path.join(out, 'controllers.yaml'), q0,
                                 description_file=path, effort0=hold, geometry=False)
    with open(path, 'w', encoding='utf-8') as handle:
        handle.write(xml)
    with open(os.path.join(out, 'world.sdf'), 'w', encoding='utf-8') as handle:
        handle.write(gazebo_world(path, physics_engine()))
    return xml, notes, 'gz'
