"""Layers import only downstream, the core never imports rclpy, and numba loads only
where the compiled path is used: each checked in a fresh interpreter or on the sources."""

import subprocess
import sys


def _fresh(lines):
    """Run ``lines`` of Python in a fresh interpreter; its (return code, output)."""
    out = subprocess.run([sys.executable, '-c', '\n'.join(lines)], capture_output=True,
                         text=True)
    return out.returncode, out.stdout + out.stderr


def test_core_does_not_import_rclpy():
    code, output = _fresh([
        'import sys',
        'import robodyn_ros, robodyn_ros.model, robodyn_ros.dynamics, robodyn_ros.control',
        'import robodyn_ros.validation, robodyn_ros.sim, robodyn_ros.cli',
        'import robodyn_ros.dynamics.verification, robodyn_ros.validation.validate',
        'import robodyn_ros.experiments.reproduction, robodyn_ros.demo.config',
        'import robodyn_ros.control.parameters, robodyn_ros.bench.loop_figures',
        'import robodyn_ros.io, robodyn_ros.model.description',
        'bad = [m for m in sys.modules if m.split(".")[0] in '
        '("rclpy", "std_msgs", "sensor_msgs", "trajectory_msgs", "diagnostic_msgs")]',
        'print(bad)', 'sys.exit(1 if bad else 0)'])
    assert code == 0, output


#: What each package may import from the package. Data flows description -> model ->
#: dynamics -> control -> nodes -> bag -> validation -> report; io, errors, defaults and
#: package_share serve everyone; bench, demo and experiments sit on top, beside the CLI;
#: bringup (what the launch files start) on top of the nodes and the demo's gains.
BASE = {'errors', 'defaults', 'package_share'}
ALLOWED = {
    'model': {'model'},
    'dynamics': {'dynamics', 'model'},
    'control': {'control', 'dynamics', 'model'},
    'io': {'io'},
    'sim': {'sim', 'model', 'dynamics', 'control'},  # control: its JTC emulation
    'nodes': {'nodes', 'io', 'control', 'dynamics', 'model', 'sim'},
    'validation': {'validation', 'io', 'control', 'dynamics', 'model'},
    'identification': {'identification', 'io', 'control', 'dynamics', 'model', 'sim'},
    'experiments': {'experiments', 'control', 'dynamics', 'model', 'sim'},
    'bench': {'bench', 'nodes', 'io', 'control', 'dynamics', 'model', 'validation'},
    'demo': {'demo', 'experiments', 'nodes', 'validation', 'sim', 'model', 'dynamics'},
    'client': {'client', 'nodes'},
    'bringup': {'bringup', 'nodes', 'demo', 'io', 'control', 'dynamics', 'model', 'sim'},
}
#: generated_docs: below the CLI's commands (the CLI hands it its runner for the sections
#: that show robodyn's output).
TOP_LEVEL = {'__init__', 'cli', 'commands', 'bag_commands', 'errors', 'defaults',
             'package_share', 'generated_docs'}
#: The top-level modules from the top down: each imports only those after it.
TOP_ORDER = ['cli', 'commands', 'bag_commands', 'generated_docs']


def _internal_imports(path, package):
    """Top-level robodyn_ros packages imported by the module at ``path`` (in ``package``,
    a dotted path below robodyn_ros), relative and absolute imports alike."""
    import ast
    tree = ast.parse(open(path, encoding='utf-8').read())
    parts = package.split('.') if package else []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = parts[:len(parts) - (node.level - 1)]
                target = base + (node.module.split('.') if node.module else [])
                yield target[0] if target else ''
            elif node.module and node.module.startswith('robodyn_ros.'):
                yield node.module.split('.')[1]


def test_layers_import_only_downstream():
    import glob
    import os
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        'robodyn_ros')
    wrong = []
    for path in glob.glob(os.path.join(root, '**', '*.py'), recursive=True):
        rel = os.path.relpath(path, root)[:-3].split(os.sep)
        if len(rel) == 1:
            assert rel[0] in TOP_LEVEL, f'{rel[0]}.py: a module outside the packages'
            continue
        package = rel[0]
        assert package in ALLOWED, f'package {package} has no layering rule'
        inside = '.'.join(rel[:-1])
        for target in set(_internal_imports(path, inside)) - ALLOWED[package] - BASE:
            wrong.append(f'{"/".join(rel)}.py imports {target}')
    assert not wrong, wrong


