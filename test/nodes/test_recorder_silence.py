"""A recorded topic that stops arriving while its publisher is still in the graph: the
recorder says so once, subscribes again, and the bag notes the stretch it lacks, which
validation names (the bag no longer looks like a complete recording of a shorter run)."""

import time

import pytest

rclpy = pytest.importorskip('rclpy')
from rclpy.parameter import Parameter  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

from robodyn_ros.io.bag_reader import BagReader  # noqa: E402
from robodyn_ros.nodes.recorder import SILENT, RecorderNode  # noqa: E402
from robodyn_ros.validation.report import _lost_in_recording  # noqa: E402

DOMAIN = 23
TOPIC = '/joint_states'


@pytest.fixture()
def recording(tmp_path):
    """(recorder, its executor, a publisher of TOPIC, the bag path) on one context."""
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=DOMAIN)
    bag = tmp_path / 'bag'
    recorder = RecorderNode(context=context, parameter_overrides=[
        Parameter('bag_path', value=str(bag)), Parameter('nice', value=0),
        Parameter('topics', value=[TOPIC]),
        Parameter('types', value=[f'{TOPIC}=sensor_msgs/msg/JointState'])])
    executor = rclpy.executors.SingleThreadedExecutor(context=context)
    executor.add_node(recorder)
    source = rclpy.create_node('silence_test_publisher', context=context)
    publisher = source.create_publisher(JointState, TOPIC, 100)
    yield recorder, executor, publisher, bag
    source.destroy_node()
    recorder.destroy_node()
    rclpy.shutdown(context=context)


def _publish_until_heard(recorder, executor, publisher, count):
    """Publish ``count`` messages 2 ms apart and spin until the recorder took them all."""
    before = recorder.heard.get(TOPIC, [0, 0, 0])[2]
    deadline = time.monotonic() + 30.0
    while publisher.get_subscription_count() < 1:
        assert time.monotonic() < deadline, 'the recorder never matched the publisher'
        recorder.spin_once(executor, 0.05)
    for _ in range(count):
        publisher.publish(JointState(name=['a'], position=[0.0]))
        time.sleep(0.002)
    while recorder.heard.get(TOPIC, [0, 0, 0])[2] < before + count:
        assert time.monotonic() < deadline, recorder.heard
        recorder.spin_once(executor, 0.05)


def test_a_silence_is_said_once_noted_in_the_bag_and_named_by_validation(recording):
    recorder, executor, publisher, bag = recording
    _publish_until_heard(recorder, executor, publisher, 20)
    last = recorder.heard[TOPIC][1]
    recorder.check_silence(last + int(0.5 * SILENT * 1e9))
    assert recorder.silent == {}, 'half the silence threshold is not a silence'
    old = recorder.subs[TOPIC]
    recorder.check_silence(last + int(1.5 * SILENT * 1e9))
    assert recorder.silent == {TOPIC: last}
    assert recorder.subs[TOPIC] is not old, 'the recorder did not subscribe again'
    recorder.check_silence(last + int(3 * SILENT * 1e9))  # said once, subscribed once
    assert recorder.silent == {TOPIC: last}
    _publish_until_heard(recorder, executor, publisher, 5)  # through the new subscription
    resumed = recorder.heard[TOPIC][1]
    assert recorder.silent == {}
    recorder.close()
    gaps = BagReader(str(bag)).recording_gaps
    silences = gaps[TOPIC]['silences']
    assert len(silences) == 1 and silences[0][0] == last and 0 < silences[0][1] <= resumed
    warnings = _lost_in_recording(gaps, last - 10**9)
    assert any(f'nothing of {TOPIC} from 1.0 s to ' in w for w in warnings), warnings


def test_a_silence_at_the_end_is_noted_as_reaching_the_end(recording):
    recorder, executor, publisher, bag = recording
    _publish_until_heard(recorder, executor, publisher, 20)
    last = recorder.heard[TOPIC][1]
    recorder.check_silence(last + int(1.5 * SILENT * 1e9))
    recorder.close()
    gaps = BagReader(str(bag)).recording_gaps
    assert gaps[TOPIC]['silences'] == [[last, None]]
    assert any('to the end of the bag' in w for w in _lost_in_recording(gaps, last)), gaps


def test_waiting_messages_or_no_publisher_is_no_silence(recording):
    recorder, executor, publisher, _ = recording
    _publish_until_heard(recorder, executor, publisher, 20)
    later = recorder.heard[TOPIC][1] + int(1.5 * SILENT * 1e9)
    recorder.check_silence(later, {TOPIC})  # a starved recorder with a backlog to take
    assert recorder.silent == {}
    publisher.destroy()
    deadline = time.monotonic() + 30.0
    while recorder.sink.count_publishers(TOPIC):
        assert time.monotonic() < deadline, 'the publisher never left the graph'
        recorder.spin_once(executor, 0.05)
    recorder.check_silence(later)  # a publisher that left: the topic simply ended
    assert recorder.silent == {}


def test_malformed_silences_in_a_bags_metadata_are_skipped():
    gaps = {'/a': {'silences': [[1, 'x'], 'bad', [3 * 10**9, None], [1, 2, 3]]},
            '/b': {'silences': 5}, '/c': 'not a summary'}
    assert _lost_in_recording(gaps, 10**9) == [
        'the recorder received nothing of /a from 2.0 s to the end of the bag although a '
        'publisher offered it: the bag does not cover that stretch of the run']
