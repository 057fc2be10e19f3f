"""Pose targets into a joint reference (control/reference/pose_target.py): whatever the
targets do, the reference stays within the joint limits in position, velocity and
acceleration, the commanded pose moves within its per-cycle bounds and the box, and a
reachable target is reached."""

from hypothesis import given, settings
from hypothesis import strategies as st
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from robodyn_ros.control.reference.pose_target import (
    PoseFollower,
    PoseTarget,
    TargetBounds,
    pose_target,
    workspace_box,
)
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.dynamics.recursive.tip_frame import TipFrame
from robodyn_ros.errors import InputError
from robodyn_ros.model import load_robot

MODEL = load_robot('panda', tip_link='panda_hand')
DYN = RigidBodyDynamics(MODEL)
BASE = MODEL.dh_table('standard').base
Q0 = np.array([0.0, -0.3, 0.0, -2.2, 0.0, 2.0, 0.8])
VELOCITY = np.full(7, 1.0)
ACCELERATION = np.full(7, 5.0)
BOUNDS = TargetBounds(0.25, 1.0, (-0.8, -0.8, 0.05, 0.8, 0.8, 1.0))
H = 0.001
IDENTITY = (0.0, 0.0, 0.0, 1.0)


def _follower(q=Q0, bounds=BOUNDS):
    return PoseFollower(TipFrame(DYN), q, np.zeros(7), MODEL.lower + 0.05,
                        MODEL.upper - 0.05, VELOCITY, ACCELERATION, bounds, H)


def _pose(follower):
    """The tip's axes and origin in the base link frame."""
    _, r, p = follower.frame.at(follower.q)
    return BASE[:3, :3] @ r, BASE[:3, :3] @ p + BASE[:3, 3]


def _target(position, quaternion=IDENTITY, frame='', box=BOUNDS.box):
    return pose_target(position, quaternion, frame, 'panda_link0', BASE, box)


def _run(follower, seconds, targets=None):
    """Advance at 1 kHz; every 0.1 s the next of ``targets`` (PoseTargets); the largest
    |qd| / limit, |qdd| / limit and the commanded pose's largest step [m, rad]."""
    worst = np.zeros(3)
    targets = list(targets or [])
    previous = follower.p_c.copy()
    for k in range(int(round(seconds / H))):
        if targets and k % 100 == 0:
            follower.aim(targets.pop(0))
        q, qd, qdd = follower.advance((k + 1) * H)
        assert np.all(q >= MODEL.lower + 0.05 - 1e-12) and np.all(q <= MODEL.upper - 0.05
                                                                   + 1e-12)
        worst = np.maximum(worst, [np.max(np.abs(qd) / VELOCITY),
                                   np.max(np.abs(qdd) / ACCELERATION),
                                   np.linalg.norm(follower.p_c - previous)])
        previous = follower.p_c.copy()
    return worst


def test_a_reachable_target_is_reached():
    follower = _follower()
    r0, p0 = _pose(follower)
    goal = p0 + np.array([0.05, -0.04, 0.03])
    turned = Rotation.from_rotvec([0.0, 0.0, 0.2]) * Rotation.from_matrix(r0)  # about z
    _run(follower, 2.0, [_target(goal, turned.as_quat())])
    r, p = _pose(follower)
    assert np.linalg.norm(p - goal) < 1e-4
    turn = r @ r0.T
    assert np.arccos(np.clip(0.5 * (np.trace(turn) - 1.0), -1, 1)) == pytest.approx(0.2,
                                                                                  abs=1e-3)


def test_a_jump_moves_the_commanded_pose_no_faster_than_its_bound():
    follower = _follower()
    _, p0 = _pose(follower)
    worst = _run(follower, 1.0, [_target(p0 + [0.2, 0.0, 0.0])])
    assert worst[2] <= BOUNDS.speed * H * (1 + 1e-9)
    assert worst[0] <= 1.0 + 1e-9 and worst[1] <= 1.0 + 1e-9


