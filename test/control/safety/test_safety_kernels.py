"""Compiled per-cycle steps: gathering a packed JointState's values by index."""

import numpy as np
import pytest

from robodyn_ros.control.safety.kernels import gather_packed
from robodyn_ros.io.cdr import JointStateLayout, encode_joint_state

RAW = encode_joint_state(1.0, ['a', 'b', 'c'], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0])
P, V = JointStateLayout(RAW).offsets


def _gather(position_offset=P, velocity_offset=V, count=3, index=(2, 0)):
    q, qd = np.zeros(len(index)), np.zeros(len(index))
    ok = gather_packed(RAW, position_offset, velocity_offset, count, np.array(index), q, qd)
    return ok, q, qd


def test_values_are_gathered_by_index_from_their_offsets():
    ok, q, qd = _gather()
    assert ok
    np.testing.assert_array_equal(q, [3.0, 1.0])
    np.testing.assert_array_equal(qd, [6.0, 4.0])


@pytest.mark.parametrize('args', [dict(velocity_offset=len(RAW) - 16), dict(position_offset=-8),
                                  dict(count=40), dict(index=(3, 0)), dict(index=(-1, 0))])
def test_nothing_is_read_outside_the_values(args):
    assert not _gather(**args)[0]


def test_non_finite_values_are_refused():
    raw = encode_joint_state(1.0, ['a', 'b'], [1.0, np.inf], [0.0, 0.0])
    p, v = JointStateLayout(raw).offsets
    q = np.zeros(2)
    assert not gather_packed(raw, p, v, 2, np.array([0, 1]), q, q.copy())
    assert gather_packed(raw, p, v, 2, np.array([0]), q[:1], q[:1].copy())
