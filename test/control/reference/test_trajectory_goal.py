"""GoalTolerances and GoalMonitor on plain arrays: JTC's rules (> 0 checked, 0 the
default, < 0 not checked; path tolerance while the trajectory runs, goal tolerance after,
within goal_time)."""

from types import SimpleNamespace

import numpy as np
import pytest

from robodyn_ros.control.reference.trajectory_goal import (
    GOAL_TOLERANCE_VIOLATED,
    PATH_TOLERANCE_VIOLATED,
    SUCCESSFUL,
    GoalMonitor,
    GoalTolerances,
)
from robodyn_ros.errors import InputError

NAMES = ['a', 'b']
DEFAULTS = GoalTolerances(np.full(2, 0.1), np.full(2, np.inf), np.full(2, 0.01),
                          np.full(2, 0.05), 1.0)


def _tol(name, position=0.0, velocity=0.0):
    return SimpleNamespace(name=name, position=position, velocity=velocity)


def test_positive_is_checked_zero_is_the_default_negative_is_not_checked():
    tol = GoalTolerances.from_goal(NAMES, [_tol('a', 0.3, -1.0)], [_tol('b', -1.0, 0.2)],
                                   0.0, DEFAULTS)
    np.testing.assert_array_equal(tol.path_position, [0.3, 0.1])
    np.testing.assert_array_equal(tol.path_velocity, [np.inf, np.inf])
    np.testing.assert_array_equal(tol.goal_position, [0.01, np.inf])
    np.testing.assert_array_equal(tol.goal_velocity, [0.05, 0.2])
    assert tol.goal_time == 1.0  # 0 takes the default


def test_a_tolerance_for_an_unknown_joint_is_refused_by_name():
    with pytest.raises(InputError, match="unknown joint 'z'"):
        GoalTolerances.from_goal(NAMES, [_tol('z', 0.1)], [], 0.0, DEFAULTS)


def _check(monitor, t, error, velocity_error=0.0):
    q_r, qd_r = np.zeros(2), np.zeros(2)
    return monitor.check(t, q_r, qd_r, q_r - np.array([error, 0.0]),
                         qd_r - np.array([velocity_error, 0.0]))


def test_the_path_tolerance_applies_until_the_end_then_the_goal_tolerance():
    monitor = GoalMonitor(DEFAULTS, end=2.0, names=NAMES)
    assert _check(monitor, 1.0, 0.05) == (None, 'executing')
    code, text = _check(monitor, 1.0, 0.2)
    assert code == PATH_TOLERANCE_VIOLATED and 'on a' in text
    assert _check(monitor, 2.5, 0.05)[0] is None  # settling: outside the goal tolerance
    assert _check(monitor, 2.5, 0.005)[0] == SUCCESSFUL
    assert _check(monitor, 2.5, 0.005, velocity_error=0.1)[0] is None  # still moving


def test_the_goal_fails_goal_time_after_the_end_and_waits_without_one():
    monitor = GoalMonitor(DEFAULTS, end=2.0, names=NAMES)
    code, text = _check(monitor, 3.01, 0.05)
    assert code == GOAL_TOLERANCE_VIOLATED and 'a error 0.05' in text
    waiting = GoalMonitor(DEFAULTS._replace(goal_time=0.0), end=2.0, names=NAMES)
    assert _check(waiting, 100.0, 0.05)[0] is None
