"""Bad input: one clear typed error from the API, one line and exit 2 from the CLI."""

import numpy as np
import pytest

from robodyn_ros.cli import build_parser, run
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.errors import InputError, ModelError, RobodynError, UrdfError
from robodyn_ros.model import load_urdf
from robodyn_ros.model.registry import robot_path

LINK = ('<link name="{n}"><inertial><mass value="{m}"/>'
        '<inertia ixx="{i[0]}" ixy="0" ixz="0" iyy="{i[1]}" iyz="0" izz="{i[2]}"/>'
        '</inertial></link>')
JOINT = ('<joint name="{n}" type="{t}"><parent link="{p}"/><child link="{c}"/>'
         '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="10" velocity="1"/></joint>')


def arm(mass=1.0, inertia=(0.1, 0.1, 0.1), jtype='revolute', extra=''):
    return ('<robot name="bad"><link name="base"/>'
            + LINK.format(n='l1', m=mass, i=inertia)
            + JOINT.format(n='j1', t=jtype, p='base', c='l1') + extra + '</robot>')


CASES = [
    ('invalid_xml', '<robot name="x"><link name="a"></robot>', UrdfError, 'invalid URDF XML'),
    ('missing_file', '/no/such/robot.urdf', UrdfError, 'not found'),
    ('not_urdf', '<sdf/>', UrdfError, 'expected <robot>'),
    ('floating', arm(jtype='floating'), ModelError, 'floating'),
    ('zero_mass', arm(mass=0.0, inertia=(0, 0, 0)), ModelError, 'no mass'),
    ('negative_mass', arm(mass=-1.0), ModelError, 'negative mass'),
    ('not_pd', arm(inertia=(0.1, -0.1, 0.1)), ModelError, 'not positive definite'),
    ('two_tips', arm(extra=LINK.format(n='l2', m=1, i=(1, 1, 1))
                     + LINK.format(n='l3', m=1, i=(1, 1, 1))
                     + JOINT.format(n='j2', t='revolute', p='l1', c='l2')
                     + JOINT.format(n='j3', t='revolute', p='l1', c='l3')),
     ModelError, 'no unique tip'),
    ('nan_number', arm(mass='nan'), UrdfError, 'NaN'),
    ('unknown_parent', arm(extra=JOINT.format(n='j9', t='fixed', p='ghost', c='l1')),
     UrdfError, 'unknown link'),
]


@pytest.mark.parametrize('name,xml,exc,text', CASES, ids=[c[0] for c in CASES])
def test_api_raises_typed_error(name, xml, exc, text):
    with pytest.raises(exc, match=text):
        load_urdf(xml)


def test_a_violated_triangle_inequality_warns_or_is_refused_when_strict(tmp_path, capsys):
    """Vendors ship such inertias (Franka's FER): a warning by default, an error when asked."""
    xml = arm(inertia=(0.1, 0.1, 0.5))
    assert 'triangle inequality' in load_urdf(xml).warnings[0]
    with pytest.raises(ModelError, match='triangle inequality'):
        load_urdf(xml, strict_inertia=True)
    path = tmp_path / 'robot.urdf'
    path.write_text(xml)
    assert run(build_parser().parse_args(['inspect', str(path)])) == 0
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and 'warning' in err and 'triangle inequality' in err
    assert run(build_parser().parse_args(['inspect', str(path), '--strict-inertia'])) == 2
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and 'triangle inequality' in err and 'Traceback' not in err


def test_unknown_base_and_tip_list_valid_links():
    with pytest.raises(ModelError, match="unknown tip link 'nope'; links: base, l1"):
        load_urdf(arm(), tip_link='nope')
    with pytest.raises(ModelError, match="unknown base link 'nope'"):
        load_urdf(arm(), base_link='nope')


def test_lock_unknown_joint_lists_options():
    with pytest.raises(ModelError, match='cannot lock'):
        load_urdf(arm(), locked_joints={'zzz': 1.0})


@pytest.mark.parametrize('name,xml,exc,text', CASES, ids=[c[0] for c in CASES])
def test_cli_prints_one_line_and_exits_2(name, xml, exc, text, tmp_path, capsys):
    path = tmp_path / 'robot.urdf'
    if xml.startswith('/'):
        target = xml
    else:
        path.write_text(xml)
        target = str(path)
    commands = [['check', target, '--samples', '2']]
    if name != 'zero_mass':  # inspect needs no inertials (see below)
        commands.append(['inspect', target])
    for command in commands:
        code = run(build_parser().parse_args(command))
        err = capsys.readouterr().err
        assert code == 2
        assert text in err and err.count('\n') == 1 and 'Traceback' not in err


def test_cli_unknown_tip_exit_2(capsys):
    code = run(build_parser().parse_args(['check', 'three_link', '--tip', 'nope']))
    assert code == 2 and 'unknown tip link' in capsys.readouterr().err


@pytest.mark.parametrize('method', ['recursive', 'kronecker'])
def test_wrong_shapes_and_nan_states(method):
    path, base, tip = robot_path('panda')
    dyn = RigidBodyDynamics(load_urdf(path, base, tip), method)
    with pytest.raises(InputError, match=r'q: expected \(7,\), got \(6,\)'):
        dyn.mass_matrix(np.zeros(6))
    with pytest.raises(InputError, match=r'qd: non-finite values at indices \[2\]'):
        dyn.coriolis_matrix(np.zeros(7), [0, 0, np.nan, 0, 0, 0, 0])
    with pytest.raises(InputError, match='q: non-finite'):
        dyn.computed_torque(np.full(7, np.inf), *[np.zeros(7)] * 6)
    with pytest.raises(InputError, match=r'qd: expected \(7,\), got \(3,\)'):
        dyn.terms_into(np.zeros(7), [0, 0, 0], np.zeros((15, 7)))
    with pytest.raises(InputError, match=r'out: expected a C-contiguous float64 \(15, 7\)'):
        dyn.terms_into(np.zeros(7), np.zeros(7), np.zeros((7, 7)))
    with pytest.raises(RobodynError, match='unknown dynamics method'):
        RigidBodyDynamics(dyn.model, 'magic')


def test_a_description_without_inertials_still_gets_its_dh_table(tmp_path, capsys):
    path = tmp_path / 'robot.urdf'
    path.write_text(arm(mass=0.0, inertia=(0, 0, 0)))
    assert run(build_parser().parse_args(['inspect', str(path)])) == 0
    out, err = capsys.readouterr()
    assert 'revolute' in out and 'inertials: none after joints' in out
    assert err.count('\n') == 1 and 'the dynamics need inertials' in err


def test_effort_limits_of_zero_are_a_warning_for_the_tools_and_an_error_for_the_controller(
        tmp_path, capsys):
    from robodyn_ros.control import ControllerConfig, ControllerCore
    from robodyn_ros.errors import ConfigError
    path = tmp_path / 'robot.urdf'
    path.write_text(arm().replace('effort="10"', 'effort="0"'))
    for command in (['inspect', str(path)], ['check', str(path), '--samples', '2']):
        assert run(build_parser().parse_args(command)) == 0
        err = capsys.readouterr().err
        assert 'effort limits missing or 0' in err and 'effort_limits parameter' in err
    with pytest.raises(ModelError, match='effort_limits parameter'):
        load_urdf(str(path))
    model = load_urdf(str(path), require_effort_limits=False)
    with pytest.raises(ConfigError, match='effort_limits parameter'):
        ControllerCore(model, ControllerConfig.from_parameters({}))
