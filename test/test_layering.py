"""The core never imports rclpy: import it in a fresh interpreter and look."""

import subprocess
import sys


def test_core_does_not_import_rclpy():
    code = ('import sys\n'
            'import robodyn_ros, robodyn_ros.model, robodyn_ros.dynamics, robodyn_ros.control\n'
            'import robodyn_ros.validation, robodyn_ros.sim, robodyn_ros.cli\n'
            'import robodyn_ros.validation.pinocchio_check, robodyn_ros.validation.validate\n'
            'import robodyn_ros.io, robodyn_ros.model.description\n'
            'bad = [m for m in sys.modules if m.split(".")[0] in '
            '("rclpy", "std_msgs", "sensor_msgs", "trajectory_msgs", "diagnostic_msgs")]\n'
            'print(bad)\n'
            'sys.exit(1 if bad else 0)\n')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


#: What each layer may import from the package (data flows URDF -> model -> dynamics ->
#: control -> nodes -> bag -> validation -> report; io and errors serve everyone).
ALLOWED = {
    'model': {'model', 'errors', 'defaults', 'share'},
    'dynamics': {'dynamics', 'model', 'errors', 'defaults'},
    'control': {'control', 'dynamics', 'model', 'errors', 'defaults'},
    'io': {'io', 'errors', 'defaults'},
    'sim': {'sim', 'model', 'dynamics', 'control', 'errors', 'defaults'},  # control: its JTC
    'validation': {'validation', 'io', 'control', 'dynamics', 'model', 'sim', 'errors',
                   'defaults'},
    'identification': {'identification', 'io', 'control', 'dynamics', 'model', 'sim',
                       'errors', 'defaults'},
}


def _internal_imports(path, package):
    import ast
    tree = ast.parse(open(path, encoding='utf-8').read())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                yield package
            elif node.level == 2:
                yield (node.module or '').split('.')[0] or package
            elif node.module and node.module.startswith('robodyn_ros.'):
                yield node.module.split('.')[1]


def test_layers_import_only_downstream():
    import glob
    import os
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        'robodyn_ros')
    wrong = []
    for package, allowed in ALLOWED.items():
        for path in glob.glob(os.path.join(root, package, '*.py')):
            for target in set(_internal_imports(path, package)) - allowed:
                wrong.append(f'{package}/{os.path.basename(path)} imports {target}')
    assert not wrong, wrong


def test_importing_dynamics_does_not_load_numba():
    """numba (0.2-0.4 s to import) loads when the compiled path is first used, not before."""
    code = ('import sys\nimport robodyn_ros.dynamics, robodyn_ros.model\n'
            'assert "numba" not in sys.modules, "numba imported"\n'
            'from robodyn_ros.dynamics import RigidBodyDynamics\n'
            'RigidBodyDynamics(robodyn_ros.model.load_robot("three_link"), "kronecker")\n'
            'assert "numba" not in sys.modules, "numba imported by a seed method"\n'
            'RigidBodyDynamics(robodyn_ros.model.load_robot("three_link"))\n'
            'assert "numba" in sys.modules\n')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
