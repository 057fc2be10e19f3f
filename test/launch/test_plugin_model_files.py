"""The C++ controller refuses a parameter file that is not a physically possible model of
the robot in controller_manager's robot_description: the file `robodyn export` writes for
the Panda, edited in one field at a time, loaded into a real controller_manager (mock
hardware) and configured by the spawner. Each edit must fail to configure with one line
naming the field and the joint; the unedited file configures."""

import os
import subprocess
import sys
import threading
import time

from plugin_model_edits import plugin_model_edits as _edits
import pytest
from test_ros2_control_launch import _require

pytestmark = pytest.mark.integration

DOMAIN = 94


def _config(folder):
    """(controllers YAML, description URDF) with one controller per edit plus 'good'."""
    from robodyn_ros.control.plugin_parameters import PLUGIN, plugin_config, plugin_parameters
    from robodyn_ros.io.params_yaml import dump_parameters
    from robodyn_ros.model import load_robot
    from robodyn_ros.model.ros2_control_urdf import MOCK_SYSTEM, control_urdf
    model = load_robot('panda')
    xml, _ = control_urdf(model.xml, model, MOCK_SYSTEM)
    manager = {'update_rate': 100, 'good': {'type': PLUGIN}}
    data = {}
    base = plugin_parameters(model, plugin_config({}))
    data['good'] = {'ros__parameters': dict(base)}
    for name, (edit, _) in _edits().items():
        import copy
        values = copy.deepcopy(base)
        edit(values)
        manager[name] = {'type': PLUGIN}
        data[name] = {'ros__parameters': values}
    path = os.path.join(folder, 'controllers.yaml')
    with open(path, 'w', encoding='utf-8') as handle:
        dump_parameters(dict({'controller_manager': {'ros__parameters': manager}}, **data),
                        handle)
    return path, xml


def _library_path(env):
    """ros2_control_node's LD_LIBRARY_PATH, as the ros2_control launch gives it."""
    from robodyn_ros.bringup.hardware import library_path
    old = os.environ.get('AMENT_PREFIX_PATH')
    os.environ['AMENT_PREFIX_PATH'] = env['AMENT_PREFIX_PATH']
    try:
        return library_path()
    finally:
        if old is None:
            del os.environ['AMENT_PREFIX_PATH']
        else:
            os.environ['AMENT_PREFIX_PATH'] = old


@pytest.fixture(scope='module')
def refusals(ros_launch_env, tmp_path_factory):
    _require('controller_manager')
    prefix = [p for p in ros_launch_env['AMENT_PREFIX_PATH'].split(os.pathsep)
              if os.path.isdir(os.path.join(p, 'share', 'robodyn_controllers'))]
    if not prefix:
        pytest.skip('robodyn_controllers (C++) was not built: scripts/setup.sh could not '
                    'install its build tools')
    folder = str(tmp_path_factory.mktemp('model_files'))
    controllers, xml = _config(folder)
    env = dict(ros_launch_env, ROS_DOMAIN_ID=str(DOMAIN),
               LD_LIBRARY_PATH=_library_path(ros_launch_env))
    bindir = os.path.dirname(sys.executable)
    manager = subprocess.Popen(
        [os.path.join(sys.prefix, 'lib', 'controller_manager', 'ros2_control_node'),
         '--ros-args', '--params-file', controllers], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(manager.stdout), daemon=True)
    reader.start()
    describe = subprocess.Popen(
        [os.path.join(str(prefix[0]).replace('robodyn_controllers', 'robodyn_ros'), 'lib',
                      'robodyn_ros', 'describe'), '--ros-args', '-p',
         f'robot_description:={xml}'], env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    codes = {}
    try:
        for name in ['good'] + list(_edits()):
            out = subprocess.run([os.path.join(bindir, 'ros2'), 'run', 'controller_manager',
                                  'spawner', name, '--inactive', '--controller-manager-timeout',
                                  '30'], env=env, capture_output=True, text=True, timeout=90)
            codes[name] = out.returncode
        time.sleep(0.5)
    finally:
        for proc in (describe, manager):
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        reader.join(timeout=5)
    return codes, ''.join(lines)


def test_the_exported_model_configures(refusals):
    codes, text = refusals
    assert codes['good'] == 0, text[-3000:]


@pytest.mark.parametrize('name', sorted(['effort_inf', 'position_inf', 'gravity_huge',
                                         'mass_huge', 'velocity_above_urdf', 'ur5_rows',
                                         'nan_inertia', 'inertia_huge']))
def test_an_edited_model_is_refused_naming_the_field(refusals, name):
    codes, text = refusals
    expected = _edits()[name][1]
    assert codes[name] != 0, f'{name} configured'
    said = [line for line in text.splitlines() if 'robodyn controller:' in line and
            expected in line]
    assert said, f'no line naming {expected!r}:\n' + '\n'.join(
        line for line in text.splitlines() if 'robodyn' in line)[-3000:]
