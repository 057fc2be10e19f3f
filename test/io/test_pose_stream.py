"""A recorded stream of pose targets (io/pose_stream.py): the poses, frames and receive times
as written, the topic found when the bag has one PoseStamped or one *target_pose topic, and
one clear line when it cannot be found or holds no pose."""

import numpy as np
import pytest
from rosbags.typesys import Stores, get_typestore

from robodyn_ros.errors import BagError
from robodyn_ros.io.bag_writer import BagWriter
from robodyn_ros.io.pose_stream import read_pose_stream

STORE = get_typestore(Stores.ROS2_KILTED)
POSE = 'geometry_msgs/msg/PoseStamped'
TOPIC = '/robodyn_controller/target_pose'


def _pose(point, quaternion, frame):
    types = STORE.types
    header = types['std_msgs/msg/Header'](types['builtin_interfaces/msg/Time'](0, 0), frame)
    pose = types['geometry_msgs/msg/Pose'](types['geometry_msgs/msg/Point'](*point),
                                           types['geometry_msgs/msg/Quaternion'](*quaternion))
    return STORE.serialize_cdr(types[POSE](header, pose), POSE)


def _bag(path, topics=(TOPIC,), count=5):
    writer = BagWriter(str(path), 'mcap')
    for topic in topics:
        writer.add_topic(topic, POSE)
    for k in range(count):
        for topic in topics:
            writer.write(topic, 10_000_000_000 + k * 100_000_000,
                         _pose((0.3 + 0.01 * k, 0.0, 0.5), (1.0, 0.0, 0.0, 0.0),
                               'panda_link0' if k else ''))
    writer.close()
    return str(path)


def test_the_stream_holds_the_poses_frames_and_times_as_recorded(tmp_path):
    stream = read_pose_stream(_bag(tmp_path / 'bag'))
    assert stream.topic == TOPIC
    np.testing.assert_allclose(stream.times, [0.0, 0.1, 0.2, 0.3, 0.4], atol=1e-12)
    np.testing.assert_allclose(stream.positions[:, 0], [0.3, 0.31, 0.32, 0.33, 0.34])
    np.testing.assert_array_equal(stream.quaternions[2], [1.0, 0.0, 0.0, 0.0])
    assert stream.frame_ids == ('', 'panda_link0', 'panda_link0', 'panda_link0',
                                'panda_link0')


def test_a_bag_with_two_pose_topics_asks_for_one(tmp_path):
    path = _bag(tmp_path / 'bag', topics=('/a/pose', '/b/pose'))
    with pytest.raises(BagError, match='2 PoseStamped topics.*name one'):
        read_pose_stream(path)
    assert read_pose_stream(path, '/b/pose').topic == '/b/pose'


def test_a_missing_topic_or_an_empty_one_is_one_line(tmp_path):
    path = _bag(tmp_path / 'bag')
    with pytest.raises(BagError, match="'/nowhere' is not in the bag"):
        read_pose_stream(path, '/nowhere')
    with pytest.raises(BagError, match='no poses'):
        read_pose_stream(_bag(tmp_path / 'empty', count=0))
