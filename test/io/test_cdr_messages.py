"""io/cdr_messages: each reader gives what rclpy's deserialize_message gives."""

import numpy as np
import pytest

serialization = pytest.importorskip('rclpy.serialization', reason='needs the ROS 2 wheels')
control_msgs = pytest.importorskip('control_msgs', reason='control_msgs comes from '
                                   '../shared/wheels (see scripts/setup.sh)')
from control_msgs.msg import JointTrajectoryControllerState  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from trajectory_msgs.msg import JointTrajectoryPoint  # noqa: E402

from robodyn_ros.errors import BagError  # noqa: E402
from robodyn_ros.io.cdr_messages import (  # noqa: E402
    header_stamp,
    read_controller_state,
    read_joint_state,
)


def _state(sec, nanosec):
    msg = JointState(name=['a'], position=[0.5], velocity=[0.0], effort=[1.0])
    msg.header.stamp.sec, msg.header.stamp.nanosec = sec, nanosec
    return serialization.serialize_message(msg)


def test_the_stamp_read_from_the_bytes_is_the_decoded_one():
    for sec, nanosec in ((0, 0), (1764450000, 999999999), (-3, 250000000)):
        raw = _state(sec, nanosec)
        decoded = serialization.deserialize_message(raw, JointState).header.stamp
        assert header_stamp(raw) == decoded.sec + 1e-9 * decoded.nanosec


def test_a_big_endian_message_is_read_as_one():
    raw = bytes([0, 0, 0, 0]) + (7).to_bytes(4, 'big') + (5).to_bytes(4, 'big')
    assert header_stamp(raw) == 7 + 5e-9


def test_a_joint_state_read_by_the_probe_is_the_one_rclpy_reads():
    rng = np.random.default_rng(3)
    for k in range(300):
        n = int(rng.integers(0, 9))
        msg = JointState(name=[('j' * int(rng.integers(1, 12))) + str(i) for i in range(n)])
        msg.header.frame_id = 'f' * int(rng.integers(0, 9))
        msg.header.stamp.sec, msg.header.stamp.nanosec = int(rng.integers(-9, 9)), k
        for field in ('position', 'velocity', 'effort'):
            if rng.random() < 0.7:  # a driver may leave a field empty
                setattr(msg, field, list(rng.normal(size=n)))
        raw = serialization.serialize_message(msg)
        ours, theirs = read_joint_state(raw), serialization.deserialize_message(raw, JointState)
        if k % 2:  # a stream repeats its names: the second read takes them as known
            msg.header.stamp.nanosec += 1
            raw = serialization.serialize_message(msg)
            ours = read_joint_state(raw)
            theirs = serialization.deserialize_message(raw, JointState)
        assert (ours.header.stamp.sec, ours.header.stamp.nanosec, ours.header.frame_id,
                list(ours.name)) == (theirs.header.stamp.sec, theirs.header.stamp.nanosec,
                                     theirs.header.frame_id, list(theirs.name))
        for field in ('position', 'velocity', 'effort'):
            assert list(getattr(ours, field)) == list(getattr(theirs, field)), (k, field)


def _random_point(rng, n):
    point = JointTrajectoryPoint()
    for field in ('positions', 'velocities', 'accelerations', 'effort'):
        if rng.random() < 0.7:
            setattr(point, field, list(rng.normal(size=n)))
    point.time_from_start.sec, point.time_from_start.nanosec = int(rng.integers(0, 9)), 7
    return point


def test_a_controller_state_read_by_the_probe_is_the_one_rclpy_reads():
    rng = np.random.default_rng(4)
    for k in range(200):
        n = int(rng.integers(0, 8))
        msg = JointTrajectoryControllerState(joint_names=[f'joint_{i}' * (k % 3 + 1)
                                                          for i in range(n)])
        msg.header.stamp.sec, msg.header.stamp.nanosec = k, 3 * k
        msg.header.frame_id = 'x' * (k % 5)
        for field in ('reference', 'feedback', 'error', 'output'):
            setattr(msg, field, _random_point(rng, n))
        msg.multi_dof_joint_names = ['after'] * (k % 2)  # fields after the four: not read
        raw = serialization.serialize_message(msg)
        ours = read_controller_state(raw)
        theirs = serialization.deserialize_message(raw, JointTrajectoryControllerState)
        assert header_stamp(raw) == k + 3e-9 * k
        assert (ours.header.stamp.sec, ours.header.frame_id, list(ours.joint_names)) == \
            (theirs.header.stamp.sec, theirs.header.frame_id, list(theirs.joint_names))
        for field in ('reference', 'feedback', 'error', 'output'):
            a, b = getattr(ours, field), getattr(theirs, field)
            for part in ('positions', 'velocities', 'accelerations', 'effort'):
                assert list(getattr(a, part)) == list(getattr(b, part)), (k, field, part)
            assert (a.time_from_start.sec, a.time_from_start.nanosec) == \
                (b.time_from_start.sec, b.time_from_start.nanosec)


def test_a_truncated_or_big_endian_message_is_refused_in_one_error():
    raw = _state(1, 2)
    for bad in (raw[:len(raw) - 3], raw[:20], b'\x00\x00' + raw[2:]):
        with pytest.raises(BagError):
            read_joint_state(bad)
