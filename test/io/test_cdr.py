"""CDR codecs against rosbags' generic serializer: whole messages, fixed layouts read in
place, and the reused-buffer writers the controller publishes with."""

from hypothesis import given, settings
from hypothesis import strategies as st
import numpy as np
import pytest

from robodyn_ros.errors import BagError
from robodyn_ros.io import typestore
from robodyn_ros.io.cdr import (
    Float64MultiArrayWriter,
    JointStateLayout,
    JointStateWriter,
    check_joint_trajectory_size,
    encode_joint_state,
    parse_joint_state,
    parse_joint_trajectory,
    stamp_parts,
)

JOINT_STATE = 'sensor_msgs/msg/JointState'
_names = st.lists(st.text(st.characters(codec='utf-8', exclude_characters='\0'), max_size=9),
                  max_size=8)
_values = st.lists(st.floats(allow_nan=False), max_size=8)


def _rosbags_joint_state(stamp, names, position, velocity, effort, frame_id=''):
    ts = typestore()
    cls = ts.types[JOINT_STATE]
    header = ts.types['std_msgs/msg/Header'](
        stamp=ts.types['builtin_interfaces/msg/Time'](*stamp_parts(stamp)), frame_id=frame_id)
    msg = cls(header=header, name=list(names), position=np.array(position, dtype=float),
              velocity=np.array(velocity, dtype=float), effort=np.array(effort, dtype=float))
    return bytes(ts.serialize_cdr(msg, JOINT_STATE))


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 2e9), _names, _values, _values, _values,
       st.text(st.characters(codec='utf-8', exclude_characters='\0'), max_size=5))
def test_layout_reads_what_the_generic_serializer_wrote(stamp, names, pos, vel, eff, frame):
    raw = _rosbags_joint_state(stamp, names, pos, vel, eff, frame)
    layout = JointStateLayout(raw)
    assert layout.matches(raw) and layout.names == tuple(names)
    assert layout.stamp(raw) == pytest.approx(stamp, abs=1e-9)
    for got, want in zip(layout.values(raw), (pos, vel, eff)):
        np.testing.assert_array_equal(got, want)
    assert layout.packed == (len(pos) == len(vel) == len(names))
    if layout.packed and names:
        for offset, want in zip(layout.offsets, (pos, vel)):
            np.testing.assert_array_equal(np.frombuffer(raw, '<f8', len(names), offset), want)
    assert parse_joint_state(raw)[1] == tuple(names)


def test_a_message_with_another_layout_does_not_match():
    raw = encode_joint_state(1.0, ['ab', 'c'], [1.0, 2.0], [3.0, 4.0])
    layout = JointStateLayout(raw)
    assert layout.matches(encode_joint_state(7.5, ['ab', 'c'], [5.0, 6.0], [7.0, 8.0]))
    others = [encode_joint_state(1.0, ['ab', 'd'], [1.0, 2.0], [3.0, 4.0]),  # same length
              encode_joint_state(1.0, ['c', 'ab'], [1.0, 2.0], [3.0, 4.0]),
              encode_joint_state(1.0, ['ab', 'c'], [1.0, 2.0], [], [3.0, 4.0]),
              encode_joint_state(1.0, ['ab', 'c'], [1.0, 2.0], [3.0, 4.0], frame_id='w'),
              raw[:-8]]
    assert not any(layout.matches(other) for other in others)


@pytest.mark.parametrize('raw, words', [
    (b'\x00\x01\x00\x00' + b'\x00' * 4, 'encapsulation'),
    (b'\x00\x00\x00\x00' + b'\x00' * 40, 'big-endian'),
    (encode_joint_state(1.0, ['a', 'b'], [1.0, 2.0], [3.0, 4.0])[:-4], 'truncated'),
    (encode_joint_state(1.0, ['a'], [1.0])[:14] + b'\xff' * 30, 'exceeds'),
])
def test_malformed_bytes_are_one_bag_error(raw, words):
    with pytest.raises(BagError, match=words):
        JointStateLayout(raw)


@given(st.floats(0, 2e9), st.lists(st.text(st.characters(codec='utf-8',
                                                          exclude_characters='\0'),
                                            max_size=9), min_size=1, max_size=8), st.data())
@settings(max_examples=100, deadline=None)
def test_writers_write_what_the_generic_deserializer_reads(stamp, names, data):
    n = len(names)
    q, qd, tau = (np.array(data.draw(st.lists(st.floats(allow_nan=False), min_size=n,
                                               max_size=n))) for _ in range(3))
    writer = JointStateWriter(names)
    writer(0, 0, qd, tau, q)  # the buffer is reused: earlier values leave no trace
    raw = writer(*stamp_parts(stamp), q, qd, tau)
    msg = typestore().deserialize_cdr(raw, JOINT_STATE)
    assert (msg.header.stamp.sec, msg.header.stamp.nanosec) == stamp_parts(stamp)
    assert msg.name == names
    for got, want in zip((msg.position, msg.velocity, msg.effort), (q, qd, tau)):
        np.testing.assert_array_equal(got, want)
    command = typestore().deserialize_cdr(Float64MultiArrayWriter(n)(tau),
                                          'std_msgs/msg/Float64MultiArray')
    np.testing.assert_array_equal(command.data, tau)
    assert list(command.layout.dim) == [] and command.layout.data_offset == 0


