"""package.xml declares what the package imports and starts, and nothing else."""

import ast
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: Python module -> rosdep key, where they differ (pip keys where no system package exists).
ROSDEP = {
    'numpy': 'python3-numpy', 'scipy': 'python3-scipy', 'yaml': 'python3-yaml',
    'matplotlib': 'python3-matplotlib', 'numba': 'python3-numba',
    'mujoco': 'python3-mujoco-pip', 'rosbags': 'python3-rosbags-pip',
    'pytest': 'python3-pytest', 'hypothesis': 'python3-hypothesis',
    'urdf_parser_py': 'urdfdom_py', 'zstandard': 'python3-zstandard', 'dask': 'python3-dask',
}
#: Needed at run time without an import: rclpy.lifecycle's messages, and what
#: ros2_control.launch.py has ros2_control load by name (hardware:=gz's plugin, the
#: controllers of the generated YAML).
BY_NAME = {'lifecycle_msgs', 'gz_ros2_control', 'joint_state_broadcaster',
           'forward_command_controller', 'joint_trajectory_controller'}


def _imports(paths):
    found = set()
    for path in paths:
        for node in ast.walk(ast.parse(open(path, encoding='utf-8').read())):
            if isinstance(node, ast.Import):
                found.update(a.name.split('.')[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split('.')[0])
    # the package itself and the test tree's own modules (helpers, fixtures shared by files)
    local = {'robodyn_ros', 'robodyn_testing', 'launch_module', 'cases', 'harness'} | {
        os.path.splitext(os.path.basename(p))[0]
        for p in glob.glob(os.path.join(ROOT, 'test', '**', '*.py'), recursive=True)}
    return {ROSDEP.get(m, m) for m in found
            if m not in sys.stdlib_module_names and m not in local}


def _launched_packages():
    found = set()
    for path in glob.glob(os.path.join(ROOT, 'launch', '*.py')) + glob.glob(
            os.path.join(ROOT, 'robodyn_ros', 'bringup', '*.py')):  # what the launch starts
        text = open(path, encoding='utf-8').read()
        found.update(re.findall(r"package='([a-z_0-9]+)'", text))
        found.update(re.findall(r"get_package_share_directory\('([a-z_0-9]+)'\)", text))
    for path in glob.glob(os.path.join(ROOT, 'config', '*.yaml')):
        found.update(re.findall(r'type: ([a-z_0-9]+)/', open(path, encoding='utf-8').read()))
    return found - {'robodyn_ros'}


def required():
    """(exec, test) rosdep keys the code needs."""
    runtime = _imports(glob.glob(os.path.join(ROOT, 'robodyn_ros', '**', '*.py'),
                                 recursive=True) +
                       glob.glob(os.path.join(ROOT, 'launch', '*.py')))
    runtime |= _launched_packages() | BY_NAME
    tests = _imports(glob.glob(os.path.join(ROOT, 'test', '**', '*.py'), recursive=True))
    return runtime, tests - runtime


def declared(text):
    """(exec, test) dependencies declared in package.xml text."""
    exec_deps = set(re.findall(r'<(?:exec_)?depend>([^<]+)</', text))
    test_deps = set(re.findall(r'<test_depend>([^<]+)</', text))
    return exec_deps, test_deps


def problems(text):
    """Lines describing each missing or unused declaration (empty: all is well)."""
    runtime, tests = required()
    exec_deps, test_deps = declared(text)
    out = [f'missing <exec_depend>{d}</exec_depend>' for d in sorted(runtime - exec_deps)]
    out += [f'missing <test_depend>{d}</test_depend>' for d in sorted(tests - test_deps -
                                                                          exec_deps)]
    out += [f'unused <exec_depend>{d}</exec_depend>' for d in sorted(exec_deps - runtime)]
    out += [f'unused <test_depend>{d}</test_depend>' for d in sorted(test_deps - tests)]
    return out


def test_package_xml_matches_the_imports():
    text = open(os.path.join(ROOT, 'package.xml'), encoding='utf-8').read()
    assert problems(text) == []


def test_a_removed_dependency_is_caught():
    text = open(os.path.join(ROOT, 'package.xml'), encoding='utf-8').read()
    removed = text.replace('<exec_depend>python3-numba</exec_depend>', '')
    assert problems(removed) == ['missing <exec_depend>python3-numba</exec_depend>']
