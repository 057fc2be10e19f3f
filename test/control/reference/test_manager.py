"""The reference manager: when a trajectory converted off the control thread starts."""

from types import SimpleNamespace

import numpy as np
import pytest

from robodyn_ros.control import JointMap
from robodyn_ros.control.reference.manager import ReferenceManager
from robodyn_ros.errors import InputError

NAMES = ['a', 'b']
Q0 = np.array([0.1, -0.2])


def _msg(t, positions, velocities):
    point = SimpleNamespace(positions=list(positions), velocities=list(velocities),
                            accelerations=[],
                            time_from_start=SimpleNamespace(sec=int(t),
                                                            nanosec=int(round(t % 1 * 1e9))))
    return SimpleNamespace(joint_names=list(NAMES), points=[point])


def _manager():
    return ReferenceManager(JointMap(NAMES), [-3.0, -3.0], [3.0, 3.0])


GOAL = _msg(1.0, Q0 + [0.2, 0.1], [0.0, 0.0])


def test_a_goal_from_a_hold_starts_when_adopted_however_late():
    """Converted at 10.0 s, adopted at 10.08 s (a loaded machine): the reference leaves the
    held point at 10.08 s from rest, as JointTrajectoryController starts at its first update,
    and reaches the point 1 s after that."""
    manager = _manager()
    manager.hold(Q0, 5.0)
    prepared = manager.prepare(GOAL, 10.0)
    manager.adopt(prepared, 10.08)
    q, qd, _ = manager(10.08)
    np.testing.assert_allclose(q, Q0, atol=1e-15)
    np.testing.assert_allclose(qd, 0.0, atol=1e-15)
    np.testing.assert_allclose(manager(11.08)[0], Q0 + [0.2, 0.1], atol=1e-12)
    assert manager(11.07)[0][0] < Q0[0] + 0.2 - 1e-6


def _following_goal():
    """A manager following GOAL from 1.0 s (moving until 2.0 s, then still)."""
    manager = _manager()
    manager.hold(Q0, 0.0)
    manager.adopt(manager.prepare(GOAL, 1.0), 1.0)
    return manager


def test_a_goal_from_a_finished_trajectory_starts_when_adopted():
    manager = _following_goal()
    prepared = manager.prepare(_msg(1.0, Q0, [0.0, 0.0]), 3.0)
    manager.adopt(prepared, 3.05)
    assert manager.t0 == 3.05
    np.testing.assert_allclose(manager(3.05)[1], 0.0, atol=1e-15)


def test_a_goal_from_a_moving_reference_keeps_its_conversion_time():
    """The point it starts from moved on with the reference it replaces: starting later
    would put it back where the arm was at conversion."""
    manager = _following_goal()
    prepared = manager.prepare(_msg(2.0, Q0, [0.0, 0.0]), 1.5)
    manager.adopt(prepared, 1.55)
    assert manager.t0 == 1.5


def test_a_goal_whose_start_was_replaced_is_refused():
    manager = _manager()
    manager.hold(Q0, 0.0)
    prepared = manager.prepare(GOAL, 1.0)
    manager.hold(Q0 + 0.01, 1.01)
    with pytest.raises(InputError, match='send it again'):
        manager.adopt(prepared, 1.02)
