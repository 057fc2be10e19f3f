"""Recover a rosbag2 directory whose writer was killed (SIGKILL, power loss): no
metadata.yaml, an mcap file without its summary and footer, or a sqlite3 file with
committed rows only.

What rosbag2's ``reindex`` does, done read-only: the complete records are read (mcap:
sequentially up to the first truncated one; sqlite3: every committed row) and written to
a fresh, complete bag in a temporary directory; the original is left untouched.
"""

import os
from pathlib import Path
import sqlite3
import struct
import tempfile

from ..errors import BagError

__all__ = ['needs_recovery', 'recover_bag']

MCAP_MAGIC = b'\x89MCAP0\r\n'


def needs_recovery(path: str | os.PathLike) -> bool:
    """True for a bag directory with a storage file but no metadata.yaml."""
    path = Path(path)
    return path.is_dir() and not (path / 'metadata.yaml').exists() and \
        (any(path.glob('*.mcap')) or any(path.glob('*.db3')))


class _Buffer:
    """Cursor over bytes; reading past the end raises EOFError."""

    def __init__(self, data, offset=0):
        self.data, self.off = data, offset

    def take(self, size):
        if self.off + size > len(self.data):
            raise EOFError
        out = self.data[self.off:self.off + size]
        self.off += size
        return out

    def uint(self, fmt):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def string(self):
        return self.take(self.uint('<I')).decode()


def _mcap_records(data, offset):
    """Yield (op, body) of complete records from ``offset`` on, chunks opened; of a chunk
    cut off by the end of the file, the complete records it holds (uncompressed chunks,
    as rosbag2 writes them by default)."""
    buf = _Buffer(data, offset)
    while True:
        try:
            op = buf.uint('<B')
            size = buf.uint('<Q')
        except EOFError:
            return  # the writer died mid-record
        start = buf.off
        try:
            body = buf.take(size)
        except EOFError:  # the file ends inside this record
            if op == 0x06:
                yield from _chunk_records(data[start:], partial=True)
            return
        if op == 0x06:
            yield from _chunk_records(body)
        else:
            yield op, body


def _chunk_records(body, partial=False):
    """The records of a Chunk record's ``body`` (cut off when ``partial``)."""
    chunk = _Buffer(body)
    try:
        chunk.take(8 + 8 + 8 + 4)  # start, end, uncompressed size, crc
        compression = chunk.string()
        size = chunk.uint('<Q')
    except EOFError:
        return
    records = body[chunk.off:chunk.off + size]
    if compression == 'zstd' and not partial:
        import zstandard
        records = zstandard.ZstdDecompressor().decompress(records)
    elif compression:
        if partial:
            return  # a compressed stream cut off: nothing complete can be told apart
        raise BagError(f'cannot recover a chunk compressed with {compression!r}')
    yield from _mcap_records(records, 0)


def _read_mcap(path):
    """(schemas {id: (name, text)}, channels {id: (topic, schema id)}, messages)."""
    data = path.read_bytes()
    if not data.startswith(MCAP_MAGIC):
        raise BagError(f'{path} is not an mcap file (bad magic)')
    schemas, channels, messages = {}, {}, []
    for op, body in _mcap_records(data, len(MCAP_MAGIC)):
        rec = _Buffer(body)
        if op == 0x03:
            key = rec.uint('<H')
            name, _encoding = rec.string(), rec.string()
            schemas[key] = (name, rec.take(rec.uint('<I')).decode())
        elif op == 0x04:
            key, schema = rec.uint('<H'), rec.uint('<H')
            channels[key] = (rec.string(), schema)
        elif op == 0x05:
            channel = rec.uint('<H')
            rec.take(4)  # sequence
            log_time = rec.uint('<Q')
            rec.take(8)  # publish time
            messages.append((channel, log_time, body[rec.off:]))
    return schemas, channels, messages


def _read_sqlite(path):
    """The same from a rosbag2 sqlite3 file (committed rows, WAL included)."""
    try:
        db = sqlite3.connect(f'file:{path}?mode=ro', uri=True)
        topics = db.execute('SELECT id, name, type FROM topics').fetchall()
        try:
            defs = dict(db.execute('SELECT topic_type, encoded_message_definition FROM '
                                   'message_definitions').fetchall())
        except sqlite3.DatabaseError:
            defs = {}
        rows = db.execute('SELECT topic_id, timestamp, data FROM messages ORDER BY '
                          'timestamp').fetchall()
        db.close()
    except sqlite3.DatabaseError as exc:
        raise BagError(f'cannot recover {path}: {exc}') from None
    schemas = {tid: (msgtype, defs.get(msgtype, '')) for tid, _, msgtype in topics}
    channels = {tid: (name, tid) for tid, name, _ in topics}
    return schemas, channels, rows


def _store_for(schemas):
    """A typestore knowing every recovered type (Kilted's, else the stored definition)."""
    from rosbags.typesys import Stores, get_typestore

    from .bag_writer import register_msgdef
    store = get_typestore(Stores.ROS2_KILTED)
    for name, text in schemas.values():
        if name not in store.fielddefs and text:
            register_msgdef(store, name, text)
    return store


def recover_bag(path: str | os.PathLike) -> tuple[Path, int]:
    """A complete copy of the killed bag at ``path`` (its storage files read up to the
    last complete record). Returns (directory of the copy, messages recovered).

    Raises:
        BagError: nothing recoverable (no storage file, bad magic, no complete record).
    """
    from .bag_writer import BagWriter
    path = Path(path)
    files = sorted(path.glob('*.mcap')) or sorted(path.glob('*.db3'))
    if not files:
        raise BagError(f'{path} has neither metadata.yaml nor an .mcap/.db3 file')
    out = Path(tempfile.mkdtemp(prefix='robodyn_recovered_')) / path.name
    writer = BagWriter(str(out), 'mcap')
    count = 0
    for file in files:
        schemas, channels, messages = _read_mcap(file) if file.suffix == '.mcap' else \
            _read_sqlite(file)
        store = _store_for(schemas)
        for channel, (topic, schema) in channels.items():
            if schema in schemas:
                writer.add_topic(topic, schemas[schema][0], store)
        for channel, stamp, raw in messages:
            topic = channels.get(channel, (None,))[0]
            if topic in writer.connections:
                writer.write(topic, stamp, bytes(raw))
                count += 1
    writer.close()
    if not count:
        raise BagError(f'{path}: no complete message to recover (the writer was killed '
                       'before its first flush)')
    return out, count
