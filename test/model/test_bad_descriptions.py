"""Bad robot descriptions through the CLI: each exits 2 with one line, or finishes with its
progress shown; none hangs (60 s each) or crashes."""

import os
import subprocess
import sys

import pytest

from robodyn_ros.model.random_chain import random_chain

pytestmark = pytest.mark.integration  # the CLI in subprocesses, 20 s

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), 'data', 'descriptions')
LIMIT = '<limit lower="-1" upper="1" effort="10" velocity="1"/>'


def _link(name):
    return (f'<link name="{name}"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" '
            'ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>')


def _joint(name, parent, child, limit=LIMIT):
    return (f'<joint name="{name}" type="revolute"><parent link="{parent}"/><child '
            f'link="{child}"/><axis xyz="0 0 1"/>{limit}</joint>')


def _robot(links, joints):
    return f'<robot name="bad">{"".join(map(_link, links))}{"".join(joints)}</robot>'


BAD = {  # name: (URDF text, extra CLI arguments, expected one-line message)
    'cycle': (_robot('base a b c'.split(), [_joint('j0', 'base', 'a'), _joint('j1', 'b', 'c'),
                                            _joint('j2', 'c', 'b')]),
              ['--tip', 'c'], 'the joints form a cycle through links'),
    'self_loop': (_robot(['base', 'a'], [_joint('j0', 'base', 'a'), _joint('j1', 'a', 'a')]),
                  [], "link 'a' is its own parent (self-loop)"),
    'lower_above_upper': (_robot(['base', 'a'], [_joint('j0', 'base', 'a', LIMIT.replace(
        'lower="-1" upper="1"', 'lower="1" upper="-1"'))]), [], 'lower limit 1 > upper limit -1'),
    'broken_xacro': ('<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="x">'
                     '<xacro:include filename="no_such_file.xacro"/></robot>', [],
                     ': error: xacro'),
}


def _robodyn(*args, timeout=60):
    return subprocess.run([sys.executable, '-m', 'robodyn_ros.cli', *args],
                          capture_output=True, text=True, timeout=timeout)


def _assert_one_line_exit_2(result, message):
    assert result.returncode == 2, result.stderr
    assert 'Traceback' not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr


@pytest.mark.parametrize('case', sorted(BAD))
@pytest.mark.parametrize('command', ['inspect', 'check'])
def test_bad_description_exits_2_with_one_line(case, command, tmp_path):
    text, extra, message = BAD[case]
    path = tmp_path / f'{case}.urdf'
    path.write_text(text)
    _assert_one_line_exit_2(_robodyn(command, str(path), *extra), message)


#: Descriptions the tools load with one warning line (a controller needs what they lack).
LENIENT = {
    'effort_zero': (_robot(['base', 'a'], [_joint('j0', 'base', 'a', LIMIT.replace(
        'effort="10"', 'effort="0"'))]), "effort limits missing or 0 for joints {'j0': '0'}"),
    'effort_missing': (_robot(['base', 'a'], [_joint('j0', 'base', 'a', LIMIT.replace(
        'effort="10" ', ''))]), "effort limits missing or 0 for joints {'j0': 'missing'}"),
}


@pytest.mark.parametrize('command', ['inspect', 'check'])
@pytest.mark.parametrize('case', sorted(LENIENT))
def test_missing_effort_limits_are_one_warning_line_for_the_tools(case, command, tmp_path):
    text, warning = LENIENT[case]
    path = tmp_path / f'{case}.urdf'
    path.write_text(text)
    result = _robodyn(command, str(path), *(['--samples', '2'] if command == 'check' else []))
    assert result.returncode == 0, result.stderr
    assert result.stderr.count('\n') == 1 and warning in result.stderr, result.stderr


def test_effort_limits_given_on_the_command_line_make_it_checkable(tmp_path):
    path = tmp_path / 'effort_missing.urdf'
    path.write_text(LENIENT['effort_missing'][0])
    result = _robodyn('check', str(path), '--samples', '5', '--effort-limits', '5')
    assert result.returncode == 0 and result.stdout.count('PASS') == 3, result.stderr


def test_5000_link_chain_is_refused_before_pinocchio_crashes(tmp_path):
    path = tmp_path / 'chain5000.urdf'
    path.write_text(random_chain(5000, 1, branches=False))
    _assert_one_line_exit_2(_robodyn('check', str(path), '--tip', 'tip', '--method',
                                     'recursive'),
                            'Pinocchio cannot read a URDF with more than 2000 links')


def test_n200_with_all_methods_finishes_and_says_what_it_skipped(tmp_path):
    path = tmp_path / 'chain200.urdf'
    path.write_text(random_chain(200, 1, branches=False))
    result = _robodyn('check', str(path), '--tip', 'tip')
    assert result.returncode == 0, result.stderr
    assert 'kronecker and christoffel skipped: n = 200 > 30' in result.stderr
    assert result.stdout.count('PASS') == 1 and 'recursive' in result.stdout
    refused = _robodyn('check', str(path), '--tip', 'tip', '--method', 'kronecker')
    _assert_one_line_exit_2(refused, 'checked up to n = 30, use --method recursive')


def test_long_checks_show_progress_on_a_terminal_only(capsys, monkeypatch):
    import sys

    from robodyn_ros.commands import _progress
    from robodyn_ros.dynamics.verification import cross_check
    from robodyn_ros.model import load_urdf
    done = []
    cross_check(load_urdf(random_chain(3, 1), tip_link='tip'), 'recursive', samples=3,
                progress=done.append)
    assert done == [1, 2, 3]
    assert _progress('christoffel', 40, every=0.0) is None  # a script, a log: no progress
    monkeypatch.setattr(sys.stderr, 'isatty', lambda: True)
    report = _progress('christoffel', 40, every=0.0)
    report(1)
    assert capsys.readouterr().err == 'robodyn check: christoffel 1/40 samples, 0 s\n'


@pytest.mark.parametrize('style, tip', [('fr_style', 'fr_payload'), ('ur_style', 'tool0')])
def test_check_passes_on_xacro_descriptions(style, tip):
    result = _robodyn('check', os.path.join(DATA, f'{style}.urdf.xacro'), '--tip', tip,
                      '--samples', '20')
    assert result.returncode == 0, result.stderr
    assert result.stdout.count('PASS') == 3 and result.stderr == ''
    with_args = _robodyn('check', os.path.join(DATA, f'{style}.urdf.xacro'), 'payload:=2.0'
                         if style == 'fr_style' else 'tool_mass:=1.0', '--tip', tip,
                         '--samples', '5')
    assert with_args.returncode == 0, with_args.stderr
