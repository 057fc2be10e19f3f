"""Static checks of launch/, config/ and package files (test/launch/ runs them for real)."""

import ast
import glob
import os

import pytest
import yaml

from robodyn_ros.model import load_urdf
from robodyn_ros.model.registry import robot_path

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAUNCH = sorted(glob.glob(os.path.join(ROOT, 'launch', '*.launch.py')))
CONFIGS = sorted(glob.glob(os.path.join(ROOT, 'config', '*.yaml')))


def _console_scripts():
    tree = ast.parse(open(os.path.join(ROOT, 'setup.py'), encoding='utf-8').read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and ' = ' in \
                node.value and ':' in node.value:
            yield node.value.split(' = ')[0]


def test_the_launch_files_exist():
    names = {os.path.basename(p) for p in LAUNCH}
    assert names == {'controller.launch.py', 'sim.launch.py', 'record.launch.py',
                     'ros2_control.launch.py'}


BRINGUP = sorted(glob.glob(os.path.join(ROOT, 'robodyn_ros', 'bringup', '*.py')))


def _check_nodes_and_configs(tree):
    """Every robodyn_ros Node the source makes names an installed executable, and every
    join(.., 'config', NAME) an existing config."""
    scripts = set(_console_scripts())
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        kw = {k.arg: k.value.value for k in call.keywords
              if isinstance(k.value, ast.Constant)}
        if kw.get('package') == 'robodyn_ros':
            assert kw.get('executable') in scripts, kw
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):  # join(.., 'config', x)
        args = [a.value if isinstance(a, ast.Constant) else None for a in call.args]
        if 'config' in args[:-1] and isinstance(args[-1], str):
            assert os.path.isfile(os.path.join(ROOT, 'config', args[-1])), args[-1]


@pytest.mark.parametrize('path', LAUNCH, ids=os.path.basename)
def test_launch_file_compiles_and_names_known_executables(path):
    source = open(path, encoding='utf-8').read()
    tree = ast.parse(source)
    compile(source, path, 'exec')
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert 'generate_launch_description' in functions
    _check_nodes_and_configs(tree)


@pytest.mark.parametrize('path', BRINGUP, ids=os.path.basename)
def test_what_the_launch_files_start_names_known_executables(path):
    _check_nodes_and_configs(ast.parse(open(path, encoding='utf-8').read()))


def _check_sizes(params, n):
    for key in ('kp', 'kd', 'amplitudes', 'periods', 'damping'):
        if key in params and len(params[key]) > 1:
            assert len(params[key]) == n, key


@pytest.mark.parametrize('path', CONFIGS, ids=os.path.basename)
def test_config_yaml_parses_and_joints_match_urdf(path):
    data = yaml.safe_load(open(path, encoding='utf-8'))
    assert isinstance(data, dict) and data
    params = data['robodyn_controller']['ros__parameters']
    if 'robot' not in params:  # for a vendor's description given at launch (robot:=PATH)
        _check_sizes(params, len(params['joints']))
        assert params['include_gravity'] is True  # a simulator compensates nothing
        assert len(data['robodyn_sim']['ros__parameters']['q0']) == len(params['joints'])
        assert 'robot:=' in open(path, encoding='utf-8').read()  # says which description
        return
    urdf, base, tip = robot_path(params['robot'])
    model = load_urdf(urdf, base, params.get('tip_link') or tip)
    assert params.get('joints', list(model.joint_names)) == list(model.joint_names)
    _check_sizes(params, model.n)
    if os.path.basename(path).endswith('_real.yaml'):
        # Real arms compensate gravity and friction themselves, and hold until told.
        assert params['include_gravity'] is False and params['include_friction'] is False
        assert params['reference'] == 'hold' and 'robodyn_sim' not in data
        return
    assert params['include_gravity'] is True  # a simulator compensates nothing
    sim = data['robodyn_sim']['ros__parameters']
    assert len(sim['q0']) == model.n
    lower, upper = model.lower, model.upper
    assert all(lo <= q <= hi for lo, q, hi in zip(lower, sim['q0'], upper))
