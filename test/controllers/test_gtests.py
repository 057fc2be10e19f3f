"""The C++ package's gtests (robodyn_controllers/test/*.cpp), built by the test workspace
(BUILD_TESTING on) and run here, so `.ci/run` runs them."""

import glob
import os
import subprocess

import pytest

pytestmark = pytest.mark.integration

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GTESTS = sorted(os.path.basename(p)[:-4] for p in
                glob.glob(os.path.join(ROOT, 'robodyn_controllers', 'test', 'test_*.cpp')))


def test_every_gtest_is_registered_with_cmake():
    cmake = open(os.path.join(ROOT, 'robodyn_controllers', 'CMakeLists.txt'),
                 encoding='utf-8').read()
    assert GTESTS and all(f'ament_add_gtest({name} ' in cmake for name in GTESTS), GTESTS


@pytest.fixture(scope='module')
def gtest_files(tmp_path_factory):
    """The environment test_computed_torque_controller.cpp reads: a folder with the Panda's
    description (mock hardware), the parameter file `robodyn export` writes for it
    (good.yaml; observer.yaml: the same with the collision observer, reaction report)
    and one file per impossible edit (bad_<edit>.yaml, plugin_model_edits), the
    home pose and g(q) there from robodyn_ros' dynamics, the upper limits less
    reference_margin and the acceleration limits the node path derives."""
    import copy

    import numpy as np
    from plugin_model_edits import plugin_model_edits

    from robodyn_ros.control.controller_config import acceleration_limits
    from robodyn_ros.control.plugin_parameters import plugin_config, plugin_parameters
    from robodyn_ros.dynamics import RigidBodyDynamics
    from robodyn_ros.io.params_yaml import dump_parameters
    from robodyn_ros.model import load_robot
    from robodyn_ros.model.registry import PANDA_HOME
    from robodyn_ros.model.ros2_control_urdf import MOCK_SYSTEM, control_urdf
    folder = tmp_path_factory.mktemp('gtest')
    model = load_robot('panda')
    xml, _ = control_urdf(model.xml, model, MOCK_SYSTEM)
    (folder / 'robot.urdf').write_text(xml, encoding='utf-8')
    base = plugin_parameters(model, plugin_config({}))
    files = {'good': base, 'observer': copy.deepcopy(base)}
    files['observer']['collision'] = {'thresholds': [1.0] * model.n, 'gain': 50.0,
                                      'debounce': 3, 'reaction': 'report'}
    for name, (edit, _) in plugin_model_edits().items():
        files[f'bad_{name}'] = copy.deepcopy(base)
        edit(files[f'bad_{name}'])
    for name, values in files.items():
        with open(folder / f'{name}.yaml', 'w', encoding='utf-8') as handle:
            dump_parameters({'/**': {'ros__parameters': values}}, handle)
    q = np.array(PANDA_HOME)
    dynamics = RigidBodyDynamics(model)
    config = plugin_config({})
    values = {'Q': q, 'GRAVITY': dynamics.gravity_vector(q),
              'UPPER': model.upper - config.reference_margin,
              'ACCELERATION': acceleration_limits(model, config, dynamics.mass_matrix)}
    return {'ROBODYN_GTEST_DIR': str(folder), **{
        f'ROBODYN_GTEST_{key}': ' '.join(repr(float(v)) for v in value)
        for key, value in values.items()}}


@pytest.mark.parametrize('name', GTESTS)
def test_the_gtest_passes(plugin_library, colcon_install, ros_launch_env, gtest_files, name):
    """Each gtest binary, in the environment a launch has (the workspace's install on the
    ament index: test_load_robodyn_controllers finds the plugins there), on a domain of its
    own (a controller_manager's node)."""
    exe = colcon_install / 'build' / 'robodyn_controllers' / name
    if not exe.is_file() and os.environ.get('ROBODYN_TEST_WS'):
        pytest.skip(f'{name}: ROBODYN_TEST_WS was built without ROBODYN_BUILD_TESTING=ON')
    assert exe.is_file(), f'{exe}: not built (BUILD_TESTING off?)'
    env = dict(ros_launch_env, ROS_DOMAIN_ID='87', **gtest_files)
    lib = str(colcon_install / 'install' / 'robodyn_controllers' / 'lib')  # as the launch
    env['LD_LIBRARY_PATH'] = os.pathsep.join([lib] + [  # gives ros2_control_node
        p for p in env.get('LD_LIBRARY_PATH', '').split(os.pathsep) if p])
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0 and '[  PASSED  ]' in out.stdout, \
        out.stdout[-3000:] + out.stderr[-2000:]
    assert 'SKIPPED' not in out.stdout, out.stdout[-3000:]
