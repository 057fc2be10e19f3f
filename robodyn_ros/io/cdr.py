"""CDR (little-endian, XCDR1) encoding and decoding of the messages robodyn handles fast:
sensor_msgs/JointState and std_msgs/Float64MultiArray. Everything else goes through
rosbags' generic serializer (bags) or rclpy's (nodes). Malformed bytes raise BagError,
never struct/Unicode errors.

Two uses: whole messages (:func:`parse_joint_state`, :func:`encode_joint_state`) for bags,
and fixed layouts for a 1 kHz stream (:class:`JointStateLayout`, :class:`JointStateWriter`,
:class:`Float64MultiArrayWriter`): a publisher sends the same frame_id, names and array
sizes every time, so the values sit at the same byte offsets and are read or written in
place, without building message objects.
"""

from collections.abc import Sequence
import struct
from types import SimpleNamespace
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ..defaults import MAX_JOINT_NAMES
from ..errors import BagError

__all__ = ['parse_joint_state', 'encode_joint_state', 'float64_multi_array',
           'parse_joint_trajectory', 'check_joint_trajectory_size', 'TrajectoryPoint',
           'TrajectoryData',
           'JointStateLayout', 'JointStateWriter', 'Float64MultiArrayWriter', 'stamp_parts']

_U32 = struct.Struct('<I')
_STAMP = struct.Struct('<iI')
_HEADER = b'\x00\x01\x00\x00'  # CDR_LE encapsulation, no options


def _align(offset, size):
    return (offset + size - 1) // size * size


def _count(data, off, item_size, what):
    """A sequence length that fits in what is left of the message (a corrupt length must
    not allocate gigabytes or loop for hours)."""
    (count,) = _U32.unpack_from(data, off)
    if count * item_size > len(data) - off - 4:
        raise BagError(f'{what}: sequence length {count} exceeds the message '
                       f'({len(data)} bytes)')
    return count


def _scan(raw):
    """(stamp [s], names, ((count offset, data offset, count) of position, velocity and
    effort)) of a JointState's CDR bytes; offsets from the start of ``raw``.

    Raises:
        BagError: not little-endian CDR, or truncated/corrupt bytes.
    """
    buf = memoryview(raw)
    if len(buf) < 12 or buf[1] not in (1, 0):
        raise BagError('JointState: unsupported CDR encapsulation')
    if buf[1] == 0:
        raise BagError('JointState: big-endian CDR is not supported')
    data = buf[4:]  # alignment is relative to the end of the encapsulation header
    try:
        sec, nsec, names, off = _header_and_names(data, 'JointState names')
        arrays = []
        for _ in range(3):
            off = _align(off, 4)
            k = _count(data, off, 8, 'JointState array')
            start = _align(off + 4, 8) if k else off + 4
            arrays.append((4 + off, 4 + start, k))
            off = start + 8 * k
        if off > len(data):
            raise BagError(f'JointState: truncated CDR ({len(buf)} bytes, arrays end at '
                           f'{4 + off})')
    except (struct.error, UnicodeDecodeError) as exc:
        raise BagError(f'JointState: truncated or corrupt CDR ({len(buf)} bytes): '
                       f'{exc}') from None
    return sec + nsec * 1e-9, tuple(names), tuple(arrays)


def _header_and_names(data, what, max_names=MAX_JOINT_NAMES):
    """(sec, nanosec, names, offset after them) of a message that opens with a
    std_msgs/Header and a sequence of names (JointState, JointTrajectory); ``data`` after
    the encapsulation header, ``what`` names the sequence in errors. More than
    ``max_names`` names: BagError before any is decoded."""
    sec, nsec = _STAMP.unpack_from(data, 0)
    kind = what.split()[0]
    off = 12 + _count(data, 8, 1, f'{kind} frame_id')
    count = _count(data, _align(off, 4), 4, what)
    if count > max_names:
        raise BagError(f'{what}: {count} names, more than {max_names}')
    off = _align(off, 4) + 4
    names = []
    for _ in range(count):
        off = _align(off, 4)
        (slen,) = _U32.unpack_from(data, off)
        if slen == 0 or off + 4 + slen > len(data):  # a CDR string holds its terminator
            raise BagError(f'{what}: corrupt name length {slen}')
        names.append(bytes(data[off + 4:off + 3 + slen]).decode())
        off += 4 + slen
    return sec, nsec, names, off


