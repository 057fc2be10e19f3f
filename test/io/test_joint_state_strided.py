"""The strided JointState decoder against the message-by-message one (io.cdr), on bytes laid
out as a recorder lays them and as it does not: runs at one spacing, lone messages, other
layouts of the same length, garbage, a message that ends the buffer."""

import numpy as np
import pytest
from rosbags.typesys import Stores, get_typestore

from robodyn_ros.io.cdr import parse_joint_state
from robodyn_ros.io.joint_state_batch import JointStateBatch
from robodyn_ros.io.joint_state_strided import MIN_RUN, decode_layout

STORE = get_typestore(Stores.ROS2_HUMBLE)
JOINT_STATE = STORE.types['sensor_msgs/msg/JointState']
HEADER = STORE.types['std_msgs/msg/Header']
TIME = STORE.types['builtin_interfaces/msg/Time']
NAMES = [f'joint_{i}' for i in range(7)]


def _message(rng, names, sec, nanosec):
    k = len(names)
    msg = JOINT_STATE(header=HEADER(stamp=TIME(sec=sec, nanosec=nanosec), frame_id='base'),
                      name=names, position=rng.normal(size=k), velocity=rng.normal(size=k),
                      effort=rng.normal(size=k))
    return bytes(STORE.serialize_cdr(msg, JOINT_STATE.__msgtype__))


def _bytes(rng, count, spacing):
    """Messages of one length at ``spacing(i)`` padding bytes each: (data, starts, kinds)
    with kind 0 the layout decoded, 1 the names reversed, 2 garbage of the same length."""
    parts, starts, kinds, at = [], [], [], 0
    size = len(_message(rng, NAMES, 0, 0))
    for i in range(count):
        kind = int(rng.choice(3, p=[0.85, 0.1, 0.05]))
        if kind == 0:
            raw = _message(rng, NAMES, int(rng.integers(-2**31, 2**31)),
                           int(rng.integers(0, 10**9)))
        elif kind == 1:
            raw = _message(rng, NAMES[::-1], 1, 2)
        else:
            raw = rng.integers(0, 256, size, dtype=np.uint8).tobytes()
        pad = spacing(i)
        parts.append(b'\0' * pad)
        at += pad
        starts.append(at)
        parts.append(raw)
        at += len(raw)
        kinds.append(kind)
    return np.frombuffer(b''.join(parts), np.uint8), np.array(starts), np.array(kinds), size


@pytest.mark.parametrize('spacing', ['even', 'runs', 'ragged'])
def test_decodes_what_the_message_by_message_decoder_reads(spacing):
    rng = np.random.default_rng(7)
    pads = dict(even=lambda i: 40, runs=lambda i: 40 if (i // 50) % 2 else 8,
                ragged=lambda i: int(rng.integers(0, 9)))[spacing]
    data, starts, kinds, size = _bytes(rng, 600, pads)
    layout = JointStateBatch(None)._layout(data[starts[np.argmax(kinds == 0)]:][:size]
                                           .tobytes())
    order = rng.permutation(len(starts)) if spacing == 'ragged' else np.arange(len(starts))
    match, t, values = decode_layout(data, starts[order], size, layout.key, layout.counts,
                                     [off for off, _ in layout.offsets], len(NAMES))
    np.testing.assert_array_equal(match, kinds[order] == 0)
    for i in np.flatnonzero(match):
        s = starts[order][i]
        stamp, names, *arrays = parse_joint_state(data[s:s + size].tobytes())
        assert names == tuple(NAMES)
        assert t[i] == stamp  # to the bit: sec + nanosec * 1e-9 as numpy sums them
        for b in range(3):
            np.testing.assert_array_equal(values[b, i], arrays[b])


def test_short_runs_are_gathered_and_a_message_may_end_the_buffer():
    rng = np.random.default_rng(3)
    data, starts, kinds, size = _bytes(rng, MIN_RUN - 1, lambda i: int(rng.integers(0, 3)))
    assert starts[-1] + size == len(data)
    first = np.argmax(kinds == 0)
    layout = JointStateBatch(None)._layout(data[starts[first]:starts[first] + size].tobytes())
    match, _, values = decode_layout(data, starts, size, layout.key, layout.counts,
                                     [layout.offsets[0][0], None, layout.offsets[2][0]],
                                     len(NAMES))
    np.testing.assert_array_equal(match, kinds == 0)
    assert np.isnan(values[1][match]).all()  # an array left out reads NaN
