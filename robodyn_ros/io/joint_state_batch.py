"""Batched decoding of sensor_msgs/JointState CDR messages.

Messages with the same layout (same byte length and the same frame_id/names header) have
their stamps and arrays at the same offsets: they are collected as raw bytes and decoded
together with numpy, about 1 us per message instead of ~20 us through a generic decoder.
Per-message joint orders (reordered names) are separate layouts, mapped back by name.

Several publishers on one topic (an arm and a gripper) are merged by name: a message with
none of the wanted joints is ignored, one with some of them is completed with the latest
values of the others. Stamps are checked in arrival order: a repeated stamp is a duplicate,
a stamp earlier than one already seen is out of order (a clock jump back); both are counted
and left out, so the returned samples are strictly increasing in time.
"""

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ..errors import BagError
from .cdr import JointStateLayout, parse_joint_state
from .mcap_chunks import byte_rows

__all__ = ['JointStateBatch', 'StateArrays', 'CLOCK_RESET']

_ZERO_STAMP = bytes(8)
#: A stamp this far [s] behind the latest one is a clock reset, not an out-of-order state
#: (the controller core uses the same bound).
CLOCK_RESET = 1.0
#: Layouts add_many decodes with the kernel per call (a publisher that reorders its names
#: has a few); messages of further layouts are queued as rows.
MAX_KERNEL_LAYOUTS = 32


class _Layout:
    def __init__(self, raw):
        wire = JointStateLayout(raw)
        self.names = wire.names
        self.length = wire.length
        self.offsets = [(start if k else None, k) for _, start, k in wire.arrays]
        # (byte offset of the uint32 count, count) of every non-empty array
        self.counts = [(c, k) for c, _, k in wire.arrays if k]
        self.header_end = min((start for _, start, k in wire.arrays if k), default=len(raw))
        self.key = bytes(raw[12:self.header_end])
        self.batch = []
        self.stamps_ns = []
        self.seq = []
        # (seq, t [s], bag time [ns], (3, m, k) values) pieces the kernel decoded
        self.decoded: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []


def _rows(layout: _Layout) -> np.ndarray:
    """A layout's queued messages as one (m, length) uint8 array, in the order queued:
    ``batch`` holds single messages (bytes) and blocks of rows (:meth:`add_many`)."""
    parts: list[np.ndarray] = []
    singles: list[bytes] = []
    for piece in layout.batch:
        if isinstance(piece, np.ndarray):
            if singles:
                parts.append(np.frombuffer(b''.join(singles), np.uint8).reshape(
                    -1, layout.length))
                singles = []
            parts.append(piece)
        else:
            singles.append(piece)
    if singles:
        parts.append(np.frombuffer(b''.join(singles), np.uint8).reshape(-1, layout.length))
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _joined(parts: list[np.ndarray], order: np.ndarray | None) -> np.ndarray:
    """The parts one after the other, rows in ``order`` (None: as they are)."""
    joined = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return joined if order is None else joined[order]


