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


def test_sqlite3_flush_hands_rows_over_without_waiting_for_the_disk(tmp_path):
    """WAL mode with ``synchronous=NORMAL`` still fsyncs at every checkpoint (about every
    4 MB): beside a busy disk that held the recorder's loop for seconds. OFF never syncs;
    a committed row is then in the kernel's hands, which is what a killed recorder keeps."""
    import sqlite3
    import struct
    bag = BagWriter(str(tmp_path / 'bag'), 'sqlite3', flush_period=0.0)
    conn = bag.writer.storage.conn
    assert conn.execute('PRAGMA synchronous').fetchone()[0] == 0  # OFF
    assert conn.execute('PRAGMA journal_mode').fetchone()[0] == 'wal'
    bag.add_topic('/x', 'std_msgs/msg/Float64')
    for k in range(3):
        bag.write('/x', k, b'\x00\x01\x00\x00' + struct.pack('<d', float(k)))
    db = next((tmp_path / 'bag').glob('*.db3'))
    other = sqlite3.connect(db)
    assert other.execute('SELECT COUNT(*) FROM messages').fetchone()[0] == 3
    other.close()
    bag.close()
