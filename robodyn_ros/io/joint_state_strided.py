"""Decoding many JointState messages of one layout straight from a chunk's bytes, in numpy
array operations over strided views (no per-message Python, no compiler).

A recorder writes a topic's messages of one length at evenly spaced offsets more often
than not (a 1 kHz state topic interleaved with a 1 kHz reference topic: every other
record). Each run of messages at one spacing is one (messages, bytes) view of the chunk
with that spacing as its row stride: its layout (frame_id, names, array sizes), stamps and
arrays are read through views of 8-byte words at any byte offset (numpy reads unaligned
values), and only the values are copied out. Messages that sit in short runs are first
gathered into rows (one copy) and read the same way. A message of another layout is left
to the row route of :mod:`.joint_state_batch`.

Compared with numba's compiled pass this decodes the same values to the bit (the stamp is
summed as numpy sums it), and costs no compiler at import (LLVM alone is 57 MB and
0.5-0.9 s at the first call).
"""

import numpy as np

__all__ = ['decode_layout']

#: Runs shorter than this many messages are gathered into rows rather than viewed.
MIN_RUN = 16
_LOW = np.uint64(0xFFFFFFFF)


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
        match (m,) bool, the messages that had the layout and lie inside ``data`` (the
        others are for the row route); t (m,) header.stamp [s] (sec + nanosec * 1e-9, as
        numpy sums them); values (3, m, k).
    """
    start = np.asarray(start, np.int64)
    m = len(start)
    match, t, values = np.zeros(m, bool), np.empty(m), np.empty((3, m, k))
    for b, offset in enumerate(offsets):
        if offset is None:
            values[b] = np.nan
    layout = _Layout(key, counts, offsets, k, size)
    inside = np.flatnonzero((start >= 0) & (start + size <= len(data)))
    gathered = []
    for run in _runs(start[inside]):
        at = inside[run]
        if len(at) < MIN_RUN:
            gathered.append(at)
            continue
        stride = int(start[at[1]] - start[at[0]])
        layout.read(data, int(start[at[0]]), stride, at, match, t, values)
    if gathered:
        at = np.concatenate(gathered)
        rows = data[start[at][:, None] + np.arange(size)]
        layout.read(rows.reshape(-1), 0, size, at, match, t, values)
    return match, t, values


def _runs(start: np.ndarray) -> list[np.ndarray]:
    """Consecutive index ranges of ``start``, each evenly spaced with one positive spacing
    (a message that joins none is a run of one)."""
    m = len(start)
    step = np.diff(start)
    cut = np.zeros(m, bool)
    cut[:1] = True
    cut[1:] |= step <= 0
    cut[2:] |= step[1:] != step[:-1]
    bounds = np.append(np.flatnonzero(cut), m)
    return [np.arange(a, b) for a, b in zip(bounds[:-1], bounds[1:])]


class _Layout:
    """What fixes one layout (the key's bytes, the array sizes) and where its fields lie."""

    def __init__(self, key, counts, offsets, k, size):
        self.key = bytes(key)
        self.key_row = np.frombuffer(self.key, np.uint8)
        self.counts = [(offset, np.uint32(value)) for offset, value in counts]
        self.offsets, self.k, self.size = offsets, k, size

    def read(self, buf, first, stride, at, match, t, values):
        """Messages at ``first + stride * i`` of ``buf`` for i < len(at), into the rows
        ``at`` of the outputs. Each field is one byte string per message, read where it
        lies (a strided view) and copied out whole, so that no arithmetic or comparison
        runs on unaligned values (numpy's slow path)."""
        r = len(at)

        def field(offset, width):
            return np.ndarray((r,), np.dtype((np.void, width)), buffer=buf,
                              offset=first + offset, strides=(stride,))

        ok = self._has_key(field, r)
        for offset, value in self.counts:
            ok &= np.array(field(offset, 4)).view('<u4') == value
        if not ok.any():
            return
        every = bool(ok.all())
        contiguous = every and r and at[-1] - at[0] == r - 1
        out = slice(int(at[0]), int(at[-1]) + 1) if contiguous else at[ok]
        stamp = _copied(field(4, 8), ok, every).view('<u8')
        t[out] = (stamp & _LOW).astype(np.uint32).view(np.int32).astype(np.float64) + \
            (stamp >> np.uint64(32)).astype(np.float64) * 1e-9
        width = 8 * self.k
        for b, offset in enumerate(self.offsets):
            if offset is None:
                continue
            if contiguous:  # straight into the output's rows
                np.copyto(values[b, out].view(np.dtype((np.void, width)))[:, 0],
                          field(offset, width))
            else:
                values[b, out] = _copied(field(offset, width), ok, every).view('<f8') \
                    .reshape(-1, self.k)
        match[out] = True

    def _has_key(self, field, r: int) -> np.ndarray:
        """Which of the r messages carry the layout's key: all of them in one comparison
        of their bytes when they do (the usual case)."""
        if not self.key:
            return np.ones(r, bool)
        keys = np.array(field(12, len(self.key)))
        if keys.tobytes() == self.key * r:
            return np.ones(r, bool)
        return (keys.view(np.uint8).reshape(r, len(self.key)) == self.key_row).all(axis=1)


def _copied(items: np.ndarray, ok: np.ndarray, every: bool) -> np.ndarray:
    """The ``ok`` items of a strided byte-string view, contiguous (aligned for a view)."""
    return np.array(items) if every else items[ok]
