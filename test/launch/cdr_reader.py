"""Readers of the CDR bytes of the messages a launch test records at 1 kHz, in a few
microseconds each: rclpy builds a Python message checking every element (27 us for a
7-joint JointState, 126 us for a JointTrajectoryControllerState), and three such streams
were more than a probe beside two hogs could decode. Each reader gives an object with
the fields rclpy's message has (sequences of doubles as array('d'), as rclpy gives
them); a big-endian message goes through rclpy."""

from array import array
import struct

__all__ = ['READERS', 'controller_state', 'header_stamp', 'joint_state']


def header_stamp(raw):
    """The stamp [s] of a serialized message that begins with a std_msgs/Header: after
    CDR's 4-byte encapsulation (its second byte 1: little endian), int32 sec and uint32
    nanosec."""
    sec, nanosec = struct.unpack_from('<iI' if raw[1] & 1 else '>iI', raw, 4)
    return sec + 1e-9 * nanosec


class _Fields:
    """A message's fields as attributes."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


def _aligned(at, size):
    """``at`` moved on to CDR's alignment for a ``size``-byte value (counted from the end of
    the 4-byte encapsulation)."""
    return at + (-(at - 4) % size)


def _string(raw, at):
    """(text, offset after it) of the CDR string at ``at``."""
    at = _aligned(at, 4)
    (length,) = struct.unpack_from('<I', raw, at)  # with its terminating NUL
    return raw[at + 4:at + 3 + length].decode(), at + 4 + length


_NAMES = [None, []]  # the CDR bytes of the last string sequence read, and its strings


def _strings(raw, at):
    """(list of texts, offset after it) of the CDR string sequence at ``at``; a stream
    repeats its joint names, and the bytes of the last sequence read are kept."""
    start = at = _aligned(at, 4)
    known, texts = _NAMES
    if known is not None and raw.startswith(known, start):
        return texts, at + len(known)
    (count,) = struct.unpack_from('<I', raw, at)
    at, texts = at + 4, []
    for _ in range(count):
        text, at = _string(raw, at)
        texts.append(text)
    _NAMES[:] = [raw[start:at], texts]
    return texts, at


def _doubles(raw, at):
    """(array('d'), offset after it) of the CDR sequence<double> at ``at``."""
    at = _aligned(at, 4)
    (count,) = struct.unpack_from('<I', raw, at)
    at = _aligned(at + 4, 8) if count else at + 4
    values = array('d')
    values.frombytes(raw[at:at + 8 * count])
    return values, at + 8 * count


def _header(raw):
    """(std_msgs/Header, offset after it) at the start of a message."""
    sec, nanosec = struct.unpack_from('<iI', raw, 4)
    frame_id, at = _string(raw, 12)
    return _Fields(stamp=_Fields(sec=sec, nanosec=nanosec), frame_id=frame_id), at


def _through_rclpy(module, name):
    def read(raw):
        import importlib

        from rclpy.serialization import deserialize_message
        return deserialize_message(raw, getattr(importlib.import_module(module), name))
    return read


def joint_state(raw):
    """sensor_msgs/JointState."""
    if not raw[1] & 1:
        return _through_rclpy('sensor_msgs.msg', 'JointState')(raw)
    header, at = _header(raw)
    name, at = _strings(raw, at)
    position, at = _doubles(raw, at)
    velocity, at = _doubles(raw, at)
    effort, _ = _doubles(raw, at)
    return _Fields(header=header, name=name, position=position, velocity=velocity,
                   effort=effort)


def _point(raw, at):
    """(trajectory_msgs/JointTrajectoryPoint, offset after it)."""
    fields = {}
    for field in ('positions', 'velocities', 'accelerations', 'effort'):
        fields[field], at = _doubles(raw, at)
    at = _aligned(at, 4)
    sec, nanosec = struct.unpack_from('<iI', raw, at)
    return _Fields(time_from_start=_Fields(sec=sec, nanosec=nanosec), **fields), at + 8


def controller_state(raw):
    """control_msgs/JointTrajectoryControllerState: its header, joint_names and the points
    reference, feedback, error and output (the fields every release since Humble begins
    with; the multi-DOF ones after them are not read)."""
    if not raw[1] & 1:
        return _through_rclpy('control_msgs.msg', 'JointTrajectoryControllerState')(raw)
    header, at = _header(raw)
    joint_names, at = _strings(raw, at)
    points = {}
    for field in ('reference', 'feedback', 'error', 'output'):
        points[field], at = _point(raw, at)
    return _Fields(header=header, joint_names=joint_names, **points)


#: The readers by the rclpy message class's module and name.
READERS = {
    'sensor_msgs.msg._joint_state.JointState': joint_state,
    'control_msgs.msg._joint_trajectory_controller_state.JointTrajectoryControllerState':
        controller_state,
}
