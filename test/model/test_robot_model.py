"""URDF -> RobotModel -> DH table: FK equality, round trips, lumping."""

from model_helpers import load_robot
import numpy as np
import pytest

from robodyn_ros.model import load_urdf
from robodyn_ros.model.random_chain import random_chain
from robodyn_ros.model.registry import robot_path
from robodyn_ros.model.seed_robots import THREE_LINK

ARMS = ['panda', 'ur3', 'ur5', 'ur10', 'kinova', 'double_pendulum',
        'double_pendulum_continuous', 'z1', 'xarm7', 'three_link', 'two_link', 'rp_arm']


def _model(name):
    return load_robot(name)


def _dh_scale(table):
    return max([1.0] + [abs(r.a) for r in table.rows] + [abs(r.d) for r in table.rows])


@pytest.mark.parametrize('name', ARMS)
@pytest.mark.parametrize('convention', ['standard', 'modified'])
def test_dh_fk_equals_urdf_fk_on_real_arms(name, convention):
    model = _model(name)
    table = model.dh_table(convention)
    rng = np.random.default_rng(1)
    for _ in range(50):
        q = rng.uniform(-3.0, 3.0, model.n)
        assert np.abs(table.fk(q) - model.fk(q)).max() <= 1e-12
        frames = table.frames(q)
        bodies = model.body_poses(q)
        for i in range(model.n):
            assert np.abs(bodies[i] @ table.body_to_dh[i] - frames[i]).max() <= 1e-12


@pytest.mark.parametrize('seed', range(40))
@pytest.mark.parametrize('convention', ['standard', 'modified'])
def test_dh_fk_equals_urdf_fk_on_random_chains(seed, convention):
    model = load_urdf(random_chain(1 + seed % 9, seed, special_axes=seed % 3 == 0),
                      tip_link='tip')
    table = model.dh_table(convention)
    # Nearly parallel random axes give metre-long offsets; scale the bound by them.
    tol = 1e-12 * _dh_scale(table)
    rng = np.random.default_rng(seed)
    for _ in range(20):
        q = rng.uniform(-3.0, 3.0, model.n)
        assert np.abs(table.fk(q) - model.fk(q)).max() <= tol


def test_three_link_round_trip_recovers_seed_dh_and_inertials():
    p = THREE_LINK
    table = _model('three_link').dh_table()
    expected = [(0.0, -np.pi / 2, p['l0'], 0.0), (p['l1'], 0.0, 0.0, 0.0),
                (p['l2'], 0.0, 0.0, 0.0)]
    got = [(r.a, r.alpha, r.d, r.theta_offset) for r in table.rows]
    np.testing.assert_allclose(got, expected, atol=1e-12)
    np.testing.assert_allclose(table.base, np.eye(4), atol=1e-12)
    np.testing.assert_allclose(table.tool, np.eye(4), atol=1e-12)
    coms = [(0.0, 0.154, 0.0), (-0.102, 0.0, 0.0), (-0.090, 0.0, 0.0)]
    for inertial, com, mass, moments in zip(table.inertials, coms, (p['m1'], p['m2'], p['m3']),
                                            (p['I1'], p['I2'], p['I3'])):
        assert inertial.mass == pytest.approx(mass, abs=1e-12)
        np.testing.assert_allclose(inertial.com, com, atol=1e-12)
        np.testing.assert_allclose(inertial.inertia, np.diag(moments), atol=1e-12)
        c = np.asarray(com)
        origin = np.diag(moments) + mass * (c @ c * np.eye(3) - np.outer(c, c))
        np.testing.assert_allclose(inertial.inertia_origin, origin, atol=1e-12)


@pytest.mark.parametrize('name,rows', [
    ('two_link', [(0.5, 0.0, 0.0, 0.0), (0.4, 0.0, 0.0, 0.0)]),
    ('rp_arm', [(0.0, np.pi / 2, 0.0, 0.0), (0.0, 0.0, 0.0, 0.0)]),
])
def test_seed_004_round_trip(name, rows):
    table = _model(name).dh_table()
    got = [(r.a, r.alpha, r.d, r.theta_offset) for r in table.rows]
    np.testing.assert_allclose(got, rows, atol=1e-12)
    np.testing.assert_allclose(table.tool, np.eye(4), atol=1e-12)


