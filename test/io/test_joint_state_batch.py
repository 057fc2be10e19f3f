"""JointStateBatch directly: layouts, publishers merged by name, stamps in arrival order."""

import numpy as np

from robodyn_ros.io import JointStateBatch, encode_joint_state


def _take(messages, joints=('a', 'b')):
    batch = JointStateBatch(list(joints))
    for k, raw in enumerate(messages):
        batch.add(raw, k)
    return batch, batch.take()


def test_reordered_names_map_back_by_name():
    _, out = _take([encode_joint_state(1.0, ['a', 'b'], [1.0, 2.0]),
                    encode_joint_state(2.0, ['b', 'a'], [4.0, 3.0])])
    np.testing.assert_array_equal(out.q, [[1.0, 2.0], [3.0, 4.0]])
    assert np.isnan(out.qd).all()  # no velocities in these messages


def test_publishers_are_merged_by_name():
    batch, out = _take([encode_joint_state(1.0, ['a'], [1.0]),       # b not known yet: dropped
                        encode_joint_state(2.0, ['b'], [2.0]),
                        encode_joint_state(3.0, ['x'], [9.0]),       # another robot's: ignored
                        encode_joint_state(4.0, ['a'], [5.0])])
    np.testing.assert_array_equal(out.t, [2.0, 4.0])
    np.testing.assert_array_equal(out.q, [[1.0, 2.0], [5.0, 2.0]])
    assert batch.ignored == 2


def test_duplicates_out_of_order_and_clock_resets_in_arrival_order():
    stamps = [10.0, 10.001, 10.001, 10.002, 9.5, 10.0015, 10.003, 2.0, 2.001]
    batch, out = _take([encode_joint_state(t, ['a', 'b'], [t, 0.0]) for t in stamps])
    np.testing.assert_array_equal(out.t, [10.0, 10.001, 10.002, 10.003, 2.0, 2.001])
    assert batch.duplicates == 1 and batch.out_of_order == 2 and batch.backward_jumps == 2
    np.testing.assert_array_equal(out.arrival_t, stamps)
