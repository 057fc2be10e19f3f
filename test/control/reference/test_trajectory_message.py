"""JointTrajectory -> spline: one conversion for the controller and the validation."""

from types import SimpleNamespace

import numpy as np
import pytest

from robodyn_ros.control import JointMap, trajectory_from_message
from robodyn_ros.errors import InputError
from robodyn_ros.validation.references import trajectory_reference

NAMES = ['a', 'b', 'c']
START = (np.array([0.1, 0.2, 0.3]), np.zeros(3), np.zeros(3))


def _point(t, positions, velocities=(), accelerations=()):
    return SimpleNamespace(positions=list(positions), velocities=list(velocities),
                           accelerations=list(accelerations),
                           time_from_start=SimpleNamespace(sec=int(t),
                                                           nanosec=int(round(t % 1 * 1e9))))


def _msg(names, points):
    return SimpleNamespace(joint_names=list(names), points=list(points))


def test_partial_joints_hold_and_accelerations_are_used():
    msg = _msg(['c', 'a'], [_point(0.5, [1.0, -1.0], [0.5, 0.0], [2.0, 0.0]),
                            _point(1.0, [1.2, -1.0])])
    spline = trajectory_from_message(msg, JointMap(NAMES), START, 10.0, 'quintic')
    q, qd, qdd = spline(10.5)
    np.testing.assert_allclose(q, [-1.0, 0.2, 1.0], atol=1e-12)
    np.testing.assert_allclose(qd, [0.0, 0.0, 0.5], atol=1e-12)
    np.testing.assert_allclose(qdd, [0.0, 0.0, 2.0], atol=1e-9)
    np.testing.assert_allclose(spline(11.0)[0], [-1.0, 0.2, 1.2], atol=1e-12)


def test_auto_interpolation_follows_what_the_points_carry_as_jtc_does():
    """JointTrajectoryController's spline: quintic between points with accelerations, cubic
    Hermite with velocities, linear with positions only (the start carries all three)."""
    full = _point(0.5, [1.0, -1.0, 0.2], [0.5, 0.0, 0.0], [2.0, 0.0, 0.0])
    hermite = _point(1.0, [1.2, -1.0, 0.2], [0.0, 0.0, 0.0])
    bare = _point(1.5, [1.0, -1.0, 0.2])
    spline = trajectory_from_message(_msg(NAMES, [full, hermite, bare]), JointMap(NAMES),
                                     START, 0.0)
    assert spline.degrees == [5, 3, 1]
    # Hermite midpoint: (p0 + p1) / 2 + T (v0 - v1) / 8
    np.testing.assert_allclose(spline(0.75)[0], [1.13125, -1.0, 0.2], atol=1e-12)
    np.testing.assert_allclose(spline(1.25)[0], [1.1, -1.0, 0.2], atol=1e-12)  # linear
    np.testing.assert_allclose(spline(1.25)[1], [-0.4, 0.0, 0.0], atol=1e-12)
    bare_only = trajectory_from_message(_msg(NAMES, [_point(1.0, [0.0, 0.0, 0.0])]),
                                        JointMap(NAMES), START, 0.0)
    assert bare_only.degrees == [1]
    np.testing.assert_allclose(bare_only(0.5)[0], 0.5 * START[0], atol=1e-12)


def test_first_point_at_time_zero_is_the_start_only_when_it_is_there():
    near = _msg(NAMES, [_point(0.0, START[0] + 1e-3), _point(1.0, [0.0, 0.0, 0.0])])
    spline = trajectory_from_message(near, JointMap(NAMES), START, 0.0)
    assert spline.duration == pytest.approx(1.0)
    far = _msg(NAMES, [_point(0.0, START[0] + 0.5), _point(1.0, [0.0, 0.0, 0.0])])
    with pytest.raises(InputError, match='time_from_start 0'):
        trajectory_from_message(far, JointMap(NAMES), START, 0.0)


def test_limits_are_checked():
    msg = _msg(NAMES, [_point(1.0, [0.0, 0.0, 2.0])])
    with pytest.raises(InputError, match=r'c = 2 outside'):
        trajectory_from_message(msg, JointMap(NAMES), START, 0.0, lower=np.full(3, -1.0),
                                upper=np.full(3, 1.0))


def test_validation_follows_the_controllers_conversion():
    msg = _msg(['b', 'a', 'c'], [_point(0.4, [0.5, 0.0, 0.1], [0.0, 1.0, 0.0], [1.0, 0, 0]),
                                 _point(0.9, [0.4, 0.3, 0.2])])
    controller = trajectory_from_message(msg, JointMap(NAMES), START, 2.0)
    validation = trajectory_reference(msg, NAMES, 2.0, None, START[0])
    for t in np.linspace(2.0, 3.0, 21):
        for ours, theirs in zip(controller(t), validation(t)):
            np.testing.assert_allclose(ours, theirs, atol=0)
    rejected = _msg(NAMES, [_point(0.5, [0.0, 0.0])])  # 2 positions for 3 names
    assert trajectory_reference(rejected, NAMES, 3.0, validation, None) is validation


