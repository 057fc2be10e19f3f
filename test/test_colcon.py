"""`colcon build` installs the package the ROS way (executables, launch, config, urdf)."""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_colcon_build_installs_executables_and_share(tmp_path):
    colcon = os.path.join(os.path.dirname(sys.executable), 'colcon')
    if not os.path.exists(colcon):
        pytest.fail('colcon is not installed in the venv (requirements.txt lists it)')
    src = tmp_path / 'src' / 'robodyn_ros'
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        '.venv', '.git', 'build', 'install', 'log', 'out', '__pycache__', '*.egg-info'))
    out = subprocess.run([colcon, 'build', '--base-paths', 'src'], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    lib = tmp_path / 'install' / 'robodyn_ros' / 'lib' / 'robodyn_ros'
    share = tmp_path / 'install' / 'robodyn_ros' / 'share' / 'robodyn_ros'
    for exe in ('controller', 'sim', 'recorder', 'robodyn'):
        assert (lib / exe).is_file(), exe
    for rel in ('launch/controller.launch.py', 'launch/sim.launch.py',
                'launch/gazebo.launch.py', 'config/panda.yaml', 'config/ros2_controllers.yaml',
                'urdf/three_link.urdf', 'package.xml'):
        assert (share / rel).is_file(), rel
    index = tmp_path / 'install' / 'robodyn_ros' / 'share' / 'ament_index' / \
        'resource_index' / 'packages' / 'robodyn_ros'
    assert index.is_file()
