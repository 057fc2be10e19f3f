"""CLI: inspect and check on the bundled robots; a failing check exits 1."""

import json
from pathlib import Path

import pytest
import yaml

from robodyn_ros.cli import build_parser, run


def _run(argv, capsys):
    code = run(build_parser().parse_args(argv))
    return code, capsys.readouterr().out


def test_inspect_json_round_trip(capsys):
    code, out = _run(['inspect', 'three_link', '--json'], capsys)
    data = json.loads(out)
    assert code == 0 and data['convention'] == 'standard'
    assert [round(r['a'], 12) for r in data['rows']] == [0.0, 0.19, 0.17]
    assert abs(data['rows'][0]['d'] - 0.294) < 1e-12


def test_inspect_text_modified(capsys):
    code, out = _run(['inspect', 'ur5', '--convention', 'modified'], capsys)
    assert code == 0 and 'modified DH' in out and 'shoulder_pan_joint' in out


def test_check_passes_json(capsys):
    code, out = _run(['check', 'ur5', '--samples', '5', '--json'], capsys)
    data = json.loads(out)
    assert code == 0 and data['passed'] and len(data['reports']) == 3


def test_check_fails_with_impossible_tolerance(capsys):
    code, out = _run(['check', 'panda', '--samples', '3', '--tolerance', '1e-30'], capsys)
    assert code == 1 and 'FAIL' in out


@pytest.mark.integration  # the start-up measurement runs a subprocess
def test_bench_reports_every_method_and_operation(capsys):
    code, out = _run(['bench', 'three_link', '--repeats', '40', '--memory-calls', '2000',
                      '--json'], capsys)
    data = json.loads(out)
    assert code == 0
    assert set(data['timings']) == {'recursive', 'kronecker', 'christoffel', 'pinocchio'}
    for ops in data['timings'].values():
        assert set(ops) == {'M', 'C', 'g', 'MCg', 'ID', 'CT'}
        assert all(v['median_us'] > 0 for v in ops.values())
    assert data['startup_s']['warm_cache'] > 0
    assert data['heap']['calls'] == 2000


@pytest.mark.integration  # ROS 2 nodes in process and a bag
def test_demo_writes_bag_report_and_plots(tmp_path, capsys):
    out = tmp_path / 'demo'
    # 1 s: in its first 0.5 s the reference (on the sim's stamps, from 0) is still within
    # 1 % of the 1e-3 rad RMS bound.
    code, text = _run(['demo', '--robot', 'three_link', '--duration', '1.0', '--out',
                       str(out)], capsys)
    assert code == 0 and 'PASS' in text
    report = json.loads((out / 'report.json').read_text())
    assert report['overall']['max_abs'] <= 5e-3 and report['overall']['rms'] <= 1e-3
    assert report['diagnostics']['faults'] == 0  # no safe-mode entry over the run
    assert (out / 'tracking.png').is_file() and (out / 'bag' / 'metadata.yaml').is_file()


def test_demo_bad_robot_exit_2(capsys):
    code = run(build_parser().parse_args(['demo', '--robot', 'no_such_robot']))
    assert code == 2 and 'unknown robot' in capsys.readouterr().err


def _self_including_xacro(path):
    path.write_text('<?xml version="1.0"?>\n<robot xmlns:xacro="http://www.ros.org/wiki/xacro" '
                    f'name="r"><xacro:include filename="{path.name}"/></robot>\n')
    return str(path)


def test_environment_faults_are_one_line_and_exit_2(tmp_path, capsys):
    import os
    loop = tmp_path / 'a.urdf'
    os.symlink(tmp_path / 'b.urdf', loop)
    os.symlink(loop, tmp_path / 'b.urdf')
    fifo = tmp_path / 'f.urdf'
    os.mkfifo(fifo)
    (tmp_path / 'd.urdf').mkdir()
    cases = [
        (['inspect', _self_including_xacro(tmp_path / 'self.urdf.xacro')], 'recursion'),
        (['inspect', str(loop)], 'symbolic link'),
        (['inspect', str(fifo)], 'not a regular file'),
        (['inspect', str(tmp_path / 'd.urdf')], 'is a directory'),
        (['reproduce', '--duration', '0.2', '--out', '/proc/robodyn/out'], '/proc/robodyn'),
    ]
    for argv, words in cases:
        code = run(build_parser().parse_args(argv))
        err = capsys.readouterr().err.strip()
        assert code == 2 and len(err.splitlines()) == 1 and words in err, (argv, err)