class TrajectoryPoint(NamedTuple):
    """One point as trajectory_message reads it (duck-typed like the ROS message)."""

    positions: np.ndarray
    velocities: np.ndarray
    accelerations: np.ndarray
    effort: np.ndarray
    time_from_start: SimpleNamespace


class TrajectoryData(NamedTuple):
    """A decoded JointTrajectory: ``joint_names`` and ``points``."""

    joint_names: list
    points: list


def check_joint_trajectory_size(raw: bytes, max_points: int,
                                max_names: int = MAX_JOINT_NAMES) -> None:
    """Refuse a JointTrajectory's CDR bytes with more than ``max_points`` points or
    ``max_names`` joint names, from the counts alone (the points are not decoded: O(names)).

    Raises:
        BagError: too many points or names, not little-endian CDR, truncated or corrupt.
    """
    _trajectory_head(raw, max_points, max_names)


def _trajectory_head(raw, max_points, max_names):
    """(data after the encapsulation, names, point count, offset of the first point), the
    counts checked against their bounds before anything else is decoded."""
    buf = memoryview(raw)
    if len(buf) < 16 or buf[1] != 1:
        raise BagError('JointTrajectory: expected little-endian CDR')
    data = buf[4:]
    try:
        _, _, names, off = _header_and_names(data, 'JointTrajectory joint_names', max_names)
        off = _align(off, 4)
        count = _count(data, off, 24, 'JointTrajectory points')
    except (struct.error, UnicodeDecodeError, ValueError) as exc:
        raise BagError(f'JointTrajectory: truncated or corrupt CDR: {exc}') from None
    if count > max_points:
        raise BagError(f'JointTrajectory: {count} points, more than max_trajectory_points '
                       f'({max_points})')
    return data, names, count, off + 4


def parse_joint_trajectory(raw: bytes, max_points: int,
                           max_names: int = MAX_JOINT_NAMES) -> TrajectoryData:
    """Decode a trajectory_msgs/JointTrajectory's CDR bytes (at most ``max_points`` points
    and ``max_names`` joint names, both counted before anything is decoded).

    Points of one layout (every point with the same array lengths, as a controller's
    trajectory has) are read as strided views of the bytes, the rest one point at a time;
    run it off the control thread, where the interpreter hands the lock back every switch
    interval (rclpy's C deserializer would hold it for the whole message).

    Raises:
        BagError: more than ``max_points`` points or ``max_names`` names, not
            little-endian CDR, truncated or corrupt bytes.
    """
    data, names, count, off = _trajectory_head(raw, max_points, max_names)
    try:
        points = _uniform_points(data, off, count)
        if points is None:
            points = []
            for _ in range(count):
                point, off = _point(data, off)
                points.append(point)
    except (struct.error, UnicodeDecodeError, ValueError) as exc:
        raise BagError(f'JointTrajectory: truncated or corrupt CDR: {exc}') from None
    return TrajectoryData(names, points)


def _point(data, off):
    """(TrajectoryPoint at ``off``, offset after it): one point's four arrays and time."""
    fields = []
    for _ in range(4):
        off = _align(off, 4)
        k = _count(data, off, 8, 'JointTrajectory point array')
        start = _align(off + 4, 8) if k else off + 4
        fields.append(np.frombuffer(data, '<f8', k, start) if k else _EMPTY)
        off = start + 8 * k
    off = _align(off, 4)
    sec, nanosec = _STAMP.unpack_from(data, off)
    return TrajectoryPoint(fields[0], fields[1], fields[2], fields[3],
                           SimpleNamespace(sec=sec, nanosec=nanosec)), off + 8


