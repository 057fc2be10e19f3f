"""ros2_control_probe: the stamp read from a message's bytes, and the log that decodes a
topic only when it is read."""

import time

import numpy as np
import pytest

serialization = pytest.importorskip('rclpy.serialization', reason='needs the ROS 2 wheels')
from ros2_control_probe import _Decoded, header_stamp  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

#: This module's own ROS domain.
DOMAIN = 113


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


def test_reading_one_topic_decodes_that_topic_only():
    raw = {'/a': (JointState, [(1.0, _state(1, 0))]), '/b': (JointState, [(2.0, _state(2, 0))])}
    decoded = {'/a': [], '/b': []}
    log = _Decoded(raw, decoded)
    assert [m.header.stamp.sec for _, m in log['/a']] == [1]
    assert decoded['/b'] == []
    raw['/a'][1].append((3.0, _state(3, 0)))
    assert [t for t, _ in log['/a']] == [1.0, 3.0]
    assert sorted(log) == ['/a', '/b'] and len(log) == 2


@pytest.mark.integration
def test_numbered_messages_carry_the_writers_sequence_numbers():
    import rclpy
    from ros2_control_probe import Probe
    probe = Probe(DOMAIN)
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=DOMAIN)
    node = rclpy.create_node('probe_test_writer', context=context)
    try:
        writer = node.create_publisher(JointState, '/probe_test', 100)
        probe.record('/probe_test', JointState, depth=100)
        probe.number('/probe_test', JointState, depth=100)
        for sent in range(400):
            msg = JointState(name=['a'], position=[float(sent)])
            msg.header.stamp.sec = sent
            writer.publish(msg)
            probe.spin(0.01)
        deadline = time.monotonic() + 30.0
        while time.monotonic() < deadline and not _all_numbered(probe):
            probe.spin(0.1)
        rows = probe.numbered('/probe_test')
    finally:
        probe.close()
        node.destroy_node()
        rclpy.try_shutdown(context=context)
    numbered = [(n, m.header.stamp.sec) for _, n, m in rows if n is not None]
    assert len(numbered) >= 10, f'{len(rows)} received, {len(numbered)} numbered'
    # the writer numbers its messages 1, 2, ...: the number follows the message it came with
    assert all(n == sec + 1 for n, sec in numbered), numbered[:5]
    assert probe.latest_stamp('/probe_test') == rows[-1][2].header.stamp.sec


def _all_numbered(probe):
    rows = probe.numbered('/probe_test')
    return bool(rows) and rows[-1][2].header.stamp.sec == 399 and \
        all(n is not None for _, n, _ in rows[-10:])


def test_a_joint_state_read_by_the_probe_is_the_one_rclpy_reads():
    from ros2_control_probe import joint_state
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
        ours, theirs = joint_state(raw), serialization.deserialize_message(raw, JointState)
        if k % 2:  # a stream repeats its names: the second read takes them as known
            msg.header.stamp.nanosec += 1
            raw = serialization.serialize_message(msg)
            ours, theirs = joint_state(raw), serialization.deserialize_message(raw, JointState)
        assert (ours.header.stamp.sec, ours.header.stamp.nanosec, ours.header.frame_id,
                list(ours.name)) == (theirs.header.stamp.sec, theirs.header.stamp.nanosec,
                                     theirs.header.frame_id, list(theirs.name))
        for field in ('position', 'velocity', 'effort'):
            assert list(getattr(ours, field)) == list(getattr(theirs, field)), (k, field)
