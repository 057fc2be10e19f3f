"""ros2_control_probe: the log that decodes a topic only when it is read, the readers' thread
that takes every message with its writer's sequence number."""

import time

import pytest

serialization = pytest.importorskip('rclpy.serialization', reason='needs the ROS 2 wheels')
from ros2_control_probe import _Decoded  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

#: This module's own ROS domain.
DOMAIN = 113


def _state(sec, nanosec):
    msg = JointState(name=['a'], position=[0.5], velocity=[0.0], effort=[1.0])
    msg.header.stamp.sec, msg.header.stamp.nanosec = sec, nanosec
    return serialization.serialize_message(msg)


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
        arriving = probe.arriving('/probe_test')
        for sent in range(400):
            msg = JointState(name=['a'], position=[float(sent)])
            msg.header.stamp.sec = sent
            writer.publish(msg)
            probe.spin(0.01)
        deadline = time.monotonic() + 30.0
        while time.monotonic() < deadline and not _all_numbered(probe):
            probe.spin(0.1)
        rows = probe.numbered('/probe_test')
        arrived, again = arriving(), arriving()
    finally:
        probe.close()
        node.destroy_node()
        rclpy.try_shutdown(context=context)
    numbered = [(n, m.header.stamp.sec) for _, n, m in rows if n is not None]
    assert len(numbered) >= 10, f'{len(rows)} received, {len(numbered)} numbered'
    # the writer numbers its messages 1, 2, ...: the number follows the message it came with
    assert all(n == sec + 1 for n, sec in numbered), numbered[:5]
    assert probe.latest_stamp('/probe_test') == rows[-1][2].header.stamp.sec
    assert [m.header.stamp.sec for _, m in arrived] == [m.header.stamp.sec for _, _, m in rows]
    assert again == []


def _all_numbered(probe):
    rows = probe.numbered('/probe_test')
    return bool(rows) and rows[-1][2].header.stamp.sec == 399 and \
        all(n is not None for _, n, _ in rows[-10:])