@pytest.mark.parametrize('argv', [['check', 'panda', '--seed', '-1'],
                                  ['bench', '--loop', '--loop-seconds', 'nan'],
                                  ['check', 'panda', '--samples', '0']])
def test_bad_numbers_are_argparse_errors(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args(argv)
    assert exc.value.code == 2 and 'expected' in capsys.readouterr().err


def test_validate_refuses_a_damaged_bag_saying_how_much_was_lost(tmp_path, capsys):
    from robodyn_ros.io.synthetic_bags import write_tracking_bag
    bag = tmp_path / 'bag'
    write_tracking_bag(bag, duration=2.0)
    mcap = next(bag.glob('*.mcap'))
    data = bytearray(mcap.read_bytes())
    middle = int(len(data) * 0.45)
    data[middle:middle + 4096] = bytes(4096)  # as a disk error would leave it
    mcap.write_bytes(bytes(data))
    code = run(build_parser().parse_args(['validate', str(bag), '--no-plots', '--out',
                                          str(tmp_path / 'report')]))
    err = capsys.readouterr().err
    assert code == 2 and 'damaged' in err and 'unreadable' in err, err


def test_identify_names_the_joints_no_state_carries(tmp_path, capsys):
    from robodyn_ros.io.synthetic_bags import write_tracking_bag
    bag = tmp_path / 'bag'
    write_tracking_bag(bag, duration=1.0, joints=list('abcdefg'))
    code = run(build_parser().parse_args(['identify', str(bag), '--robot', 'panda',
                                          '--out', str(tmp_path / 'out')]))
    err = capsys.readouterr().err
    assert code == 2 and 'panda_joint1' in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.integration  # ROS 2 nodes in process and a bag
def test_demo_on_a_vendor_style_xacro_with_its_arguments_passes(tmp_path, capsys):
    """Rounded axes, REP-103 base, a violated triangle inequality and KUKA-style damping on
    a light wrist: the demo says what it left out and tracks within the bounds."""
    arm = Path(__file__).resolve().parent / 'data' / 'descriptions' / 'vendor_arm.urdf.xacro'
    code, text = _run(['demo', '--robot', str(arm), 'rounded:=true', 'wrist_damping:=10.0',
                       'bad_inertia:=true', '--base', 'base', '--tip', 'tool0',
                       '--duration', '1.0', '--out', str(tmp_path / 'demo')], capsys)
    assert code == 0 and 'PASS' in text
    assert "damping of ['wrist_3_joint'] left out" in text


ROOT = Path(__file__).resolve().parents[1]


def test_export_writes_the_plugin_parameters_rcl_loads(tmp_path, capsys):
    import yaml
    out = tmp_path / 'robodyn_controller.yaml'
    code, text = _run(['export', 'panda', '--config', str(ROOT / 'config' / 'panda.yaml'),
                       '-o', str(out)], capsys)
    assert code == 0 and '7 joints' in text
    values = yaml.safe_load(out.read_text())['robodyn_controller']['ros__parameters']
    assert values['joints'] == [f'panda_joint{i}' for i in range(1, 8)]
    assert values['kp'] == [400.0] * 7 and values['include_friction'] is True
    row = values['model']['panda_joint1']
    assert len(row['dh']) == 5 and len(row['inertia']) == 6 and row['effort_limit'] == 87.0
    # rounding noise of the DH extraction is written as the zero it is
    assert 'e-17' not in out.read_text() and values['model']['panda_joint2']['dh'][2] == 0.0


@pytest.mark.parametrize('argv', [['export', 'nope'],
                                  ['export', 'panda', '--config', 'README.md'],
                                  ['export', 'panda', '-o', '/nonexistent/dir/x.yaml']])
def test_export_bad_input_is_one_line_and_exit_2(argv, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code = run(build_parser().parse_args(argv))
    err = capsys.readouterr().err
    assert code == 2 and err.count('\n') == 1 and err.startswith('robodyn export: error:')


def test_export_writes_the_collision_settings_for_the_cpp_controller(tmp_path, capsys):
    config = tmp_path / 'config.yaml'
    config.write_text('robodyn_controller:\n  ros__parameters:\n    kp: [400.0]\n'
                      '    kd: [40.0]\n    collision:\n      thresholds: [2.0]\n'
                      '      reaction: compliant\n')
    out = tmp_path / 'plugin.yaml'
    code = run(build_parser().parse_args(['export', 'panda', '--config', str(config),
                                          '-o', str(out)]))
    assert code == 0, capsys.readouterr().err
    (values,) = yaml.safe_load(out.read_text()).values()
    collision = values['ros__parameters']['collision']
    assert collision == {'thresholds': [2.0] * 7, 'gain': 50.0, 'debounce': 3,
                         'reaction': 'compliant'}


@pytest.mark.parametrize('argv, words', [
    (['faults', '--case', 'nope'], "no such case 'nope'"),
    (['faults', '--case', 'gravity_-981', '--json', '/nonexistent/dir/r.json'],
     'No such file or directory'),
    (['docs', '--only', 'nope'], "no generated section 'nope'"),
    (['docs', '--root', '/tmp'], 'not a robodyn_ros source tree'),
    (['vendors', '--mirror', 'xarm_ros2'], 'expected NAME=GIT_DIR'),
    (['vendors', '--mirror', 'nope=/tmp'], "no vendor repository 'nope'")])
def test_maintainer_commands_refuse_bad_input_in_one_line_before_running(argv, words, capsys):
    """Refused before any case, section or robot runs: one line naming the value, exit 2."""
    code = run(build_parser().parse_args(argv))
    out, err = capsys.readouterr()
    assert code == 2 and err.count('\n') == 1 and words in err, err
    assert out == ''  # nothing ran


def test_the_help_speaks_to_users_not_in_rst_markup(capsys):
    from robodyn_ros.cli import build_parser
    text = build_parser().format_help()
    assert '``' not in text
    assert 'robot dynamics from a URDF' in text


def test_identified_values_print_as_a_person_reads_them():
    from robodyn_ros.commands import _rounded
    assert _rounded({'mass': 1.2345678901234, 'com': [0.1, 0.0333333333333]}) == \
        'mass 1.235, com [0.1, 0.03333]'
    assert _rounded([0.13612345678, 3]) == '[0.1361, 3]'


def test_the_fault_campaign_takes_a_law_from_the_registry():
    from robodyn_ros.control.laws import MODES
    from robodyn_ros.errors import InputError
    from robodyn_testing.faults.campaign import run_campaign
    assert build_parser().parse_args(['faults', '--mode', 'passivity']).mode == 'passivity'
    with pytest.raises(SystemExit):
        build_parser().parse_args(['faults', '--mode', 'nope'])
    with pytest.raises(InputError, match=f"no such mode 'nope'; valid: {', '.join(MODES)}"):
        run_campaign(mode='nope')


def test_without_the_checkouts_test_tooling_faults_is_one_line_and_exit_2(monkeypatch, capsys):
    """An install of robodyn_ros carries no robodyn_testing (setup.py): ``robodyn faults``
    then says where the campaign lives instead of a traceback."""
    import sys
    for name in [m for m in sys.modules if m.startswith('robodyn_testing')]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, 'robodyn_testing', None)  # not importable
    code = run(build_parser().parse_args(['faults', '--case', 'gravity_-981']))
    out, err = capsys.readouterr()
    assert code == 2 and err.count('\n') == 1 and 'robodyn_testing' in err, err
    assert out == ''


def test_the_package_installs_no_test_tooling():
    """setup.py's packages (its find_packages call, read from the file): robodyn_ros and
    its subpackages, nothing of robodyn_testing."""
    import ast
    import fnmatch
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tree = ast.parse(open(os.path.join(root, 'setup.py'), encoding='utf-8').read())
    call = next(node for node in ast.walk(tree) if isinstance(node, ast.Call)
                and getattr(node.func, 'id', '') == 'find_packages')
    exclude = ast.literal_eval(call.keywords[0].value)
    found = [os.path.relpath(folder, root).replace(os.sep, '.')  # as find_packages looks
             for folder, _, files in os.walk(root) if '__init__.py' in files
             and folder != root and not os.path.relpath(folder, root).startswith('.')]
    packages = [p for p in found if not any(fnmatch.fnmatch(p, e) for e in exclude)]
    assert 'robodyn_ros.nodes' in packages
    assert all(p.split('.')[0] == 'robodyn_ros' for p in packages), packages
