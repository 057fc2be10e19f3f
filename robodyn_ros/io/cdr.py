"""CDR (little-endian, XCDR1) encoding and decoding of the messages robodyn reads fast:
sensor_msgs/JointState and std_msgs/Float64MultiArray. Everything else goes through
rosbags' generic serializer. Malformed bytes raise BagError, never struct/Unicode errors.
"""

from collections.abc import Sequence
import struct

import numpy as np
from numpy.typing import ArrayLike

from ..errors import BagError

__all__ = ['parse_joint_state', 'encode_joint_state', 'float64_multi_array']

_U32 = struct.Struct('<I')
_STAMP = struct.Struct('<iI')


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


def parse_joint_state(
        raw: bytes | memoryview) -> tuple[float, tuple[str, ...], np.ndarray, np.ndarray,
                                          np.ndarray]:
    """Decode a CDR (little-endian) sensor_msgs/JointState without the generic machinery.

    Returns:
        (stamp [s], names tuple, position, velocity, effort) with float64 arrays.

    Raises:
        BagError: not little-endian CDR, or truncated/corrupt bytes.
    """
    buf = memoryview(raw)
    if len(buf) < 12 or buf[1] not in (1, 0):
        raise BagError('JointState: unsupported CDR encapsulation')
    if buf[1] == 0:
        raise BagError('JointState: big-endian CDR is not supported')
    try:
        return _joint_state(buf[4:])
    except (struct.error, ValueError, UnicodeDecodeError) as exc:
        raise BagError(f'JointState: truncated or corrupt CDR ({len(buf)} bytes): '
                       f'{exc}') from None


def _joint_state(data):
    sec, nsec = _STAMP.unpack_from(data, 0)
    off = 8
    (flen,) = _U32.unpack_from(data, off)
    off += 4 + flen
    off = _align(off, 4)
    count = _count(data, off, 4, 'JointState names')
    off += 4
    names = []
    for _ in range(count):
        off = _align(off, 4)
        (slen,) = _U32.unpack_from(data, off)
        names.append(bytes(data[off + 4:off + 3 + slen]).decode())
        off += 4 + slen
    arrays = []
    for _ in range(3):
        off = _align(off, 4)
        k = _count(data, off, 8, 'JointState array')
        off += 4
        if k:
            off = _align(off, 8)
            arrays.append(np.frombuffer(data, dtype='<f8', count=k, offset=off))
            off += 8 * k
        else:
            arrays.append(np.zeros(0))
    return sec + nsec * 1e-9, tuple(names), arrays[0], arrays[1], arrays[2]


def _string(name):
    data = name.encode() + b'\0'
    return struct.pack('<I', len(data)) + data


def _pad(buf, align):
    return buf + b'\0' * ((-len(buf)) % align)


def encode_joint_state(stamp: float, names: Sequence[str], position: ArrayLike,
                       velocity: ArrayLike = (), effort: ArrayLike = (),
                       frame_id: str = '') -> bytes:
    """CDR bytes of a sensor_msgs/JointState (little-endian, with encapsulation header)."""
    sec = int(np.floor(stamp))
    nsec = int(round((stamp - sec) * 1e9))
    if nsec >= 1_000_000_000:
        sec, nsec = sec + 1, nsec - 1_000_000_000
    body = struct.pack('<iI', sec, nsec) + _string(frame_id)
    body = _pad(body, 4) + struct.pack('<I', len(names))
    for name in names:
        body = _pad(body, 4) + _string(name)
    for arr in (position, velocity, effort):
        arr = np.asarray(arr, dtype='<f8')
        body = _pad(body, 4) + struct.pack('<I', len(arr))
        if len(arr):
            body = _pad(body, 8) + arr.tobytes()
    return b'\x00\x01\x00\x00' + body


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