def _uniform_points(data, off, count):
    """The points as rows of strided views when every point has the same array lengths
    and padding as the first (a controller's trajectory: read in milliseconds, not point
    by point); None otherwise (the caller reads them one at a time).

    The first two points fix the stride S; with S a multiple of 8 every point starts at the
    same alignment, so one layout fits all, and every point's four lengths are read at
    once, strided, to confirm it."""
    if count < 2:
        return None
    first, second = _point(data, off)
    _, after = _point(data, second)
    stride = second - off
    if stride % 8 or stride != after - second or off + count * stride > len(data):
        return None
    slots, cursor = [], off  # (length offset, values offset, length) of each array
    for field in first[:4]:
        cursor = _align(cursor, 4)
        k = len(field)
        start = _align(cursor + 4, 8) if k else cursor + 4
        slots.append((cursor, start, k))
        cursor = start + 8 * k
    for where, _, k in slots:
        if np.any(np.ndarray((count,), '<u4', data, where, (stride,)) != k):
            return None
    arrays = [np.ndarray((count, k), '<f8', data, start, (stride, 8)) if k else
              np.zeros((count, 0)) for _, start, k in slots]
    stamps = np.ndarray((count, 2), '<u4', data, _align(cursor, 4), (stride, 4))
    secs = stamps[:, 0].astype(np.int32).tolist()
    nanos = stamps[:, 1].tolist()
    return [TrajectoryPoint(arrays[0][i], arrays[1][i], arrays[2][i], arrays[3][i],
                            SimpleNamespace(sec=secs[i], nanosec=nanos[i]))
            for i in range(count)]


_EMPTY = np.zeros(0)


def _values(raw, field):
    _, start, k = field
    return np.frombuffer(raw, dtype='<f8', count=k, offset=start) if k else np.zeros(0)


def parse_joint_state(
        raw: bytes | memoryview) -> tuple[float, tuple[str, ...], np.ndarray, np.ndarray,
                                          np.ndarray]:
    """Decode a CDR (little-endian) sensor_msgs/JointState without the generic machinery.

    Returns:
        (stamp [s], names tuple, position, velocity, effort) with float64 arrays.

    Raises:
        BagError: not little-endian CDR, or truncated/corrupt bytes.
    """
    stamp, names, arrays = _scan(raw)
    return (stamp, names, *(_values(raw, field) for field in arrays))


