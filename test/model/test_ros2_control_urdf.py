"""The generated ros2_control descriptions: urdfdom's check_urdf accepts them, the chain is
bolted to the world with its interfaces and limits, and MuJoCo's own URDF importer holds
the arm still at its initial positions under robodyn's gravity torques."""

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import mujoco
import numpy as np
import pytest

from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.errors import ModelError
from robodyn_ros.model import load_urdf
from robodyn_ros.model.registry import PANDA_HOME, package_share, robot_path
from robodyn_ros.model.ros2_control_urdf import (
    controllers_config,
    hardware_urdf,
    initial_positions,
    simulation_urdf,
)

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), 'data', 'descriptions')
ARMS = {  # name: q0 (None: mid-range)
    'panda': list(PANDA_HOME),
    'ur5': [0.0, -1.57, 1.57, -1.57, -1.57, 0.0],
    'three_link': None,
}


def _check_urdf():
    found = shutil.which('check_urdf') or os.path.join(os.path.dirname(sys.executable),
                                                        'check_urdf')
    if not os.path.isfile(found):
        pytest.skip("urdfdom's check_urdf not found (it comes with the pin package)")
    return found


def _generated(name, tmp_path):
    source, base, tip = robot_path(name)
    model = load_urdf(source, base, tip)
    xml, notes = simulation_urdf(source, model, '/share/ros2_controllers.yaml', ARMS[name],
                                 package_dir=package_share)
    path = tmp_path / f'{name}_sim.urdf'
    path.write_text(xml)
    return model, xml, path, notes


