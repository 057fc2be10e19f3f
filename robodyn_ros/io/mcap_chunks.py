"""Chunk-at-a-time reading of an indexed MCAP file: the messages of some channels as arrays
over each chunk's records, without a Python step per message.

A 1 h bag at 1 kHz with two JointState topics is 7.2 M messages; a reader that yields
them one by one spends most of a validation in its own loop. An MCAP file (format:
https://mcap.dev/spec) stores after each Chunk record one MessageIndex record per
channel, the (log time [ns], offset) of each of its messages in the chunk's records: read
as one numpy array, a chunk's messages are located with a few array operations.

Order: rosbags (the per-message reader this replaces for validation) sorts a chunk's
messages by log time, ties in file order, and merges the chunks by log time, ties by the
chunk's place in the file. :func:`read_chunks` yields the same order: it merges each new
chunk with the messages kept back from the ones before, and yields those earlier than any
later chunk's first message (a recorder writes nearly in time order, so little is kept).
"""

from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
import struct
from typing import BinaryIO, NamedTuple, cast

import numpy as np

__all__ = ['ChunkMessages', 'UnsupportedLayout', 'byte_rows', 'plan_chunks', 'read_chunks']

MAGIC = b'\x89MCAP0\r\n'
_MESSAGE, _CHUNK, _INDEX, _DATA_END, _FOOTER = 0x05, 0x06, 0x07, 0x0F, 0x02
#: Bytes of a Message record before its data: opcode, length, channel id, sequence, log
#: time, publish time.
_MESSAGE_HEAD = 1 + 8 + 2 + 4 + 8 + 8
#: Messages gathered before a batch is yielded (a chunk of 1 MiB holds about 3 000 1 kHz
#: JointStates; a batch of 20 000 is about 7 MB and keeps the per-batch work small).
BATCH = 20_000


class UnsupportedLayout(Exception):
    """The file is not an indexed, time-ordered MCAP this reader handles (the reason)."""


class ChunkMessages(NamedTuple):
    """A batch of chunks' wanted messages in bag order: ``data`` their records (uint8),
    and per message its channel id, log time [ns], and where its serialized bytes are in
    ``data`` (start, length)."""

    data: np.ndarray
    channel: np.ndarray
    log_time: np.ndarray
    start: np.ndarray
    length: np.ndarray


@dataclass
class _Chunk:
    offset: int  # of the Chunk record in the file
    length: int  # of its content
    first_ns: int
    last_ns: int
    indexes: list[tuple[int, int]] = field(default_factory=list)  # (offset, length)


def _records(bio: BinaryIO) -> Iterator[tuple[int, int, int]]:
    """(opcode, content offset, content length) of the data section's top-level records,
    up to DataEnd; UnsupportedLayout on a file cut short."""
    if bio.read(8) != MAGIC:
        raise UnsupportedLayout('not an MCAP file')
    pos = 8
    while True:
        head = bio.read(9)
        if len(head) < 9:
            raise UnsupportedLayout('the file ends before its DataEnd record')
        op, length = head[0], struct.unpack_from('<Q', head, 1)[0]
        if op in (_DATA_END, _FOOTER):
            return
        yield op, pos + 9, length
        pos += 9 + length
        bio.seek(pos)


def plan_chunks(bio: BinaryIO) -> list[_Chunk]:
    """The chunks of the file with their MessageIndex records, checked for the layout
    :func:`read_chunks` needs (module docstring)."""
    chunks: list[_Chunk] = []
    for op, offset, length in _records(bio):
        if op == _CHUNK:
            first, last = struct.unpack('<QQ', bio.read(16))
            chunks.append(_Chunk(offset, length, first, last))
        elif op == _INDEX:
            if not chunks:
                raise UnsupportedLayout('a MessageIndex before any chunk')
            chunks[-1].indexes.append((offset, length))
        elif op == _MESSAGE:
            raise UnsupportedLayout('messages outside chunks')
    missing = sum(1 for chunk in chunks if not chunk.indexes)
    if missing:
        raise UnsupportedLayout(f'{missing} chunks have no message index')
    return chunks


def _decompress(compression: str, payload: memoryview, size: int,
                crc: int) -> bytes | memoryview:
    """The chunk's records: as they are, or through rosbags' decompression ('zstd', 'lz4'),
    which checks the size and, when the chunk has one, the checksum (ValueError)."""
    if compression == '' and len(payload) == size and not crc:
        return payload
    from rosbags.rosbag2.errors import ReaderError
    from rosbags.rosbag2.storage_mcap import decompress
    try:  # any buffer does (its decompressors and crc32 take one): no copy of the chunk
        return decompress(cast(bytes, payload), compression, size, crc)
    except ReaderError as exc:
        raise ValueError(str(exc)) from None


def _chunk_data(bio: BinaryIO, chunk: _Chunk) -> np.ndarray:
    bio.seek(chunk.offset)
    content = bio.read(chunk.length)
    if len(content) != chunk.length:
        raise ValueError('the file ends inside a chunk')
    size, crc, clen = struct.unpack_from('<QII', content, 16)
    compression = content[32:32 + clen].decode()
    (rlen,) = struct.unpack_from('<Q', content, 32 + clen)
    begin = 40 + clen
    payload = memoryview(content)[begin:begin + rlen]  # no copy of an uncompressed chunk
    return np.frombuffer(_decompress(compression, payload, size, crc), np.uint8)


