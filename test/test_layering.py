"""The core never imports rclpy: import it in a fresh interpreter and look."""

import subprocess
import sys


def test_core_does_not_import_rclpy():
    code = ('import sys\n'
            'import robodyn_ros, robodyn_ros.model, robodyn_ros.dynamics, robodyn_ros.control\n'
            'import robodyn_ros.validation, robodyn_ros.sim, robodyn_ros.cli\n'
            'import robodyn_ros.validation.pinocchio_check\n'
            'bad = [m for m in sys.modules if m.split(".")[0] in '
            '("rclpy", "std_msgs", "sensor_msgs", "trajectory_msgs", "diagnostic_msgs")]\n'
            'print(bad)\n'
            'sys.exit(1 if bad else 0)\n')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
