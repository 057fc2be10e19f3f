"""`colcon build` installs the package the ROS way (executables, launch, config, urdf)."""

import os

import pytest

pytestmark = pytest.mark.integration  # colcon build

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_colcon_build_installs_executables_and_share(colcon_install):
    tmp_path = colcon_install
    lib = tmp_path / 'install' / 'robodyn_ros' / 'lib' / 'robodyn_ros'
    share = tmp_path / 'install' / 'robodyn_ros' / 'share' / 'robodyn_ros'
    for exe in ('controller', 'sim', 'recorder', 'robodyn'):
        assert (lib / exe).is_file(), exe
    for rel in ('launch/controller.launch.py', 'launch/sim.launch.py',
                'launch/ros2_control.launch.py', 'config/panda.yaml',
                'urdf/three_link.urdf', 'package.xml'):
        assert (share / rel).is_file(), rel
    index = tmp_path / 'install' / 'robodyn_ros' / 'share' / 'ament_index' / \
        'resource_index' / 'packages' / 'robodyn_ros'
    assert index.is_file()