class StateArrays(NamedTuple):
    """Decoded samples, strictly increasing in ``t`` [s]; (m, n) arrays in ``joints`` order
    (NaN where a message had no velocity or effort); ``arrival_t``: the stamps of every
    merged message in arrival order (for loop timing, jumps included)."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    effort: np.ndarray
    arrival_t: np.ndarray


class JointStateBatch:
    """Collect JointState messages; :meth:`take` returns decoded arrays in ``joints`` order.

    Args:
        joints: joint names wanted, in output order (None: taken from the first message).

    Attributes:
        duplicates, out_of_order, backward_jumps, ignored: counts so far (see the module
        docstring).
    """

    def __init__(self, joints: Sequence[str] | None = None) -> None:
        self.joints: list[str] | None = list(joints) if joints else None
        self.layouts: dict[tuple[int, bytes], _Layout] = {}
        self.header_ends: dict[int, set[int]] = {}
        self.count = 0
        self.seq = 0
        self._last: _Layout | None = None
        # latest (q, qd, effort) per joint and which were seen, to merge
        self.last: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        self.max_t = -np.inf
        self.prev_t: float | None = None
        self.duplicates = self.out_of_order = self.backward_jumps = self.ignored = 0
        # A stamp of 0 is the bag time (an unstamped publisher) until a non-zero stamp is
        # seen; then it is time 0 (a simulator's first state), as the controller takes it.
        self.stamped = False

    def _layout(self, raw):
        n = len(raw)
        for end in self.header_ends.get(n, ()):
            layout = self.layouts.get((n, bytes(raw[12:end])))
            if layout is not None:
                return layout
        layout = _Layout(raw)
        if self.joints is None:
            self.joints = list(layout.names)
        self.header_ends.setdefault(n, set()).add(layout.header_end)
        return self.layouts.setdefault((n, layout.key), layout)

    def add(self, raw: bytes | memoryview, bag_ns: int) -> None:
        """Queue one serialized message (``bag_ns``: the bag timestamp, used if unstamped)."""
        last = self._last  # the usual case: the same layout as the previous message
        if last is not None and len(raw) == last.length and raw[12:last.header_end] == \
                last.key:
            layout = last
        else:
            layout = self._last = self._layout(raw)
        layout.batch.append(raw)
        layout.stamps_ns.append(bag_ns)
        if not self.stamped and raw[4:12] != _ZERO_STAMP:
            self.stamped = True
        layout.seq.append(self.seq)
        self.seq += 1
        self.count += 1

    def add_many(self, data: np.ndarray, start: np.ndarray, length: np.ndarray,
                 bag_ns: np.ndarray) -> None:
        """Queue m serialized messages at once: message i is ``data[start[i]:start[i] +
        length[i]]`` (uint8), received at ``bag_ns[i]``; the same as m calls of :meth:`add`.
        A layout whose arrays each carry one value per name is decoded here, in a few
        array operations (:mod:`.joint_state_strided`); other messages are queued as rows
        (a 1 kHz topic is 3.6 M messages an hour)."""
        m = len(start)
        one_size = m and length.min() == length.max()  # the usual case: no sets to build
        for size in (length[:1] if one_size else np.unique(length)):
            at = np.arange(m) if one_size else np.flatnonzero(length == size)
            left = np.arange(len(at))
            for _ in range(MAX_KERNEL_LAYOUTS):  # one layout per pass (names reordered)
                if not left.size:
                    break
                done = self._decode_many(data, start[at[left]], int(size), bag_ns[at[left]],
                                         self.seq + at[left])
                if not done.any():
                    break
                left = left[~done]
            if left.size:
                rows = byte_rows(data, start[at][left], int(size))
                if not self.stamped and rows[:, 4:12].any():
                    self.stamped = True
                self._add_rows(rows, bag_ns[at][left], self.seq + at[left])
        self.seq += m
        self.count += m

    def _decode_many(self, data, start, size, bag_ns, seq):
        """Decode the messages that share the first one's layout when it suits the
        kernel; returns which were decoded (all False: none, the layout does not suit)."""
        first = data[start[0]:start[0] + size].tobytes()
        layout = self._layout(first)
        k = len(layout.names)
        if any(count != k for _, count in layout.counts) or not k:
            return np.zeros(len(start), bool)
        from .joint_state_strided import decode_layout
        match, t, values = decode_layout(data, start, size, layout.key, layout.counts,
                                         [off for off, _ in layout.offsets], k)
        if not match.any():
            return match
        if match.all():
            layout.decoded.append((seq, t, bag_ns, values))
        else:
            layout.decoded.append((seq[match], t[match], bag_ns[match], values[:, match]))
        if not self.stamped and (t[match] != 0.0).any():
            self.stamped = True
        return match

    def _add_rows(self, rows, bag_ns, seq):
        """Rows of one length, sorted into their layouts (same names, same offsets)."""
        left = np.arange(len(rows))
        while left.size:
            layout = self._layout(rows[left[0]].tobytes())
            key = np.frombuffer(layout.key, np.uint8)
            same = (rows[left, 12:layout.header_end] == key).all(axis=1)
            take = left[same]
            layout.batch.append(rows[take])
            layout.stamps_ns.extend(bag_ns[take].tolist())
            layout.seq.extend(seq[take].tolist())
            left = left[~same]

    def __len__(self):
        return self.count

    def names_seen(self) -> set[str]:
        """Every joint name any queued or taken message carried."""
        return {name for layout in self.layouts.values() for name in layout.names}

    def _chain_joints(self) -> list[str]:
        """The joints decoded into columns (set by the first message when not given)."""
        if self.joints is None:
            raise BagError('no joint states decoded yet: the joint order is unknown')
        return self.joints

    def _decode(self, layout):
        """(seq, t, q, qd, effort, known) of a layout's queued messages; None if it has
        none of the wanted joints."""
        joints = self._chain_joints()
        lookup = {name: i for i, name in enumerate(layout.names)}
        present = [j for j, name in enumerate(joints) if name in lookup]
        if not present:
            return None
        data = _rows(layout)
        m = len(data)
        consistent = np.ones(m, bool)
        for cpos, k in layout.counts:
            consistent &= data[:, cpos:cpos + 4].copy().view('<u4')[:, 0] == k
        if not consistent.all():  # same length and names, other array sizes: one by one
            return self._decode_each(layout)
        stamp = data[:, 4:12].copy().view('<i4')
        t = stamp[:, 0].astype(float) + stamp[:, 1].view('<u4') * 1e-9
        values = [None if off is None else data[:, off:off + 8 * k].copy().view('<f8')
                  for off, k in layout.offsets]
        return self._columns(layout, np.asarray(layout.seq), t,
                             np.asarray(layout.stamps_ns), values)

    def _decoded(self, layout):
        """:meth:`_decode` of what the kernel decoded (None: none of the wanted joints)."""
        pieces, layout.decoded = layout.decoded, []
        seq, t, bag_ns = (np.concatenate([p[k] for p in pieces]) for k in range(3))
        values = np.concatenate([p[3] for p in pieces], axis=1)
        return self._columns(layout, seq, t, bag_ns,
                             [None if off is None else values[a]
                              for a, (off, _) in enumerate(layout.offsets)])

    def _columns(self, layout, seq, t, bag_ns, values):
        """(seq, t, q, qd, effort, known): each layout's arrays (m, names) into the wanted
        joints' columns (NaN where absent); known None when every row has every wanted
        position. An unstamped message takes its bag time."""
        joints = self._chain_joints()
        n = len(joints)
        lookup = {name: i for i, name in enumerate(layout.names)}
        present = [j for j, name in enumerate(joints) if name in lookup]
        if not present:
            return None
        m = len(t)
        if not self.stamped:
            unstamped = t == 0.0
            if unstamped.any():
                t[unstamped] = bag_ns.astype(float)[unstamped] * 1e-9
        src = np.array([lookup[joints[j]] for j in present])
        whole = len(present) == n == len(layout.names) and (src == np.arange(n)).all()
        arrays = []
        for (off, k), value in zip(layout.offsets, values):
            if off is not None and k != len(layout.names):
                raise BagError(f'JointState with {len(layout.names)} names carries an '
                               f'array of {k} values')
            if value is not None and whole:  # the usual case: the wanted joints in order
                arrays.append(value)
                continue
            out = np.full((m, n), np.nan)
            if value is not None:
                out[:, present] = value[:, src]
            arrays.append(out)
        if layout.offsets[0][0] is not None and len(present) == n:
            known = None  # every wanted joint has its position: nothing to merge
        else:
            known = np.zeros((m, n), bool)
            if layout.offsets[0][0] is not None:
                known[:, present] = True
        return (seq, t, *arrays, known)

    def _decode_each(self, layout):
        """:meth:`_decode` message by message (layouts whose array sizes vary)."""
        joints = self._chain_joints()
        n = len(joints)
        rows = []
        for row, bag_ns in zip(_rows(layout), layout.stamps_ns):
            t, names, *arrays = parse_joint_state(row.tobytes())
            lookup = {name: i for i, name in enumerate(names)}
            present = [j for j, name in enumerate(joints) if name in lookup]
            src = [lookup[joints[j]] for j in present]
            out = []
            for arr in arrays:
                row = np.full(n, np.nan)
                if len(arr) == len(names):
                    row[present] = arr[src]
                out.append(row)
            known = np.zeros(n, bool)
            known[present] = len(arrays[0]) == len(names)
            rows.append((t if t or self.stamped else bag_ns * 1e-9, *out, known))
        return (np.asarray(layout.seq), np.array([r[0] for r in rows]),
                *(np.array([r[k] for r in rows]).reshape(-1, n) for k in range(1, 5)))

    def _merge(self, q, qd, eff, known):
        """Complete partial rows with the latest values of their missing joints (from any
        earlier message, kept or not); rows with a joint never seen yet, or without any
        tracked position, are dropped.
        Returns the kept-row mask."""
        n = q.shape[1]
        if self.last is None:
            self.last = (np.full(n, np.nan), np.full(n, np.nan), np.full(n, np.nan),
                         np.zeros(n, bool))
        latest_q, latest_qd, latest_eff, seen = self.last
        keep = np.ones(len(q), bool)
        for i in range(len(q)):
            row = known[i]
            for arr, latest in ((q, latest_q), (qd, latest_qd), (eff, latest_eff)):
                latest[row] = arr[i, row]
                arr[i, ~row] = latest[~row]
            seen |= row
            keep[i] = row.any() and seen.all()  # no position of a tracked joint: nothing new
        return keep

    def _in_order(self, t):
        """Mask of stamps later than every earlier one (arrival order); counts the rest.
        A jump back by more than CLOCK_RESET is a clock reset (a restarted simulator, time
        sync switched on): the stream continues from there."""
        prev = self.prev_t if self.prev_t is not None else -np.inf
        last = np.concatenate([[prev], t[:-1]])
        self.duplicates += int(np.count_nonzero(t == last))
        self.backward_jumps += int(np.count_nonzero(t < last))
        if len(t):
            self.prev_t = float(t[-1])
        if np.all(t > last) and (not len(t) or t[0] > self.max_t):  # the usual case
            if len(t):
                self.max_t = float(t[-1])
            return np.ones(len(t), bool)
        keep = np.zeros(len(t), bool)
        for i, (ti, li) in enumerate(zip(t, last)):
            if ti < self.max_t - CLOCK_RESET:
                self.max_t = -np.inf  # a new clock epoch
            if ti > self.max_t:
                keep[i], self.max_t = True, ti
            elif ti != li:
                self.out_of_order += 1
        return keep

    def take(self) -> StateArrays:
        """The queued messages as :class:`StateArrays`; empties the queue.

        Raises:
            BagError: a message's arrays do not match its names.
        """
        if self.joints is None:
            raise BagError('JointStateBatch.take: no joints known yet')
        n = len(self.joints)
        parts = []
        for layout in self.layouts.values():
            if layout.batch:
                part = self._decode(layout)
                if part is None:
                    self.ignored += len(layout.seq)
                else:
                    parts.append(part)
                layout.batch, layout.stamps_ns, layout.seq = [], [], []
            if layout.decoded:
                count = sum(len(p[0]) for p in layout.decoded)
                part = self._decoded(layout)
                if part is None:
                    self.ignored += count
                else:
                    parts.append(part)
        self.count = 0
        if not parts:
            empty = np.zeros((0, n))
            return StateArrays(np.zeros(0), empty, empty.copy(), empty.copy(), np.zeros(0))
        seq = np.concatenate([p[0] for p in parts])
        order = None if (np.diff(seq) > 0).all() else np.argsort(seq, kind='stable')
        t, q, qd, eff = (_joined([p[k] for p in parts], order) for k in range(1, 5))
        if any(p[5] is not None for p in parts):
            m = len(t)
            known = _joined([np.ones((len(p[1]), n), bool) if p[5] is None else p[5]
                             for p in parts], order)
            merged = self._merge(q, qd, eff, known) if not known.all() else np.ones(m, bool)
            self.ignored += int(np.count_nonzero(~merged))
            t, q, qd, eff = t[merged], q[merged], qd[merged], eff[merged]
        keep = self._in_order(t)
        if keep.all():  # the usual case: no copies
            return StateArrays(t.copy(), q, qd, eff, t)
        return StateArrays(t[keep], q[keep], qd[keep], eff[keep], t)
