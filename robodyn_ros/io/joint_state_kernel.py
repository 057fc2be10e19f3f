"""Compiled decoding of many JointState messages of one layout straight from a chunk's
bytes (numba, cached on disk): one pass per message, no copy of its row first.

The numpy route (:mod:`.joint_state_batch`) copies each message into a row, the rows into
a block and the block's fields into arrays: three copies of 2.5 GB for a 1 h, 1 kHz bag.
Here each message's stamp and arrays are read where they are, after its layout (names,
array sizes) is checked byte for byte; a message of another layout is left to the numpy
route. CDR puts 8-byte values at any byte offset of a chunk: they are read through eight
uint64 / float64 views of the bytes, one per offset modulo 8 (no allocation per value).
"""

import numba
import numpy as np

__all__ = ['decode_layout']


def _words(data: np.ndarray, dtype: str) -> np.ndarray:
    """(8, w) view: [r, i] is the 8-byte value at byte r + 8 i of ``data`` (every such
    value lies inside ``data``)."""
    count = max((len(data) - 7) // 8, 0)
    flat = np.ndarray((count,), dtype, buffer=data) if count else np.zeros(0, dtype)
    return np.lib.stride_tricks.as_strided(flat, (8, count), (1, 8), writeable=False)


def decode_layout(data: np.ndarray, start: np.ndarray, size: int, key: bytes,
                  counts: list[tuple[int, int]], offsets: list[int | None],
                  k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decode the messages of one layout among ``data[start[i]:start[i] + size]``.

    Args:
        data: the bytes (uint8). start: (m,) where each message begins; size: its length.
        key: the bytes at offset 12 that fix the layout (frame_id, names).
        counts: (offset, value) of each non-empty array's uint32 length.
        offsets: where position, velocity and effort begin (None: absent, NaN out).
        k: values per array.

    Returns:
        match (m,) bool, the messages that had the layout (and lie far enough from the
        end of ``data`` for 8-byte reads; the others are for the numpy route); t (m,)
        header.stamp [s] (sec + nanosec * 1e-9, as numpy sums them); values (3, m, k).
    """
    m = len(start)
    t, values = np.empty(m), np.empty((3, m, k))
    key_bytes = np.frombuffer(key, np.uint8)
    match = _decode(_words(data, '<u8'), _words(data, '<f8'), data,
                    np.ascontiguousarray(start, np.int64), size, key_bytes,
                    key_bytes[:len(key) // 8 * 8].view('<u8'),
                    np.array([c for c, _ in counts], np.int64),
                    np.array([n for _, n in counts], np.uint64),
                    np.array([-1 if off is None else off for off in offsets], np.int64),
                    k, t, values)
    return match, t, values


@numba.njit(cache=True)
def _decode(u64, f64, data, start, size, key, words, counts_at, counts, offsets, k, t,
            values):
    m = start.shape[0]
    match = np.zeros(m, np.bool_)
    limit = 8 * u64.shape[1] + 7  # a message ending here or before is safe to read
    low = np.uint64(0xFFFFFFFF)
    for i in range(m):
        s = start[i]
        ok = s + size <= limit
        for j in range(words.shape[0]):
            if ok:
                a = s + 12 + 8 * j
                ok = u64[a & 7, a >> 3] == words[j]
        for j in range(8 * words.shape[0], key.shape[0]):
            if ok:
                ok = data[s + 12 + j] == key[j]
        for c in range(counts_at.shape[0]):
            if ok:
                a = s + counts_at[c]
                ok = (u64[a & 7, a >> 3] & low) == counts[c]
        if not ok:
            continue
        match[i] = True
        a = s + 4
        stamp = u64[a & 7, a >> 3]
        t[i] = np.float64(np.int32(np.uint32(stamp & low))) + \
            np.float64(stamp >> np.uint64(32)) * 1e-9
        for b in range(3):
            off = offsets[b]
            for j in range(k):
                if off < 0:
                    values[b, i, j] = np.nan
                else:
                    a = s + off + 8 * j
                    values[b, i, j] = f64[a & 7, a >> 3]
    return match
