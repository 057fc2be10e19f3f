"""gazebo.launch.py as installed, short of starting gz (not installable here): the
description and controllers it generates, and its spawner chain."""

import importlib.util
import os

import pytest
import yaml

from robodyn_ros.model import load_urdf

pytestmark = pytest.mark.integration

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), 'data', 'descriptions')


@pytest.fixture
def gazebo_launch(ros_launch_env, colcon_install, monkeypatch):
    """The installed gazebo.launch.py as a module, with the install on the ament index."""
    monkeypatch.setenv('AMENT_PREFIX_PATH', ros_launch_env['AMENT_PREFIX_PATH'])
    share = colcon_install / 'install' / 'robodyn_ros' / 'share' / 'robodyn_ros'
    spec = importlib.util.spec_from_file_location('gazebo_launch',
                                                  share / 'launch' / 'gazebo.launch.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, share


def _context(**configurations):
    from launch import LaunchContext
    context = LaunchContext()
    context.launch_configurations.update(configurations)
    return context


def _actions(module, **configurations):
    context = _context(**configurations)
    return module._nodes(context), context


def _exited(action):
    from launch.events.process import ProcessExited
    return ProcessExited(action=action, name='x', cmd=['x'], cwd=None, env=None, pid=1,
                         returncode=0)


def _started_after(handlers, action, context):
    event = _exited(action)
    return [a for h in handlers if h.matches(event) for a in h.handle(event, context)]


def test_spawners_are_chained_robot_broadcaster_effort_controller(gazebo_launch):
    from launch.actions import RegisterEventHandler
    from launch_ros.actions import Node
    module, share = gazebo_launch
    actions, context = _actions(module, robot='', xacro_args='',
                                config=str(share / 'config' / 'panda.yaml'))
    handlers = [a.event_handler for a in actions if isinstance(a, RegisterEventHandler)]
    (spawn,) = [a for a in actions if isinstance(a, Node) and a.node_executable == 'create']
    (broadcaster,) = _started_after(handlers, spawn, context)
    assert broadcaster.node_executable == 'spawner'
    after_broadcaster = _started_after(handlers, broadcaster, context)
    assert len(after_broadcaster) == 2  # effort controller, JTC (inactive)
    following = [_started_after(handlers, a, context) for a in after_broadcaster]
    (controller,) = [a for started in following for a in started]
    assert (controller.node_package, controller.node_executable) == ('robodyn_ros',
                                                                     'controller')


def test_any_robot_from_xacro_with_args(gazebo_launch, tmp_path):
    module, _ = gazebo_launch
    config = {'robodyn_controller': {'ros__parameters': {
        'robot': os.path.join(DATA, 'fr_style.urdf.xacro'), 'tip_link': 'fr3_payload',
        'rate': 500.0}},
        'robodyn_sim': {'ros__parameters': {'q0': [0.0, 0.3, 0.0, -1.5]}}}
    path = tmp_path / 'fr.yaml'
    path.write_text(yaml.safe_dump(config))
    _, model, xml, notes = module._description(_context(
        robot='', xacro_args='arm_id:=fr3 payload:=3.0', config=str(path)))
    assert model.joint_names == tuple(f'fr3_joint{i}' for i in range(1, 5))
    assert 'franka_hardware' not in xml and 'GazeboSimSystem' in xml
    assert any('world_joint' in n for n in notes)
    sim = load_urdf(xml, tip_link='fr3_payload')
    assert sim.root_link == 'world' and sim.joint_names == model.joint_names
    controllers_yaml = xml.split('<parameters>')[1].split('</parameters>')[0]
    controllers = yaml.safe_load(open(controllers_yaml, encoding='utf-8'))
    assert controllers['controller_manager']['ros__parameters']['update_rate'] == 500
    assert controllers['effort_controller']['ros__parameters']['joints'] == \
        list(model.joint_names)

