"""JointMap: chain-order extraction from JointState fields, in any order, any buffer type."""

from array import array

import numpy as np
import pytest

from robodyn_ros.control import JointMap
from robodyn_ros.errors import InputError

CHAIN = ('a', 'b', 'c')
NAMES = ['extra', 'c', 'a', 'b']  # message order: an extra joint, chain joints shuffled
POSITION = [9.0, 3.0, 1.0, 2.0]
VELOCITY = [-9.0, -3.0, -1.0, -2.0]


@pytest.mark.parametrize('kind', [list, tuple, np.array, lambda v: array('d', v)])
def test_extract_reorders_any_buffer(kind):
    """array('d') (rclpy's double[] fields), arrays, lists: the same answer."""
    q, qd = JointMap(CHAIN).extract(NAMES, kind(POSITION), kind(VELOCITY))
    np.testing.assert_array_equal(q, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(qd, [-1.0, -2.0, -3.0])


@pytest.mark.parametrize('bad', [float('nan'), float('inf'), -float('inf')])
@pytest.mark.parametrize('kind', [list, lambda v: array('d', v)])
def test_extract_rejects_non_finite_chain_values(bad, kind):
    position = list(POSITION)
    position[2] = bad  # joint 'a'
    with pytest.raises(InputError, match='non-finite'):
        JointMap(CHAIN).extract(NAMES, kind(position), kind(VELOCITY))


def test_extract_ignores_non_finite_values_of_other_joints():
    position = array('d', POSITION)
    position[0] = float('nan')  # 'extra' is not in the chain
    q, _ = JointMap(CHAIN).extract(NAMES, position, array('d', VELOCITY))
    np.testing.assert_array_equal(q, [1.0, 2.0, 3.0])


def test_extract_results_do_not_alias_between_calls():
    """The supervisor keeps the last valid state: a new state must not overwrite it."""
    joints = JointMap(CHAIN)
    q1, _ = joints.extract(NAMES, array('d', POSITION), array('d', VELOCITY))
    q2, _ = joints.extract(NAMES, array('d', [0.0] * 4), array('d', VELOCITY))
    np.testing.assert_array_equal(q1, [1.0, 2.0, 3.0])
    assert not np.shares_memory(q1, q2)


@pytest.mark.parametrize('names, position, message', [
    (['c', 'a'], [1.0, 2.0], 'lacks joints'),
    (['a', 'a', 'b', 'c'], POSITION, 'duplicate'),
    (NAMES, POSITION[:3], 'must have 4 values'),
])
def test_extract_rejects_unusable_layouts(names, position, message):
    with pytest.raises(InputError, match=message):
        JointMap(CHAIN).extract(names, array('d', position), array('d', VELOCITY[:len(names)]))


def test_reported_effort_is_chain_ordered_or_says_why_not():
    jm = JointMap(['a', 'b', 'c'])
    effort, why = jm.reported_effort(['c', 'a', 'b'], [3.0, 1.0, 2.0])
    np.testing.assert_array_equal(effort, [1.0, 2.0, 3.0])
    assert why == ''
    assert jm.reported_effort(['a', 'b', 'c'], []) == (None, 'no effort in the joint state')
    assert jm.reported_effort(['a', 'b', 'c'], [0.0] * 3) == (None, 'effort not finite or all 0')
    assert jm.reported_effort(['a', 'b', 'c'], [np.nan, 1.0, 1.0])[1] == \
        'effort not finite or all 0'
    effort, why = jm.reported_effort(['a', 'b'], [1.0, 2.0])
    assert effort is None and why.startswith('lacks joints')
