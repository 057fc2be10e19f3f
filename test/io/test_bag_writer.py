"""BagWriter learns message types rosbags does not ship from the installed .msg files."""

import os
import sys

import pytest

from robodyn_ros.errors import BagError
from robodyn_ros.io import BagReader, BagWriter


def test_installed_control_msgs_type_is_recorded(tmp_path, monkeypatch):
    msg = os.path.join(sys.prefix, 'share', 'control_msgs', 'msg',
                       'JointTrajectoryControllerState.msg')
    if not os.path.isfile(msg):
        pytest.skip('control_msgs comes from ../shared/wheels (see scripts/setup.sh)')
    bag = BagWriter(str(tmp_path / 'bag'))
    bag.add_topic('/state', 'control_msgs/msg/JointTrajectoryControllerState')
    bag.close()
    with BagReader(str(tmp_path / 'bag')) as reader:
        assert reader.topics == {'/state': 'control_msgs/msg/JointTrajectoryControllerState'}


def test_unknown_type_is_a_bag_error(tmp_path, monkeypatch):
    monkeypatch.setenv('AMENT_PREFIX_PATH', str(tmp_path))
    bag = BagWriter(str(tmp_path / 'bag'))
    with pytest.raises(BagError, match='no message definition for nope_msgs/msg/Nope'):
        bag.add_topic('/x', 'nope_msgs/msg/Nope')
    bag.close()