def test_the_cli_modules_import_only_downward_even_inside_functions():
    """cli -> commands -> generated_docs, never back (no cycle hidden in a function body);
    the packages import none of them."""
    import glob
    import os
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        'robodyn_ros')
    wrong = []
    for path in glob.glob(os.path.join(root, '**', '*.py'), recursive=True):
        rel = os.path.relpath(path, root)[:-3].split(os.sep)
        below = TOP_ORDER[TOP_ORDER.index(rel[0]) + 1:] if rel[0] in TOP_ORDER else []
        above = set(TOP_ORDER) - set(below)
        inside = '.'.join(rel[:-1])
        for target in set(_internal_imports(path, inside)) & above:
            wrong.append(f'{"/".join(rel)}.py imports {target}')
    assert not wrong, wrong


def test_importing_dynamics_does_not_load_numba():
    """numba (0.2-0.4 s to import) loads when the compiled path is first used, not before."""
    code, output = _fresh([
        'import sys', 'import robodyn_ros.dynamics, robodyn_ros.model',
        'assert "numba" not in sys.modules, "numba imported"',
        'from robodyn_ros.dynamics import RigidBodyDynamics',
        'RigidBodyDynamics(robodyn_ros.model.load_robot("three_link"), "kronecker")',
        'assert "numba" not in sys.modules, "numba imported by a seed method"',
        'RigidBodyDynamics(robodyn_ros.model.load_robot("three_link"))',
        'assert "numba" in sys.modules'])
    assert code == 0, output


def test_configuring_and_validating_do_not_load_numba():
    """The parameters, references and bag validation import without numba (about 0.3 s);
    the controller core loads it when first named."""
    code, output = _fresh([
        'import sys', 'import robodyn_ros.control, robodyn_ros.validation.validate',
        'from robodyn_ros.control import ControllerConfig, JointMap, SafetyLimits',
        'ControllerConfig.from_parameters({"kp": [1.0]})',
        'assert "numba" not in sys.modules, "numba imported"',
        'from robodyn_ros.control import ControllerCore',
        'assert "numba" in sys.modules'])
    assert code == 0, output


ROS_PACKAGES = ('rclpy', 'std_msgs', 'sensor_msgs', 'trajectory_msgs', 'diagnostic_msgs',
                'control_msgs', 'builtin_interfaces', 'rcl_interfaces', 'rosgraph_msgs')


def test_only_nodes_import_rclpy_or_messages_even_inside_functions():
    """Not only at import time: no module outside nodes/ imports rclpy or a message
    package anywhere, a function body included (the benchmark's and the demo's nodes live
    in nodes/ too; the fault campaign is robodyn_testing's, outside the product)."""
    import ast
    import glob
    import os
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        'robodyn_ros')
    wrong = []
    for path in glob.glob(os.path.join(root, '**', '*.py'), recursive=True):
        if os.path.relpath(path, root).split(os.sep)[0] == 'nodes':
            continue
        for node in ast.walk(ast.parse(open(path, encoding='utf-8').read())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ''] if isinstance(node, ast.ImportFrom) and not node.level \
                else []
            wrong += [f'{os.path.relpath(path, root)} imports {name}' for name in names
                      if name.split('.')[0] in ROS_PACKAGES]
    assert not wrong, wrong


def test_the_product_never_imports_the_test_tooling():
    """No module of robodyn_ros imports robodyn_testing (an install does not carry it):
    ``robodyn faults`` reaches it by name at run time (commands._testing), and says so in
    one line where it is missing."""
    import ast
    import glob
    import os
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        'robodyn_ros')
    wrong = []
    for path in glob.glob(os.path.join(root, '**', '*.py'), recursive=True):
        for node in ast.walk(ast.parse(open(path, encoding='utf-8').read())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ''] if isinstance(node, ast.ImportFrom) else []
            wrong += [os.path.relpath(path, root) for name in names
                      if name.split('.')[0] == 'robodyn_testing']
    assert not wrong, wrong


def test_nodes_reach_the_safety_supervisor_only_through_its_view():
    """A node reads and tells the supervisor what control/safety/safety_view.py offers
    (ControllerCore.safety), never its attributes: the supervisor decides, the node
    publishes. The fault campaign drives processes and is exempt."""
    import ast
    import glob
    import os
    nodes = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         'robodyn_ros', 'nodes')
    wrong = []
    for path in glob.glob(os.path.join(nodes, '*.py')):
        for node in ast.walk(ast.parse(open(path, encoding='utf-8').read())):
            if isinstance(node, ast.Attribute) and node.attr == 'supervisor':
                wrong.append(f'{os.path.basename(path)}:{node.lineno}')
    assert not wrong, wrong
