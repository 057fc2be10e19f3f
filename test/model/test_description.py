"""Robot descriptions as users have them: xacro with macros, args, includes and YAML, the
ROS URDF parser underneath, and the same model as the hand-expanded URDF."""

import os

import numpy as np
import pytest

from robodyn_ros.errors import InputError, UrdfError
from robodyn_ros.model import load_urdf
from robodyn_ros.model.description import parse_mappings, read_description
from robodyn_ros.model.urdf import parse_urdf

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), 'data', 'descriptions')
STYLES = {'fr_style': 'fr_payload', 'ur_style': 'tool0'}


def _path(name):
    return os.path.join(DATA, name)


def assert_same_model(a, b, tol=1e-12):
    """Same chain: joints (pose, axis, limits, friction) and bodies (inertials)."""
    assert a.joint_names == b.joint_names
    for ja, jb in zip(a.joints, b.joints):
        assert ja.type == jb.type
        np.testing.assert_allclose(ja.origin, jb.origin, atol=tol)
        np.testing.assert_allclose(ja.axis, jb.axis, atol=tol)
        np.testing.assert_allclose([ja.lower, ja.upper, ja.velocity, ja.effort, ja.damping,
                                    ja.friction],
                                   [jb.lower, jb.upper, jb.velocity, jb.effort, jb.damping,
                                    jb.friction], atol=tol)
    for ba, bb in zip(a.bodies, b.bodies):
        np.testing.assert_allclose(ba.mass, bb.mass, atol=tol)
        np.testing.assert_allclose(ba.com, bb.com, atol=tol)
        np.testing.assert_allclose(ba.inertia, bb.inertia, atol=tol)
    np.testing.assert_allclose(a.tool, b.tool, atol=tol)


@pytest.mark.parametrize('style', sorted(STYLES))
def test_xacro_gives_the_model_of_its_hand_expanded_urdf(style):
    tip = STYLES[style]
    xacro_model = load_urdf(_path(f'{style}.urdf.xacro'), tip_link=tip)
    assert_same_model(xacro_model, load_urdf(_path(f'{style}.urdf'), tip_link=tip))


def test_payload_defined_in_a_macro_reaches_the_last_body():
    default = load_urdf(_path('fr_style.urdf.xacro'), tip_link='fr_payload')
    lighter = load_urdf(_path('fr_style.urdf.xacro'), tip_link='fr_payload',
                        mappings=['payload:=4.0'])
    assert default.bodies[-1].mass == pytest.approx(3.587 + 10.0)
    assert default.bodies[-1].mass - lighter.bodies[-1].mass == pytest.approx(6.0)


def test_xacro_args_rename_joints_as_on_the_command_line():
    fr3 = load_urdf(_path('fr_style.urdf.xacro'), tip_link='fr3_payload',
                    mappings={'arm_id': 'fr3'})
    assert fr3.joint_names == tuple(f'fr3_joint{i}' for i in range(1, 5))
    left = load_urdf(_path('ur_style.urdf.xacro'), tip_link='left_tool0',
                     mappings=['tf_prefix:=left_', 'tool_mass:=0.5'])
    assert left.joint_names[0] == 'left_shoulder_joint'
    assert left.bodies[-1].mass == pytest.approx(0.365 + 0.5)


def test_xacro_text_is_expanded_where_urdf_xml_is_expected():
    """A xacro string (e.g. a robot_description parameter set from an unexpanded file)."""
    text = ('<robot name="t" xmlns:xacro="http://www.ros.org/wiki/xacro">'
            '<xacro:property name="m" value="2.0"/><link name="a"/>'
            '<link name="b"><inertial><mass value="${m}"/><inertia ixx="0.1" ixy="0" '
            'ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>'
            '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
            '<limit lower="-1" upper="1" effort="5" velocity="1"/></joint></robot>')
    assert load_urdf(text).bodies[0].mass == 2.0


def test_urdf_parser_warnings_are_collected_not_printed(capsys):
    robot = parse_urdf(_path('fr_style.urdf.xacro'))
    captured = capsys.readouterr()
    assert captured.out == '' and captured.err == ''
    assert any('ros2_control' in w for w in robot.warnings)


def test_xacro_errors_are_one_line():
    with pytest.raises(UrdfError, match="xacro: name 'nope' is not defined") as info:
        read_description('<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="x">'
                         '<link name="${nope}"/></robot>')
    assert '\n' not in str(info.value)


@pytest.mark.parametrize('items, message', [
    (['payload=3'], 'expected name:=value'),
    ([':=3'], 'expected name:=value'),
])
def test_bad_mappings_are_named(items, message):
    with pytest.raises(InputError, match=message):
        parse_mappings(items)


def test_mappings_for_a_plain_urdf_are_refused():
    with pytest.raises(InputError, match='plain URDF'):
        read_description(_path('fr_style.urdf'), ['payload:=1'])


def test_effort_limits_given_explicitly_replace_missing_ones():
    text = open(_path('fr_style.urdf'), encoding='utf-8').read().replace(
        'effort="43.5" ', '')
    with pytest.raises(Exception, match=r"fr_joint4': 'missing'"):
        load_urdf(text, tip_link='fr_payload')
    model = load_urdf(text, tip_link='fr_payload', effort_limits={'fr_joint4': 40.0})
    assert model.effort_limits.tolist() == [87.0, 87.0, 87.0, 40.0]
    assert 'effort="40.0"' in model.xml  # what Pinocchio (urdfdom) reads too