def test_a_target_outside_the_box_is_put_on_its_wall_and_said():
    target = _target((2.0, 0.0, 0.5))
    assert target.clamped
    inside = BASE[:3, :3] @ target.position + BASE[:3, 3]
    np.testing.assert_allclose(inside, (0.8, 0.0, 0.5), atol=1e-12)
    assert not _target((0.4, 0.0, 0.5)).clamped


@pytest.mark.parametrize('position, quaternion, frame, said', [
    ((np.nan, 0.0, 0.5), IDENTITY, '', 'not finite'),
    ((0.4, 0.0, 0.5), (0.0, 0.0, 0.0, np.inf), '', 'not finite'),
    ((0.4, 0.0, 0.5), (0.0, 0.0, 0.0, 0.0), '', 'norm 0'),
    ((0.4, 0.0, 0.5), (0.0, 0.0, 0.0, 1.5), '', 'norm 1.5'),
    ((0.4, 0.0, 0.5), IDENTITY, 'world', "frame 'world'"),
])
def test_a_bad_target_is_refused_in_one_line(position, quaternion, frame, said):
    with pytest.raises(InputError, match=said) as caught:
        _target(position, quaternion, frame)
    assert '\n' not in str(caught.value)


def test_a_nearly_unit_quaternion_is_taken_normalised():
    target = _target((0.4, 0.0, 0.5), (0.0, 0.0, 0.0, 1.005))
    np.testing.assert_allclose(target.rotation @ target.rotation.T, np.eye(3), atol=1e-12)


def test_a_target_beyond_the_joint_limits_stops_the_reference_at_them():
    """A target the arm cannot reach (straight up, beyond its reach): the reference goes as
    far as the limits let it and holds there, braking within its acceleration bound."""
    follower = _follower()
    worst = _run(follower, 3.0, [_target((0.0, 0.0, 1.0))])
    assert worst[0] <= 1.0 + 1e-9 and worst[1] <= 1.0 + 1e-9


def test_when_targets_stop_the_last_one_is_held():
    follower = _follower()
    _, p0 = _pose(follower)
    _run(follower, 1.5, [_target(p0 + [0.0, 0.05, 0.0])])
    q = follower.q.copy()
    _run(follower, 0.5)
    np.testing.assert_allclose(follower.q, q, atol=1e-6)


def test_a_long_pause_lags_the_reference_instead_of_jumping_it():
    follower = _follower()
    _, p0 = _pose(follower)
    follower.advance(0.0)
    follower.aim(_target(p0 + [0.1, 0.0, 0.0]))
    before = follower.q.copy()
    follower.advance(5.0)  # a 5 s pause: ten steps, not 5000
    assert np.abs(follower.q - before).max() <= VELOCITY.max() * 10 * H + 1e-12


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(-1.5, 1.5), st.floats(-1.5, 1.5), st.floats(-0.5, 1.8),
                          st.floats(-1, 1), st.floats(-1, 1), st.floats(-1, 1),
                          st.floats(0.1, 1)), min_size=1, max_size=8))
def test_any_targets_keep_the_reference_within_every_limit(raw):
    """Targets that jump anywhere, in any orientation, at 10 Hz."""
    targets = []
    for x, y, z, a, b, c, w in raw:
        quat = np.array([a, b, c, w]) / np.linalg.norm([a, b, c, w])
        targets.append(_target((x, y, z), quat))
    worst = _run(_follower(), 0.1 * len(targets) + 0.3, targets)
    assert worst[0] <= 1.0 + 1e-9 and worst[1] <= 1.0 + 1e-9
    assert worst[2] <= BOUNDS.speed * H * (1 + 1e-9)


def test_the_default_box_is_the_chains_reach():
    box = workspace_box(MODEL)
    assert box[3] == -box[0] and 0.8 < box[3] < 2.0