LIMITS = {'lower': np.full(3, -1.0), 'upper': np.full(3, 1.0), 'velocity': np.full(3, 2.0)}


def test_a_point_velocity_that_bends_the_interpolation_out_of_the_limits_is_refused():
    """Positions inside, velocities of 10: the quintic between the points reaches -2.2."""
    msg = _msg(NAMES, [_point(1.0, START[0] + 0.1, [10.0] * 3, [0.0] * 3)])
    with pytest.raises(InputError, match='leaves the admissible range: a reaches'):
        trajectory_from_message(msg, JointMap(NAMES), START, 0.0, **LIMITS)
    slow = _msg(NAMES, [_point(1.0, START[0] + 0.1, [0.1] * 3, [0.0] * 3)])
    trajectory_from_message(slow, JointMap(NAMES), START, 0.0, **LIMITS)


def test_a_move_too_fast_for_the_velocity_limits_is_refused():
    fast = _msg(NAMES, [_point(0.01, [0.5, 0.2, 0.3])])  # 0.4 rad in 10 ms, linear
    with pytest.raises(InputError, match=r'too fast: a reaches 40 /s .* limit 2\)'):
        trajectory_from_message(fast, JointMap(NAMES), START, 0.0, **LIMITS)
    linear = _msg(NAMES, [_point(0.5, [0.5, 0.2, 0.3]), _point(0.6, [0.9, 0.2, 0.3])])
    with pytest.raises(InputError, match='too fast: a reaches 4 /s'):  # positions only
        trajectory_from_message(linear, JointMap(NAMES), START, 0.0, **LIMITS)


def test_a_point_acceleration_beyond_the_limit_is_refused_between_and_at_points():
    """A final point carrying 3000 rad/s^2 (the JTC feeds it on after the end) and a
    quintic whose acceleration peaks between its points beyond the limit are refused,
    naming the joint and the limit; within the limit, accepted."""
    accel = np.array([50.0, 50.0, 50.0])
    hard = _msg(NAMES, [_point(1.0, [0.2, 0.2, 0.3], [0.0] * 3, [3000.0, 0.0, 0.0])])
    with pytest.raises(InputError, match=r'accelerates too hard: a reaches .* limit 50\)'):
        trajectory_from_message(hard, JointMap(NAMES), START, 0.0, 'auto',
                                acceleration=accel)
    # 0.4 rad in 0.3 s at rest at both ends: a quintic's peak 5.77 x 0.4 / 0.09 = 25.7
    quick = _msg(NAMES, [_point(0.3, [0.5, 0.2, 0.3], [0.0] * 3, [0.0] * 3)])
    spline = trajectory_from_message(quick, JointMap(NAMES), START, 0.0, 'auto',
                                     acceleration=accel)
    assert abs(spline(0.3 * (3 - 3 ** 0.5) / 6)[2][0]) == pytest.approx(25.66, rel=1e-3)
    with pytest.raises(InputError, match=r'a reaches -?25\.66 /s\^2 at 0\.(063|237) s'):
        trajectory_from_message(quick, JointMap(NAMES), START, 0.0, 'auto',
                                acceleration=np.full(3, 20.0))


def test_a_negative_time_from_start_is_refused_with_its_reason():
    msg = _msg(NAMES, [SimpleNamespace(positions=list(START[0]), velocities=[],
                                       accelerations=[],
                                       time_from_start=SimpleNamespace(sec=-1, nanosec=0))])
    with pytest.raises(InputError, match='time_from_start -1 s is negative'):
        trajectory_from_message(msg, JointMap(NAMES), START, 0.0)


def test_every_accepted_interpolation_stays_inside_its_bounds():
    """Random trajectories: accepted ones never leave the bounds on a 0.1 ms grid."""
    rng = np.random.default_rng(3)
    accepted = 0
    for _ in range(200):
        m = int(rng.integers(1, 4))
        times = np.cumsum(rng.uniform(0.2, 1.0, m))
        points = [_point(t, rng.uniform(-0.95, 0.95, 3), rng.uniform(-1.5, 1.5, 3),
                         rng.uniform(-3, 3, 3)) for t in times]
        try:
            spline = trajectory_from_message(_msg(NAMES, points), JointMap(NAMES), START, 0.0,
                                             'quintic', **LIMITS)
        except InputError:
            continue
        accepted += 1
        samples = [spline(t) for t in np.arange(0.0, spline.duration, 1e-4)]
        q = np.array([s[0] for s in samples])
        qd = np.array([s[1] for s in samples])
        assert q.min() >= -1.0 and q.max() <= 1.0 and np.abs(qd).max() <= 2.0
    assert 20 < accepted < 200  # both outcomes drawn
