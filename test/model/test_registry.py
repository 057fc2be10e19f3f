"""The one robot loader: a name, a path or URDF XML, with base and tip overrides."""

import pytest

from robodyn_ros.errors import ModelError
from robodyn_ros.model import load_robot
from robodyn_ros.model.registry import ROBOTS, is_description, robot_path


@pytest.mark.parametrize('name, expected', [
    ('panda', False), ('three_link', False), ('arm.urdf', True), ('arm.xacro', True),
    ('some/dir/arm', True), ('  <robot name="x"/>', True), ('nosuch', False)])
def test_a_name_is_a_robot_and_anything_else_a_description(name, expected):
    assert is_description(name) is expected


def test_a_named_robot_loads_as_its_file_with_the_registry_chain():
    path, base, tip = robot_path('panda')
    by_name = load_robot('panda', tip_link='panda_hand')
    by_path = load_robot(path, base, 'panda_hand')
    assert by_name.joint_names == by_path.joint_names
    assert by_name.dh_table().rows == by_path.dh_table().rows


def test_base_and_tip_override_the_registry():
    default = load_robot('panda')
    shorter = load_robot('panda', tip_link='panda_link5')
    assert ROBOTS['panda'].tip_link != 'panda_link5'
    assert shorter.n == 5 < default.n


def test_an_unknown_name_names_the_valid_ones():
    with pytest.raises(ModelError, match='unknown robot .nosuch.; valid: .*panda'):
        load_robot('nosuch')