def test_the_reference_asks_no_more_torque_change_a_cycle_than_the_rate_limit_gives():
    """Targets that jump 5 cm at 10 Hz, then one beyond the reach and back: the torque the
    reference asks of the model (inverse dynamics of q_r, qd_r, qdd_r) changes each cycle
    by less than the law's rate limit lets through. Without the jerk bound it changed by
    72 N m in one cycle (the acceleration stepped), which the arm could not follow."""
    rate = 800.0
    bounds = TargetBounds(0.25, 1.0, BOUNDS.box, rate)
    follower = PoseFollower(TipFrame(DYN), Q0, np.zeros(7), MODEL.lower + 0.05,
                            MODEL.upper - 0.05, np.full(7, 2.175), np.full(7, 25.0), bounds,
                            H, lambda q: np.diag(DYN.mass_matrix(q)))
    r0, p0 = _pose(follower)
    quaternion = Rotation.from_matrix(r0).as_quat()
    plan = [p0 + [0.05 * (k % 2), 0.05 * ((k // 2) % 2), 0.0] for k in range(6)]
    plan += [p0 + [1.0, 0.0, 0.0]] * 3 + [(0.0, 0.0, 1.3)] * 3 + [p0] * 40
    previous, worst = None, 0.0
    for k in range(len(plan) * 100):
        if k % 100 == 0:
            follower.aim(_target(plan[k // 100], quaternion))
        tau = DYN.inverse_dynamics(*follower.advance((k + 1) * H))
        if previous is not None:
            worst = max(worst, float(np.max(np.abs(tau - previous))))
        previous = tau
    assert worst < rate * H, worst
    assert np.linalg.norm(_pose(follower)[1] - p0) < 1e-4


def test_a_target_beyond_the_reach_is_approached_without_swinging_through_the_singularity():
    """1 m beyond the reach, straight ahead: the reference stretches the arm towards it and
    comes to rest at the edge of the reach. Without the slow-down near the singularity the
    least-squares direction flipped each time the elbow crossed it, and the reference swung
    through it and back at 2.5 Hz, +-1.1 rad/s, for as long as the target stayed."""
    start = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])  # config/panda.yaml
    follower = PoseFollower(TipFrame(DYN), start, np.zeros(7), MODEL.lower + 0.05,
                            MODEL.upper - 0.05, np.full(7, 2.175),
                            [24.3, 23.9, 65.2, 86.3, 213.6, 216.7, 1795.0],  # the core's
                            TargetBounds(0.25, 1.0, (-2.0, -2.0, -2.0, 2.0, 2.0, 2.0), 800.0),
                            H, lambda q: np.diag(DYN.mass_matrix(q)))
    r0, p0 = _pose(follower)
    follower.aim(_target(p0 + [1.0, 0.0, 0.0], Rotation.from_matrix(r0).as_quat(),
                         box=(-2.0, -2.0, -2.0, 2.0, 2.0, 2.0)))
    speeds = [np.max(np.abs(follower.advance((k + 1) * H)[1])) for k in range(6000)]
    assert max(speeds[:3000]) > 0.5  # it went for it
    assert max(speeds[4000:]) < 0.05, max(speeds[4000:])  # and came to rest
    assert follower.slowed  # at the edge of the reach, where /diagnostics says so


def test_an_arm_of_fewer_than_six_joints_follows_too():
    """A three-joint arm's J J^T has three zero eigenvalues by its structure: the slow-down
    near a singularity looks at its three others, so the reference still moves."""
    model = load_robot('three_link')
    dyn = RigidBodyDynamics(model)
    frame = TipFrame(dyn)
    q0 = model.mid_range + 0.2
    follower = PoseFollower(frame, q0, np.zeros(model.n), model.lower, model.upper,
                            np.full(model.n, 1.0), np.full(model.n, 5.0),
                            TargetBounds(0.25, 1.0, (-5.0,) * 3 + (5.0,) * 3), H)
    _, r0, p0 = (a.copy() for a in frame.at(q0))
    follower.aim(PoseTarget(p0 + np.array([0.0, 0.0, -0.05]), r0, False))
    for k in range(2000):
        follower.advance((k + 1) * H)
    assert np.abs(follower.q - q0).max() > 0.01 and not follower.slowed