class JointStateLayout:
    """Where a JointState's values sit in its CDR bytes; valid for every message with the
    same length, frame_id, names and array sizes (:meth:`matches`).

    Attributes:
        names: joint names. length: bytes per message.
        arrays: (count offset, data offset, count) of position, velocity and effort.
        key: the bytes that fix the layout (frame_id, names, position count).
        packed: one position and one velocity per name.
        offsets: byte offsets of the position and velocity values (float64, little-endian).
    """

    def __init__(self, raw: bytes) -> None:
        _, self.names, self.arrays = _scan(raw)
        self.length = len(raw)
        self._key_end = self.arrays[0][0] + 4
        self.key = bytes(raw[12:self._key_end])
        self._counts = [(c, bytes(raw[c:c + 4])) for c, _, _ in self.arrays[1:]]
        self.packed = all(k == len(self.names) for _, _, k in self.arrays[:2])
        self.offsets = (self.arrays[0][1], self.arrays[1][1])

    def matches(self, raw: bytes) -> bool:
        """Whether ``raw`` (CDR bytes of a JointState) has this layout."""
        if len(raw) != self.length or raw[1] != 1 or raw[12:self._key_end] != self.key:
            return False
        return all(raw[c:c + 4] == count for c, count in self._counts)

    def stamp(self, raw: bytes) -> float:
        """header.stamp [s] of a matching message."""
        sec, nsec = _STAMP.unpack_from(raw, 4)
        return sec + nsec * 1e-9

    def values(self, raw: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Read-only (position, velocity, effort) views of a matching message."""
        return _values(raw, self.arrays[0]), _values(raw, self.arrays[1]), \
            _values(raw, self.arrays[2])


def _string(name):
    data = name.encode() + b'\0'
    return struct.pack('<I', len(data)) + data


def _pad(buf, align):
    return buf + b'\0' * ((-len(buf)) % align)


def stamp_parts(stamp: float) -> tuple[int, int]:
    """(sec, nanosec) of a time [s], nanosec in [0, 1e9)."""
    sec = int(np.floor(stamp))
    nsec = int(round((stamp - sec) * 1e9))
    if nsec >= 1_000_000_000:
        sec, nsec = sec + 1, nsec - 1_000_000_000
    return sec, nsec


def encode_joint_state(stamp: float, names: Sequence[str], position: ArrayLike,
                       velocity: ArrayLike = (), effort: ArrayLike = (),
                       frame_id: str = '') -> bytes:
    """CDR bytes of a sensor_msgs/JointState (little-endian, with encapsulation header)."""
    body = struct.pack('<iI', *stamp_parts(stamp)) + _string(frame_id)
    body = _pad(body, 4) + struct.pack('<I', len(names))
    for name in names:
        body = _pad(body, 4) + _string(name)
    for arr in (position, velocity, effort):
        arr = np.asarray(arr, dtype='<f8')
        body = _pad(body, 4) + struct.pack('<I', len(arr))
        if len(arr):
            body = _pad(body, 8) + arr.tobytes()
    return _HEADER + body


class JointStateWriter:
    """CDR bytes of JointStates with fixed names and one value per name in each array,
    written into one reused buffer (no message objects).

    Args:
        names: joint names; frame_id: header.frame_id.
    """

    def __init__(self, names: Sequence[str], frame_id: str = '') -> None:
        n = len(names)
        self._buf = bytearray(encode_joint_state(0.0, names, np.zeros(n), np.zeros(n),
                                                 np.zeros(n), frame_id))
        self._fields = [np.frombuffer(self._buf, dtype='<f8', count=k, offset=start)
                        for _, start, k in JointStateLayout(bytes(self._buf)).arrays]

    def __call__(self, sec: int, nanosec: int, position: ArrayLike, velocity: ArrayLike,
                 effort: ArrayLike) -> bytes:
        """The message stamped (sec, nanosec) with these values (n each)."""
        _STAMP.pack_into(self._buf, 4, sec, nanosec)
        for field, values in zip(self._fields, (position, velocity, effort)):
            field[:] = values
        return bytes(self._buf)


class Float64MultiArrayWriter:
    """CDR bytes of std_msgs/Float64MultiArray with an empty layout and ``n`` values,
    written into one reused buffer."""

    def __init__(self, n: int) -> None:
        body = struct.pack('<III', 0, 0, n)  # no dims, data_offset 0, n values
        body = _pad(body, 8) if n else body
        self._buf = bytearray(_HEADER + body + bytes(8 * n))
        self._data = np.frombuffer(self._buf, dtype='<f8', count=n, offset=4 + len(body))

    def __call__(self, values: ArrayLike) -> bytes:
        """The message carrying ``values`` (n)."""
        self._data[:] = values
        return bytes(self._buf)


def float64_multi_array(raw: bytes | memoryview) -> np.ndarray:
    """Decode std_msgs/Float64MultiArray CDR (layout dims, data_offset, data).

    Raises:
        BagError: truncated or corrupt bytes.
    """
    try:
        return _float64_multi_array(bytes(memoryview(raw)[4:]))
    except (struct.error, ValueError) as exc:
        raise BagError(f'Float64MultiArray: truncated or corrupt CDR: {exc}') from None


def _float64_multi_array(data):
    off = 0
    ndim = _count(data, off, 12, 'Float64MultiArray dims')
    off += 4
    for _ in range(ndim):
        off = (off + 3) // 4 * 4
        (slen,) = struct.unpack_from('<I', data, off)
        off += 4 + slen
        off = (off + 3) // 4 * 4
        off += 8  # size, stride
    off = (off + 3) // 4 * 4
    off += 4  # data_offset
    off = (off + 3) // 4 * 4
    count = _count(data, off, 8, 'Float64MultiArray data')
    off += 4
    if count:
        off = (off + 7) // 8 * 8
    return np.frombuffer(data, dtype='<f8', count=count, offset=off).copy()
