"""rosbag2 writing with rosbags (mcap or sqlite3), message definitions stored."""

import os

from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore

from ..errors import BagError

__all__ = ['BagWriter', 'typestore']

_STORES = {}


def typestore():
    """Typestore with the ROS 2 Kilted message definitions."""
    if 'kilted' not in _STORES:
        _STORES['kilted'] = get_typestore(Stores.ROS2_KILTED)
    return _STORES['kilted']


class BagWriter:
    """Append serialized CDR messages to a new rosbag2 directory.

    Args:
        path: bag directory (must not exist).
        storage: 'mcap' (default) or 'sqlite3'.
    """

    def __init__(self, path, storage='mcap'):
        if storage not in ('mcap', 'sqlite3'):
            raise BagError(f'unknown storage {storage!r}; valid: mcap, sqlite3')
        if os.path.exists(path):
            raise BagError(f'bag directory already exists: {path}')
        plugin = StoragePlugin.MCAP if storage == 'mcap' else StoragePlugin.SQLITE3
        self.writer = Writer(path, version=9, storage_plugin=plugin)
        self.writer.open()
        self.connections = {}
        self.path = path
        self.count = 0

    def add_topic(self, topic, msgtype, store=None):
        """Register a topic with its type ('sensor_msgs/msg/JointState'); ``store`` is a
        rosbags typestore knowing the type (default: ROS 2 Kilted)."""
        if topic not in self.connections:
            self.connections[topic] = self.writer.add_connection(
                topic, msgtype, typestore=store or typestore())

    def write(self, topic, timestamp_ns, data):
        """Write one serialized message at ``timestamp_ns``."""
        self.writer.write(self.connections[topic], int(timestamp_ns), data)
        self.count += 1

    def write_message(self, topic, msgtype, timestamp_ns, message, store=None):
        """Serialize a rosbags message object and write it."""
        self.add_topic(topic, msgtype, store)
        self.write(topic, timestamp_ns, (store or typestore()).serialize_cdr(message, msgtype))

    def close(self):
        """Finish the bag (metadata.yaml); safe to call twice."""
        if self.writer is not None:
            self.writer.close()
            self.writer = None