def test_panda_gripper_mass_is_lumped_into_the_last_body():
    path, _, _ = robot_path('panda')
    with_hand = load_urdf(path, tip_link='panda_hand')
    without = load_urdf(path, tip_link='panda_link7')
    # panda_link8/hand/fingers hang from link 7: the hand chain and the link-7 chain must
    # carry the same mass either way (fingers locked and lumped in both).
    assert with_hand.bodies[-1].mass == pytest.approx(without.bodies[-1].mass)
    # link7 0.735522 kg + hand 0.73 kg + two fingers 0.015 kg (example-robot-data panda.urdf)
    assert with_hand.bodies[-1].mass == pytest.approx(0.735522 + 0.73 + 2 * 0.015, abs=1e-12)
    assert 'panda_finger_joint1' in with_hand.locked


def test_locked_joint_value_changes_lumped_com():
    xml = random_chain(3, 0)  # seed 0 has the off-chain revolute branch 'jb1'
    model = load_urdf(xml, tip_link='tip')
    name = 'jb1'
    assert model.locked == {name: 0.0}
    moved = load_urdf(xml, tip_link='tip', locked_joints={name: 1.0})
    assert any(np.abs(a.com - b.com).max() > 1e-6 for a, b in zip(model.bodies, moved.bodies))


def test_continuous_joint_limits_are_infinite():
    model = _model('kinova')
    assert any(j.type == 'continuous' for j in model.joints)
    assert np.isinf(model.upper[[j.type == 'continuous' for j in model.joints]]).all()


def test_mid_range_is_the_middle_of_finite_ranges_and_0_for_unlimited_joints():
    model = _model('kinova')
    continuous = np.array([j.type == 'continuous' for j in model.joints])
    assert continuous.any() and not continuous.all()
    np.testing.assert_array_equal(model.mid_range[continuous], 0.0)
    np.testing.assert_allclose(model.mid_range[~continuous],
                               0.5 * (model.lower[~continuous] + model.upper[~continuous]))


def test_a_new_payload_reuses_the_geometry_and_a_moved_joint_does_not():
    """The DH geometry is derived once per chain: a payload (new bodies) gets the same rows
    with its own inertials; a chain whose joint moved (even in place, same objects) gets
    its own rows, never the stale ones."""
    from dataclasses import replace

    from robodyn_ros.model.payload import payload_inertial, with_payload
    model = _model('panda')
    table = model.dh_table()
    heavy = with_payload(model, payload_inertial(2.0, [0.0, 0.0, 0.1], [0.01, 0, 0, 0.01, 0,
                                                                          0.01]))
    loaded = heavy.dh_table()
    assert loaded.rows == table.rows and loaded.fk_error == table.fk_error
    assert loaded.inertials[-1].mass == pytest.approx(table.inertials[-1].mass + 2.0)
    assert [b.mass for b in loaded.inertials[:-1]] == [b.mass for b in table.inertials[:-1]]
    origin = model.joints[2].origin.copy()
    origin[2, 3] += 0.05
    moved = replace(model, joints=model.joints[:2] + (replace(model.joints[2], origin=origin),)
                    + model.joints[3:])
    assert moved.dh_table().rows != table.rows
    rng = np.random.default_rng(3)
    for _ in range(5):
        q = rng.uniform(-2.0, 2.0, model.n)
        assert np.abs(moved.dh_table().fk(q) - moved.fk(q)).max() <= 1e-12
    model.joints[2].origin[2, 3] += 0.05  # the same objects, changed in place
    try:
        assert model.dh_table().rows == moved.dh_table().rows != table.rows
    finally:
        model.joints[2].origin[2, 3] -= 0.05