def test_stamp_parts_carry_into_seconds():
    assert stamp_parts(1.9999999999) == (2, 0)
    assert stamp_parts(3.25) == (3, 250_000_000)


def _trajectory_bytes(names, points):
    ts = typestore()
    point = ts.types['trajectory_msgs/msg/JointTrajectoryPoint']
    duration = ts.types['builtin_interfaces/msg/Duration']
    header = ts.types['std_msgs/msg/Header'](
        stamp=ts.types['builtin_interfaces/msg/Time'](0, 0), frame_id='')
    empty = np.zeros(0)
    msg = ts.types['trajectory_msgs/msg/JointTrajectory'](
        header=header, joint_names=list(names), points=[
            point(positions=np.full(len(names), 0.1 * i), velocities=empty,
                  accelerations=empty, effort=empty, time_from_start=duration(i + 1, 0))
            for i in range(points)])
    return bytes(ts.serialize_cdr(msg, 'trajectory_msgs/msg/JointTrajectory'))


def test_trajectory_size_is_checked_from_the_counts_alone():
    names = [f'j{i}' for i in range(7)]
    raw = _trajectory_bytes(names, 5)
    check_joint_trajectory_size(raw, 5, 7)  # within both bounds: no error
    assert len(parse_joint_trajectory(raw, 5, 7).points) == 5
    with pytest.raises(BagError, match='6 points, more than max_trajectory_points'):
        check_joint_trajectory_size(_trajectory_bytes(names, 6), 5, 7)
    with pytest.raises(BagError, match='8 names'):
        check_joint_trajectory_size(_trajectory_bytes(names + ['j7'], 1), 5, 7)
    with pytest.raises(BagError, match='exceeds the message'):
        check_joint_trajectory_size(raw[:30], 5, 7)
    # The points are not decoded: a message cut in its last point passes the count check
    # (parse_joint_trajectory, which decodes them, refuses it).
    cut = _trajectory_bytes(names, 20)[:-100]
    check_joint_trajectory_size(cut, 20, 7)
    with pytest.raises(BagError, match='truncated or corrupt|exceeds the message'):
        parse_joint_trajectory(cut, 20, 7)


_fields = st.sampled_from([(), (0.5,), (0.5, 1.5), (0.5, 1.5, -2.0)])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.lists(st.tuples(_fields, _fields, st.integers(-3, 3),
                                             st.integers(0, 999_999_999)),
                                   min_size=1, max_size=12),
       st.booleans())
def test_trajectory_points_read_as_rosbags_writes_them(width, shapes, uniform):
    """Points with equal array lengths are read all at once (strided), others one at a
    time: both give what rosbags' serializer wrote, whichever the layout and padding."""
    ts = typestore()
    point = ts.types['trajectory_msgs/msg/JointTrajectoryPoint']
    duration = ts.types['builtin_interfaces/msg/Duration']
    header = ts.types['std_msgs/msg/Header'](
        stamp=ts.types['builtin_interfaces/msg/Time'](0, 0), frame_id='f')
    if uniform:  # velocities everywhere: each point a multiple of 8 bytes, read at once
        shapes = [((0.5, 1.5, -2.0), shapes[0][1]) + s[2:] for s in shapes]
    values = np.arange(1.0, width + 1.0)
    points = [point(positions=values * (i + 1), velocities=np.array(v[:width]),
                    accelerations=np.array(a[:width]), effort=np.zeros(0),
                    time_from_start=duration(sec, nanosec))
              for i, (v, a, sec, nanosec) in enumerate(shapes)]
    names = [f'j{i}' for i in range(width)]
    msg = ts.types['trajectory_msgs/msg/JointTrajectory'](header=header, joint_names=names,
                                                          points=points)
    raw = bytes(ts.serialize_cdr(msg, 'trajectory_msgs/msg/JointTrajectory'))
    parsed = parse_joint_trajectory(raw, len(points), width)
    assert parsed.joint_names == names
    assert len(parsed.points) == len(points)
    for got, want in zip(parsed.points, points):
        for field in ('positions', 'velocities', 'accelerations', 'effort'):
            assert np.array_equal(getattr(got, field), getattr(want, field)), field
        assert (got.time_from_start.sec, got.time_from_start.nanosec) == \
            (want.time_from_start.sec, want.time_from_start.nanosec)