def _index(bio: BinaryIO, chunk: _Chunk, wanted: Collection[int]) -> tuple[np.ndarray, ...]:
    """(channel, log time, record offset) of the chunk's messages on ``wanted`` channels."""
    channels, times, offsets = [], [], []
    for offset, length in chunk.indexes:
        bio.seek(offset)
        content = bio.read(length)
        channel, size = struct.unpack_from('<HI', content, 0)
        if channel not in wanted:
            continue
        pairs = np.frombuffer(content, '<u8', count=size // 8, offset=6).reshape(-1, 2)
        channels.append(np.full(len(pairs), channel, np.uint16))
        times.append(pairs[:, 0].astype(np.int64))
        offsets.append(pairs[:, 1].astype(np.int64))
    if not channels:
        empty = np.zeros(0, np.int64)
        return np.zeros(0, np.uint16), empty, empty
    return np.concatenate(channels), np.concatenate(times), np.concatenate(offsets)


def byte_rows(data: np.ndarray, start: np.ndarray, size: int) -> np.ndarray:
    """(m, size) uint8 copy of ``data[start[i]:start[i] + size]`` for each i: rows of a
    read-only sliding window, one copy per row and no (m, size) index array."""
    if not len(start):
        return np.zeros((0, size), np.uint8)
    window = np.lib.stride_tricks.as_strided(data, (len(data) - size + 1, size),
                                             (data.strides[0],) * 2, writeable=False)
    return window[start]


def _gather_u64(data: np.ndarray, at: np.ndarray) -> np.ndarray:
    return byte_rows(data, at, 8).view('<u8')[:, 0].astype(np.int64)


def _messages(bio: BinaryIO, chunk: _Chunk, wanted: frozenset[int]) -> ChunkMessages | None:
    """The chunk's wanted messages in file order, checked against its records."""
    channel, log_time, offset = _index(bio, chunk, wanted)
    if not len(channel):
        return None
    data = _chunk_data(bio, chunk)
    order = np.argsort(offset, kind='stable')
    channel, log_time, offset = channel[order], log_time[order], offset[order]
    # an entry that does not lead to a whole message of its channel (a damaged chunk) is
    # left out: the caller's count against the bag's metadata says how much was lost
    inside = (offset >= 0) & (offset + _MESSAGE_HEAD <= len(data))
    channel, log_time, offset = channel[inside], log_time[inside], offset[inside]
    length = _gather_u64(data, offset + 1) - (_MESSAGE_HEAD - 9)
    start = offset + _MESSAGE_HEAD
    ids = byte_rows(data, offset + 9, 2).view('<u2')[:, 0]
    whole = (data[offset] == _MESSAGE) & (ids == channel) & (length >= 0) & \
        (start + length <= len(data))
    if not whole.all():
        channel, log_time, start, length = (channel[whole], log_time[whole], start[whole],
                                            length[whole])
    return ChunkMessages(data, channel, log_time, start, length)


def _join(parts: list[ChunkMessages]) -> ChunkMessages:
    if len(parts) == 1:
        return parts[0]
    shifts = np.cumsum([0] + [len(p.data) for p in parts[:-1]])
    return ChunkMessages(np.concatenate([p.data for p in parts]),
                         np.concatenate([p.channel for p in parts]),
                         np.concatenate([p.log_time for p in parts]),
                         np.concatenate([p.start + shift for p, shift in zip(parts, shifts)]),
                         np.concatenate([p.length for p in parts]))


def _take(msgs: ChunkMessages, rows: np.ndarray) -> ChunkMessages:
    """Some messages, with only their bytes (what is kept back stays small)."""
    pieces = [msgs.data[s:s + n] for s, n in zip(msgs.start[rows].tolist(),
                                                 msgs.length[rows].tolist())]
    length = msgs.length[rows]
    start = (np.cumsum(length) - length).astype(np.int64)
    data = np.concatenate(pieces) if pieces else np.zeros(0, np.uint8)
    return ChunkMessages(data, msgs.channel[rows], msgs.log_time[rows], start, length)


def read_chunks(bio: BinaryIO, chunks: list[_Chunk],
                wanted: Collection[int]) -> Iterator[ChunkMessages]:
    """The wanted channels' messages a chunk at a time, in bag order (module docstring).

    Raises:
        ValueError: a chunk that does not decompress, fails its checksum, or whose index
            points outside its records or at something other than a message.
    """
    wanted = frozenset(wanted)
    # the earliest first message of any later chunk: what is earlier can go
    later = np.minimum.accumulate([c.first_ns for c in chunks][::-1])[::-1].tolist()
    later = later[1:] + [None]
    parts: list[ChunkMessages] = []  # kept back, then the chunks read since
    ranks: list[np.ndarray] = []  # the chunk each of their messages came from
    for k, chunk in enumerate(chunks):
        new = _messages(bio, chunk, wanted)
        if new is not None:
            parts.append(new)
            ranks.append(np.full(len(new.channel), k, np.int64))
        bound = later[k]
        if not parts or bound is not None and sum(len(r) for r in ranks) < BATCH:
            continue  # gather more chunks first: fewer, larger batches
        kept, rank = _join(parts), np.concatenate(ranks)
        order = np.lexsort((kept.start, rank, kept.log_time))  # stable within a chunk
        cut = len(order) if bound is None else \
            int(np.searchsorted(kept.log_time[order], bound, side='left'))
        if cut:
            rows = order[:cut]
            yield kept._replace(channel=kept.channel[rows], log_time=kept.log_time[rows],
                                start=kept.start[rows], length=kept.length[rows])
        rest = order[cut:]
        parts, ranks = ([_take(kept, rest)], [rank[rest]]) if rest.size else ([], [])