@pytest.mark.parametrize('name', sorted(ARMS))
def test_check_urdf_accepts_the_simulation_description(name, tmp_path):
    model, xml, path, _ = _generated(name, tmp_path)
    result = subprocess.run([_check_urdf(), str(path)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert 'Successfully Parsed XML' in result.stdout
    root = ET.fromstring(xml)
    world = [j for j in root.findall('joint') if j.find('parent').get('link') == 'world']
    assert [j.get('type') for j in world] == ['fixed']
    (control,) = root.findall('ros2_control')
    assert control.find('hardware/plugin').text == 'gz_ros2_control/GazeboSimSystem'
    assert [j.get('name') for j in control.findall('joint')] == list(model.joint_names)
    for joint, effort in zip(control.findall('joint'), model.effort_limits):
        bound = joint.find("command_interface[@name='effort']/param[@name='max']").text
        assert float(bound) == effort
    plugin = root.find('gazebo/plugin')
    assert plugin.get('name') == 'gz_ros2_control::GazeboSimROS2ControlPlugin'
    assert plugin.find('parameters').text == '/share/ros2_controllers.yaml'
    again = load_urdf(xml, model.base_link, model.tip_link)
    assert again.joint_names == model.joint_names
    assert again.lower.tolist() == model.lower.tolist()


def _mujoco_from_urdf(xml):
    """MuJoCo's URDF importer on the description, meshes and ROS tags dropped."""
    root = ET.fromstring(xml)
    for tag in ('ros2_control', 'gazebo'):
        for elem in root.findall(tag):
            root.remove(elem)
    for link in root.findall('link'):
        for elem in link.findall('visual') + link.findall('collision'):
            link.remove(elem)
    ET.SubElement(ET.SubElement(root, 'mujoco'), 'compiler', discardvisual='true',
                  fusestatic='false', balanceinertia='false')
    mj = mujoco.MjModel.from_xml_string(ET.tostring(root, encoding='unicode'))
    mj.opt.timestep = 0.001
    return mj


@pytest.mark.parametrize('name', sorted(ARMS))
def test_generated_description_holds_still_in_mujoco_under_gravity_torques(name, tmp_path):
    _, xml, _, _ = _generated(name, tmp_path)
    model = load_urdf(xml, tip_link=robot_path(name)[2])
    mj = _mujoco_from_urdf(xml)
    data = mujoco.MjData(mj)
    ids = [mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_JOINT, j) for j in model.joint_names]
    qpos, dof = mj.jnt_qposadr[ids], mj.jnt_dofadr[ids]
    q0 = initial_positions(model, ARMS[name])
    data.qpos[qpos] = q0
    tau = RigidBodyDynamics(model).gravity_vector(q0)
    drift = 0.0
    for _ in range(2000):  # 2 s
        data.qfrc_applied[dof] = tau
        mujoco.mj_step(mj, data)
        drift = max(drift, float(np.abs(data.qpos[qpos] - q0).max()))
    assert drift <= 1e-3
    data.qfrc_applied[:] = 0.0  # the same arm without the torques falls: the check can fail
    data.qpos[qpos], data.qvel[:] = q0, 0.0
    for _ in range(2000):
        mujoco.mj_step(mj, data)
    assert np.abs(data.qpos[qpos] - q0).max() > 1e-3


def test_hardware_block_replaced_for_simulation_kept_for_hardware():
    source = os.path.join(DATA, 'fr_style.urdf.xacro')
    model = load_urdf(source, tip_link='fr_payload')
    sim, notes = simulation_urdf(source, model, 'c.yaml')
    plugins = [p.text for p in ET.fromstring(sim).findall('ros2_control/hardware/plugin')]
    assert plugins == ['gz_ros2_control/GazeboSimSystem']
    assert any('FrankaHardwareInterface' in n for n in notes)
    assert any('meshes of package' in n for n in notes)  # its package cannot be found here
    assert 'package://' not in sim
    hw, _ = hardware_urdf(source, model, 'mock_components/GenericSystem')
    plugins = [p.text for p in ET.fromstring(hw).findall('ros2_control/hardware/plugin')]
    assert plugins == ['franka_hardware/FrankaHardwareInterface']
    bare, _ = hardware_urdf(os.path.join(DATA, 'fr_style.urdf'), model,
                            'mock_components/GenericSystem')
    plugins = [p.text for p in ET.fromstring(bare).findall('ros2_control/hardware/plugin')]
    assert plugins == ['mock_components/GenericSystem']


def test_initial_positions_outside_the_limits_are_refused():
    source, base, tip = robot_path('panda')
    model = load_urdf(source, base, tip)
    with pytest.raises(ModelError, match='panda_joint4 is outside its limits'):
        simulation_urdf(source, model, 'c.yaml', [0.0] * 7)
    mid = initial_positions(model)
    assert np.all((model.lower <= mid) & (mid <= model.upper))


@pytest.mark.parametrize('name', sorted(ARMS))
def test_controllers_config_names_exactly_the_chain_joints(name):
    source, base, tip = robot_path(name)
    model = load_urdf(source, base, tip)
    config = controllers_config(model, 500, kp=[100.0] * model.n)
    joints = list(model.joint_names)
    assert config['controller_manager']['ros__parameters']['update_rate'] == 500
    assert config['effort_controller']['ros__parameters'] == {'joints': joints,
                                                             'interface_name': 'effort'}
    jtc = config['joint_trajectory_controller']['ros__parameters']
    assert jtc['joints'] == joints and jtc['command_interfaces'] == ['effort']
    assert sorted(jtc['gains']) == sorted(joints)


def test_the_jtc_gains_follow_the_chain_whatever_the_command_order():
    model = load_urdf(*robot_path('panda'))
    kp = np.arange(1.0, 8.0)
    config = controllers_config(model, 1000, kp=kp, kd=kp / 10,
                                joints=list(model.joint_names)[::-1])
    gains = config['joint_trajectory_controller']['ros__parameters']['gains']
    assert [gains[j]['p'] for j in model.joint_names] == list(kp)
    assert gains['panda_joint7']['d'] == 0.7


def test_with_a_torque_rate_the_effort_controller_limits_each_cycle():
    """With a max_torque_rate the node path's forward controller is robodyn_controllers'
    slew-limited one, at that rate, with the command timeout when one is given (the
    launch gives both: docs/reliability.md)."""
    model = load_urdf(*robot_path('panda'))
    config = controllers_config(model, 1000, max_torque_rate=500.0)
    manager = config['controller_manager']['ros__parameters']
    assert manager['effort_controller']['type'] == \
        'robodyn_controllers/SlewLimitedEffortController'
    assert config['effort_controller']['ros__parameters'] == {
        'joints': list(model.joint_names), 'max_torque_rate': 500.0,
        'velocity_limits': [2.175] * 4 + [2.61] * 3}  # the Panda's URDF
    timed = controllers_config(model, 1000, max_torque_rate=500.0, command_timeout=0.2)
    assert timed['effort_controller']['ros__parameters']['command_timeout'] == 0.2
    # in the command order the robodyn controller's ``joints`` give
    reordered = controllers_config(model, 1000, joints=list(model.joint_names)[::-1],
                                   max_torque_rate=500.0)
    assert reordered['effort_controller']['ros__parameters']['velocity_limits'] == \
        [2.61] * 3 + [2.175] * 4
    plain = controllers_config(model, 1000)['controller_manager']['ros__parameters']
    assert plain['effort_controller']['type'] == \
        'forward_command_controller/ForwardCommandController'



def test_the_panda_config_starts_at_the_registry_home_pose():
    """config/panda.yaml's robodyn_sim.q0 is the registry's PANDA_HOME (its one home)."""
    import yaml
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
                        'config', 'panda.yaml')
    with open(path, encoding='utf-8') as handle:
        q0 = yaml.safe_load(handle)['robodyn_sim']['ros__parameters']['q0']
    assert tuple(q0) == PANDA_HOME


def test_the_gazebo_world_includes_the_simulation_urdf_with_dart_at_1_ms(tmp_path):
    from robodyn_ros.model.ros2_control_urdf import gazebo_world
    world = ET.fromstring(gazebo_world('/w/robot_gz.urdf', '/lib/dart.so.5', step=0.001))
    assert world.find('world/physics').get('type') == 'dart'
    assert world.find('world/physics/max_step_size').text == '0.001'
    assert world.find('world/plugin/engine/filename').text == '/lib/dart.so.5'
    assert world.find('world/include/uri').text == 'file:///w/robot_gz.urdf'


def test_the_gazebo_urdf_names_its_own_file_and_starts_the_efforts_at_the_hold():
    source, base, tip = robot_path('panda')
    model = load_urdf(source, base, tip)
    hold = np.arange(1.0, 8.0)
    xml, notes = simulation_urdf(source, model, '/c.yaml', description_file='/d/robot.urdf',
                                 effort0=hold, geometry=False)
    root = ET.fromstring(xml)
    plugin = root.find('gazebo/plugin')
    assert plugin.find('robot_description_file').text == '/d/robot.urdf'
    assert plugin.find('parameters').text == '/c.yaml'
    assert not root.findall('link/visual') and not root.findall('link/collision')
    assert any('dropped' in n for n in notes)
    values = [float(p.text) for p in root.findall(
        "ros2_control/joint/command_interface/param[@name='initial_value']")]
    assert values == list(hold)
