"""The chunk-at-a-time MCAP reader against rosbags' message-by-message one: the same
messages in the same order, the same validation to the bit, damage refused."""

import json

import numpy as np
import pytest

from robodyn_ros.errors import BagError
from robodyn_ros.io import BagWriter, JointStateBatch, encode_joint_state
from robodyn_ros.io.bag_reader import BagReader
from robodyn_ros.io.cdr import Float64MultiArrayWriter
from robodyn_ros.validation.validate import validate_bag

STATES, REFERENCE, COMMANDS = ('/joint_states', '/robodyn_controller/reference',
                               '/effort_controller/commands')
NAMES = ['a', 'b', 'c']


def _launch_like_bag(path, steps=3000, chunk_every=97):
    """States (names reordered now and then, some unstamped, one partial publisher),
    references written a little after the states they bracket (so chunks overlap in time),
    effort commands; a chunk closed every ``chunk_every`` steps."""
    writer, encode = BagWriter(path), Float64MultiArrayWriter(3)
    for topic, kind in ((STATES, 'sensor_msgs/msg/JointState'),
                        (REFERENCE, 'sensor_msgs/msg/JointState'),
                        (COMMANDS, 'std_msgs/msg/Float64MultiArray')):
        writer.add_topic(topic, kind)
    for k in range(steps):
        t = 5.0 + k * 1e-3
        q = np.array([0.3 * np.sin(t), 0.2 * np.cos(2 * t), 0.1 * t])
        err = np.array([0.0, 1e-3 * np.sin(40 * t), 0.0])
        writer.write(REFERENCE, int((t + 4e-4) * 1e9),
                     encode_joint_state(t + 4e-4, NAMES, q, np.zeros(3), np.zeros(3)))
        order = [2, 0, 1] if k % 7 == 3 else [0, 1, 2]
        stamp = 0.0 if k % 50 == 11 else t
        writer.write(STATES, int(t * 1e9) + 1000,
                     encode_joint_state(stamp, [NAMES[i] for i in order], (q - err)[order],
                                        np.zeros(3), np.zeros(3)))
        if k % 13 == 5:  # a second publisher carrying one joint
            writer.write(STATES, int(t * 1e9) + 2000, encode_joint_state(t, ['c'], [q[2]]))
        writer.write(COMMANDS, int(t * 1e9) + 3000, encode([np.sin(t), k * 1e-3, 0.0]))
        if k % chunk_every == chunk_every - 1:
            writer.flush()  # closes the chunk
    writer.close()


def _both_ways(bag, tmp_path, monkeypatch):
    fast = validate_bag(bag, out_dir=str(tmp_path / 'fast'), plots=False)
    with monkeypatch.context() as patch:
        patch.setattr(BagReader, 'chunks', lambda self, topics: None)
        slow = validate_bag(bag, out_dir=str(tmp_path / 'slow'), plots=False)
    return fast, slow


def _same(fast, slow):
    fast, slow = dict(fast), dict(slow)
    fast.pop('out_dir'), slow.pop('out_dir')
    assert json.dumps(fast, sort_keys=True, default=str) == \
        json.dumps(slow, sort_keys=True, default=str)


def test_validation_reads_chunks_and_agrees_to_the_bit(tmp_path, monkeypatch):
    bag = str(tmp_path / 'bag')
    _launch_like_bag(bag)
    with BagReader(bag) as reader:
        assert reader.chunks([STATES]) is not None  # the chunk path is the one taken
    fast, slow = _both_ways(bag, tmp_path, monkeypatch)
    _same(fast, slow)
    assert fast['joints']['b']['rms'] == pytest.approx(1e-3 / np.sqrt(2), rel=0.02)
    assert fast['torque']['messages'] == 3000


def test_messages_come_in_rosbags_order_across_overlapping_chunks(tmp_path):
    bag = str(tmp_path / 'bag')
    _launch_like_bag(bag, steps=600, chunk_every=5)
    with BagReader(bag) as reader:
        topics = [STATES, REFERENCE, COMMANDS]
        expected = [(topic, stamp, bytes(raw)) for topic, _, stamp, raw
                    in reader.messages(topics)]
        got = []
        for ids, chunk in reader.chunks(topics):
            for c, s, n, t in zip(chunk.channel, chunk.start, chunk.length, chunk.log_time):
                got.append((ids[int(c)], int(t), chunk.data[s:s + n].tobytes()))
    assert got == expected


def test_a_zstd_compressed_bag_reads_the_same(tmp_path, monkeypatch):
    from rosbags.rosbag2 import Reader, StoragePlugin, Writer
    from rosbags.rosbag2.enums import CompressionFormat, CompressionMode
    plain = str(tmp_path / 'plain')
    _launch_like_bag(plain, steps=800)
    packed = tmp_path / 'packed'
    with Reader(plain) as source:
        writer = Writer(packed, version=9, storage_plugin=StoragePlugin.MCAP)
        writer.set_compression(CompressionMode.STORAGE, CompressionFormat.ZSTD)
        writer.open()
        conns = {c.id: writer.add_connection(c.topic, c.msgtype, msgdef=c.msgdef.data,
                                             rihs01=c.digest) for c in source.connections}
        for conn, stamp, raw in source.messages():
            writer.write(conns[conn.id], stamp, raw)
        writer.close()
    with BagReader(packed) as reader:
        assert reader.chunks([STATES]) is not None
    fast, slow = _both_ways(str(packed), tmp_path, monkeypatch)
    _same(fast, slow)


def test_a_damaged_index_is_a_bag_error(tmp_path):
    bag = tmp_path / 'bag'
    _launch_like_bag(str(bag), steps=300)
    mcap = next(bag.glob('*.mcap'))
    data = bytearray(mcap.read_bytes())
    at = data.index(b'\x07', data.index(b'\x06', 8) + 9)  # a MessageIndex after a chunk
    while data[at] != 0x07 or data[at + 9] not in (1, 2, 3):
        at = data.index(b'\x07', at + 1)
    data[at + 9 + 2 + 4 + 8:at + 9 + 2 + 4 + 16] = (10**9).to_bytes(8, 'little')  # offset
    mcap.write_bytes(bytes(data))
    with BagReader(bag) as reader, pytest.raises(BagError, match='1 of .* unreadable'):
        for _ in reader.chunks([STATES, REFERENCE, COMMANDS]):
            pass


def test_add_many_is_add_one_by_one():
    raws = [encode_joint_state(1.0 + k * 1e-3, names, values, [0.5] * len(names))
            for k, (names, values) in enumerate(
                [(['a', 'b'], [1.0, 2.0]), (['b', 'a'], [4.0, 3.0]), (['a'], [5.0]),
                 (['a', 'b'], [6.0, 7.0]), (['x'], [9.0]), (['a', 'b'], [8.0, 9.0])] * 5)]
    stamps = np.arange(len(raws), dtype=np.int64) * 1000
    one = JointStateBatch(['a', 'b'])
    for raw, t in zip(raws, stamps):
        one.add(raw, int(t))
    data = np.frombuffer(b''.join(raws) + bytes(3), np.uint8)
    start = np.cumsum([0] + [len(r) for r in raws[:-1]])
    many = JointStateBatch(['a', 'b'])
    many.add_many(data, start, np.array([len(r) for r in raws]), stamps)
    a, b = one.take(), many.take()
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert one.ignored == many.ignored
