"""Whole messages read from their CDR bytes (little-endian, XCDR1) into typed records whose
fields are named as rclpy's messages name them: sensor_msgs/JointState with its header, and
control_msgs/JointTrajectoryControllerState (its header, joint names and the points
reference, feedback, error and output).

Why: a reader of a 1 kHz stream beside a loaded controller has microseconds a message;
rclpy builds a Python message checking every element (27 us for a 7-joint JointState,
126 us for a JointTrajectoryControllerState). These read the bytes in place, the value
sequences as read-only float64 views, and keep the last joint-name sequence read (a stream
repeats its names). Malformed or big-endian bytes raise BagError (cdr.py's rule).
"""

import struct
from typing import NamedTuple

import numpy as np

from ..errors import BagError

__all__ = ['Time', 'Header', 'JointStateMessage', 'TrajectoryPointMessage',
           'ControllerStateMessage', 'header_stamp', 'read_joint_state',
           'read_controller_state']

_U32 = struct.Struct('<I')
_STAMP = struct.Struct('<iI')


class Time(NamedTuple):
    """builtin_interfaces/Time."""
    sec: int
    nanosec: int


class Header(NamedTuple):
    """std_msgs/Header."""
    stamp: Time
    frame_id: str


class JointStateMessage(NamedTuple):
    """sensor_msgs/JointState; the values in [rad, rad/s, N m] or [m, m/s, N]."""
    header: Header
    name: list[str]
    position: np.ndarray
    velocity: np.ndarray
    effort: np.ndarray


class TrajectoryPointMessage(NamedTuple):
    """trajectory_msgs/JointTrajectoryPoint."""
    positions: np.ndarray
    velocities: np.ndarray
    accelerations: np.ndarray
    effort: np.ndarray
    time_from_start: Time


class ControllerStateMessage(NamedTuple):
    """control_msgs/JointTrajectoryControllerState's fields up to ``output`` (those every
    release since Humble begins with; the multi-DOF ones after them are not read)."""
    header: Header
    joint_names: list[str]
    reference: TrajectoryPointMessage
    feedback: TrajectoryPointMessage
    error: TrajectoryPointMessage
    output: TrajectoryPointMessage


def header_stamp(raw: bytes) -> float:
    """The stamp [s] of a serialized message that begins with a std_msgs/Header (either
    byte order: CDR's second byte 1 is little endian)."""
    if len(raw) < 12:
        raise BagError(f'a header needs 12 bytes, the message has {len(raw)}')
    sec, nanosec = struct.unpack_from('<iI' if raw[1] & 1 else '>iI', raw, 4)
    return sec + 1e-9 * nanosec


class _Reader:
    """A cursor over one message's bytes; alignment counts from the end of the 4-byte
    encapsulation, as CDR's does."""

    def __init__(self, raw: bytes, what: str) -> None:
        if len(raw) < 12 or raw[1] != 1:
            raise BagError(f'{what}: not little-endian CDR')
        self.raw, self.at, self.what = raw, 4, what

    def align(self, size: int) -> None:
        self.at += -(self.at - 4) % size

    def u32(self) -> int:
        self.align(4)
        (value,) = _U32.unpack_from(self.raw, self.at)
        self.at += 4
        return value

    def count(self, item_size: int) -> int:
        """A sequence length that fits in the rest of the message (a corrupt one must not
        allocate gigabytes)."""
        count = self.u32()
        if count * item_size > len(self.raw) - self.at:
            raise BagError(f'{self.what}: sequence length {count} exceeds the message '
                           f'({len(self.raw)} bytes)')
        return count

    def time(self) -> Time:
        self.align(4)
        sec, nanosec = _STAMP.unpack_from(self.raw, self.at)
        self.at += 8
        return Time(sec, nanosec)

    def string(self) -> str:
        length = self.count(1)  # with its terminating NUL
        text = self.raw[self.at:self.at + length - 1].decode() if length else ''
        self.at += length
        return text

    def strings(self, known: list) -> list[str]:
        """A string sequence; ``known`` ([bytes, texts] of the last one read) spares the
        decoding of a sequence a stream repeats."""
        self.align(4)
        start = self.at
        if known[0] is not None and self.raw.startswith(known[0], start):
            self.at += len(known[0])
            return known[1]
        texts = [self.string() for _ in range(self.count(4))]
        known[:] = [bytes(self.raw[start:self.at]), texts]
        return texts

    def doubles(self) -> np.ndarray:
        count = self.count(8)
        if count:
            self.align(8)
        values = np.frombuffer(self.raw, dtype='<f8', count=count, offset=self.at)
        self.at += 8 * count
        return values

    def header(self) -> Header:
        return Header(self.time(), self.string())


_JOINT_NAMES: list = [None, None]
_CONTROLLER_NAMES: list = [None, None]


def read_joint_state(raw: bytes) -> JointStateMessage:
    """A sensor_msgs/JointState's CDR bytes as a record; BagError when malformed."""
    try:
        cursor = _Reader(raw, 'JointState')
        header, names = cursor.header(), cursor.strings(_JOINT_NAMES)
        return JointStateMessage(header, names, cursor.doubles(), cursor.doubles(),
                                 cursor.doubles())
    except (struct.error, UnicodeDecodeError, ValueError) as exc:
        raise BagError(f'JointState: truncated or corrupt CDR ({len(raw)} bytes): '
                       f'{exc}') from None


def _point(cursor: _Reader) -> TrajectoryPointMessage:
    positions, velocities = cursor.doubles(), cursor.doubles()
    accelerations, effort = cursor.doubles(), cursor.doubles()
    return TrajectoryPointMessage(positions, velocities, accelerations, effort, cursor.time())


def read_controller_state(raw: bytes) -> ControllerStateMessage:
    """A control_msgs/JointTrajectoryControllerState's CDR bytes as a record (up to its
    ``output``); BagError when malformed."""
    try:
        cursor = _Reader(raw, 'JointTrajectoryControllerState')
        header, names = cursor.header(), cursor.strings(_CONTROLLER_NAMES)
        reference, feedback = _point(cursor), _point(cursor)
        error, output = _point(cursor), _point(cursor)
        return ControllerStateMessage(header, names, reference, feedback, error, output)
    except (struct.error, UnicodeDecodeError, ValueError) as exc:
        raise BagError(f'JointTrajectoryControllerState: truncated or corrupt CDR '
                       f'({len(raw)} bytes): {exc}') from None
