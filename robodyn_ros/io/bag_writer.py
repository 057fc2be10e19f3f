"""rosbag2 writing with rosbags (mcap or sqlite3), message definitions stored."""

import os
import re
import sys
import time
from typing import Any

from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, TypesysError, get_types_from_msg, get_typestore

from ..errors import BagError

__all__ = ['BagWriter', 'typestore', 'learn_type', 'register_msgdef']

_STORES: dict[str, object] = {}


def typestore():
    """Typestore with the ROS 2 Kilted message definitions."""
    if 'kilted' not in _STORES:
        _STORES['kilted'] = get_typestore(Stores.ROS2_KILTED)
    return _STORES['kilted']


def _msg_file(msgtype):
    """The installed .msg definition of ``pkg/msg/Name`` (ament prefixes, then sys.prefix)."""
    pkg, _, name = msgtype.split('/')
    prefixes = [p for p in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep) if p]
    for prefix in prefixes + [sys.prefix]:
        path = os.path.join(prefix, 'share', pkg, 'msg', f'{name}.msg')
        if os.path.isfile(path):
            return path
    return None


def register_msgdef(store, msgtype, text):
    """Teach ``store`` ``msgtype`` from a bag's stored definition (ros2msg text: the type,
    then each nested type after a line of '=' and 'MSG: name'); types it knows stay."""
    types = {}
    for block in text.split('=' * 80 + '\n'):
        block = block.strip()
        if block.startswith('MSG: '):
            head, _, body = block.partition('\n')
            types.update(get_types_from_msg(body, head[5:].strip()))
        elif block:
            types.update(get_types_from_msg(block, msgtype))
    store.register({k: v for k, v in types.items() if k not in store.fielddefs})


def learn_type(store, msgtype):
    """Teach ``store`` ``msgtype`` (and the unknown types it uses) from the installed .msg
    files, e.g. control_msgs, which rosbags does not ship. False if a definition is missing.
    """
    for _ in range(20):  # one unknown nested type per round
        try:
            store.generate_msgdef(msgtype, ros_version=2)
            return True
        except TypesysError as exc:
            missing = re.search(r"Type '([^']+)' is unknown", str(exc))
            if missing is None:
                return False
            path = _msg_file(missing.group(1))
            if path is None:
                return False
            with open(path, encoding='utf-8') as handle:
                store.register(get_types_from_msg(handle.read(), missing.group(1)))
    return False


class BagWriter:
    """Append serialized CDR messages to a new rosbag2 directory.

    Args:
        path: bag directory (must not exist).
        storage: 'mcap' (default) or 'sqlite3'.
        flush_period: [s] hand everything written so far to the operating system at
            least this often (mcap: close the chunk and flush the file; sqlite3: WAL mode,
            commit), so that a killed writer loses at most that much; None: only at close
            (fastest). Neither storage waits for the disk (no fsync; sqlite3
            ``synchronous=OFF``, since in WAL mode ``NORMAL`` still syncs at every
            checkpoint, about every 4 MB): an fsync under a busy disk blocked the
            recorder's one loop for seconds (it then received nothing), and what a killed
            process handed over is kept by the kernel. A power loss loses what the kernel
            had not written yet.
    """

    def __init__(self, path: str | os.PathLike, storage: str = 'mcap',
                 flush_period: float | None = None) -> None:
        if storage not in ('mcap', 'sqlite3'):
            raise BagError(f'unknown storage {storage!r}; valid: mcap, sqlite3')
        if os.path.exists(path):
            raise BagError(f'bag directory already exists: {path}')
        plugin = StoragePlugin.MCAP if storage == 'mcap' else StoragePlugin.SQLITE3
        writer: Any = Writer(str(path), version=9, storage_plugin=plugin)
        writer.open()
        self.writer = writer
        self.storage = storage
        self.flush_period = flush_period
        self.last_flush = time.monotonic()
        if flush_period is not None and storage == 'sqlite3':
            writer.storage.conn.execute('PRAGMA synchronous=OFF')  # before WAL: no sync
            writer.storage.conn.execute('PRAGMA journal_mode=WAL')
        self.connections: dict[str, Any] = {}
        self.path = path
        self.count = 0

    def add_topic(self, topic: str, msgtype: str, store: Any = None) -> None:
        """Register a topic with its type ('sensor_msgs/msg/JointState'); ``store`` is a
        rosbags typestore knowing the type (default: ROS 2 Kilted)."""
        if topic not in self.connections:
            store = store or typestore()
            if not learn_type(store, msgtype):
                raise BagError(f'{topic}: no message definition for {msgtype} (not in '
                               'rosbags, no installed .msg file)')
            self.connections[topic] = self.writer.add_connection(topic, msgtype,
                                                                 typestore=store)

    def write(self, topic: str, timestamp_ns: int, data: bytes | memoryview) -> None:
        """Write one serialized message at ``timestamp_ns``."""
        self.writer.write(self.connections[topic], int(timestamp_ns), data)
        self.count += 1
        if self.flush_period is not None and \
                time.monotonic() - self.last_flush >= self.flush_period:
            self.flush()

    def flush(self) -> None:
        """Make every message written so far durable (see ``flush_period``)."""
        storage: Any = self.writer.storage
        if self.storage == 'mcap':
            if storage.chunk.bio.tell():
                storage.close_chunk()
            storage.bio.flush()
        else:
            storage.conn.commit()
        self.last_flush = time.monotonic()

    def write_message(self, topic: str, msgtype: str, timestamp_ns: int, message: Any,
                      store: Any = None) -> None:
        """Serialize a rosbags message object and write it."""
        self.add_topic(topic, msgtype, store)
        self.write(topic, timestamp_ns, (store or typestore()).serialize_cdr(message, msgtype))

    def set_custom_data(self, key: str, value: str) -> None:
        """A ``custom_data`` entry of metadata.yaml (written at :meth:`close`)."""
        if self.writer is not None:
            self.writer.set_custom_data(key, value)

    def close(self) -> None:
        """Finish the bag (metadata.yaml); safe to call twice."""
        if self.writer is not None:
            self.writer.close()
            self.writer = None
