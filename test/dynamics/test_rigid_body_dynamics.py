"""M, C, g, ID: Pinocchio cross-check, structural properties and the seeds' closed forms."""

from model_helpers import load_robot
import numpy as np
import pytest

from robodyn_ros.dynamics import (
    RigidBodyDynamics,
    dh_chain,
    mass_matrix_dh_frames,
    mass_matrix_pseudo_inertia,
)
from robodyn_ros.dynamics.verification import cross_check
from robodyn_ros.model import load_urdf
from robodyn_ros.model.random_chain import random_chain
from robodyn_ros.model.seed_robots import RP_ARM, THREE_LINK, TWO_LINK

METHODS = ['kronecker', 'christoffel', 'recursive']
ARMS = ['panda', 'ur3', 'ur5', 'ur10', 'kinova', 'double_pendulum',
        'double_pendulum_continuous', 'z1', 'xarm7', 'three_link']


def _model(name):
    return load_robot(name)


@pytest.mark.parametrize('name', ARMS)
@pytest.mark.parametrize('method', METHODS)
def test_real_arms_match_pinocchio(name, method):
    report = cross_check(_model(name), method, samples=25, seed=3)
    assert report.passed, report


@pytest.mark.parametrize('seed', range(12))
@pytest.mark.parametrize('method', METHODS)
def test_random_chains_match_pinocchio(seed, method):
    model = load_urdf(random_chain(2 + seed % 7, seed, special_axes=seed % 2 == 0),
                      tip_link='tip')
    report = cross_check(model, method, samples=15, seed=seed)
    assert report.passed, report


def test_cross_check_detects_a_wrong_model():
    """The check must fail when the model differs from Pinocchio's (mass changed)."""
    model = _model('three_link')
    import dataclasses
    bodies = list(model.bodies)
    bodies[1] = dataclasses.replace(bodies[1], mass=bodies[1].mass * 1.01)
    wrong = dataclasses.replace(model, bodies=tuple(bodies))
    assert not cross_check(wrong, 'recursive', samples=3).passed


@pytest.mark.parametrize('seed', range(6))
def test_properties_on_random_states(seed):
    model = load_urdf(random_chain(6, 100 + seed), tip_link='tip')
    kron = RigidBodyDynamics(model, 'kronecker')
    chris = RigidBodyDynamics(model, 'christoffel')
    rec = RigidBodyDynamics(model, 'recursive')
    rng = np.random.default_rng(seed)
    for _ in range(10):
        q, qd = rng.uniform(-2, 2, model.n), rng.uniform(-2, 2, model.n)
        m = kron.mass_matrix(q)  # Jacobian form (seed 000 eq. 28)
        # Composite rigid bodies, another algorithm: the same matrix.
        np.testing.assert_allclose(rec.mass_matrix(q), m, rtol=0, atol=1e-12 * np.abs(m).max())
        assert np.linalg.eigvalsh(m)[0] > 0.0
        c = kron.coriolis_matrix(q, qd)
        mdot = kron.mass_matrix_dot(q, qd)
        skew = mdot - 2.0 * c
        assert np.abs(skew + skew.T).max() <= 1e-12 * max(1.0, np.abs(c).max())
        # C qd = ID(q, qd, 0) - g.
        cq = rec.inverse_dynamics(q, qd, np.zeros(model.n)) - rec.gravity_vector(q)
        np.testing.assert_allclose(c @ qd, cq, atol=1e-11 * max(1.0, np.abs(cq).max()))
        np.testing.assert_allclose(chris.coriolis_matrix(q, qd), c, atol=1e-12)
        np.testing.assert_allclose(rec.coriolis_matrix(q, qd), c, atol=1e-11)
        # Alternative M routes: seed 003 eq. 49 and seed 001 trace form.
        ch = dh_chain(model)
        np.testing.assert_allclose(mass_matrix_dh_frames(ch, q), m, atol=1e-12)
        np.testing.assert_allclose(mass_matrix_pseudo_inertia(ch, q), m, atol=1e-12)


def test_mdot_is_analytic_not_finite_difference():
    model = _model('panda')
    dyn = RigidBodyDynamics(model, 'kronecker')
    rng = np.random.default_rng(0)
    q, qd = rng.uniform(-2, 2, 7), rng.uniform(-1, 1, 7)
    h = 1e-6
    fd = (dyn.mass_matrix(q + h * qd) - dyn.mass_matrix(q - h * qd)) / (2 * h)
    np.testing.assert_allclose(dyn.mass_matrix_dot(q, qd), fd, atol=1e-8)


def _three_link_closed_form(q, qd, grav):
    """Seed 000 eq. (65), (67), (69)."""
    p = THREE_LINK
    l1, r1, m2, l2, r2, m3 = p['l1'], p['r1'], p['m2'], p['l2'], p['r2'], p['m3']
    i1, i2, i3 = p['I1'], p['I2'], p['I3']
    del l2
    s2, c2, s3, c3 = np.sin(q[1]), np.cos(q[1]), np.sin(q[2]), np.cos(q[2])
    s23, c23 = np.sin(q[1] + q[2]), np.cos(q[1] + q[2])
    d1, d2, d3 = qd
    m = np.zeros((3, 3))
    m[0, 0] = (i3[1] * c23 ** 2 + i3[0] * s23 ** 2 + i2[0] * s2 ** 2 + i1[1]
               + (m2 * r1 ** 2 + i2[1]) * c2 ** 2 + m3 * (r2 * c23 + l1 * c2) ** 2)
    m[1, 1] = 2 * l1 * m3 * r2 * c3 + (l1 ** 2 + r2 ** 2) * m3 + m2 * r1 ** 2 + i3[2] + i2[2]
    m[2, 2] = m3 * r2 ** 2 + i3[2]
    m[1, 2] = m[2, 1] = l1 * m3 * r2 * c3 + m3 * r2 ** 2 + i3[2]
    k3 = m3 * r2 ** 2 + i3[1] - i3[0]
    k2 = l1 ** 2 * m3 + m2 * r1 ** 2 - i2[0] + i2[1]
    e = l1 * m3 * r2
    c = np.zeros((3, 3))
    c[0, 0] = (-(k3 * (d2 + d3) * s23 + e * (2 * d2 + d3) * s2) * c23 - k2 * c2 * s2 * d2
               - e * s3 * (d2 + d3))
    c[0, 1] = -((k3 * s23 + 2 * l1 * s2 * m3 * r2) * c23 + k2 * c2 * s2 + e * s3) * d1
    c[0, 2] = -((k3 * s23 + l1 * s2 * m3 * r2) * c23 + e * s3) * d1
    c[1, 0] = ((k3 * s23 + 2 * l1 * s2 * m3 * r2) * c23 + k2 * c2 * s2 + e * s3) * d1
    c[1, 1] = -e * s3 * d3
    c[1, 2] = -e * s3 * (d2 + d3)
    c[2, 0] = ((k3 * s23 + l1 * s2 * m3 * r2) * c23 + e * s3) * d1
    c[2, 1] = e * s3 * d2
    g = np.array([0.0, -(l1 * m3 + m2 * r1) * grav * c2 - m3 * r2 * grav * c23,
                  -m3 * r2 * grav * c23])
    return m, c, g


@pytest.mark.parametrize('method', METHODS)
def test_three_link_matches_seed_000_closed_form(method):
    grav = 9.807  # seed 000 section 3
    dyn = RigidBodyDynamics(_model('three_link'), method, gravity=(0.0, 0.0, -grav))
    rng = np.random.default_rng(5)
    for _ in range(50):
        q, qd = rng.uniform(-np.pi, np.pi, 3), rng.uniform(-3, 3, 3)
        m_ref, c_ref, g_ref = _three_link_closed_form(q, qd, grav)
        m, c, g = dyn.terms(q, qd)
        np.testing.assert_allclose(m, m_ref, rtol=0, atol=1e-12)
        np.testing.assert_allclose(c, c_ref, rtol=0, atol=1e-12)
        np.testing.assert_allclose(g, g_ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize('method', METHODS)
def test_two_link_matches_seed_004_tau(method):
    p = TWO_LINK
    l1, l2, m1, m2, grav = p['L1'], p['L2'], p['m1'], p['m2'], 9.81
    dyn = RigidBodyDynamics(_model('two_link'), method, gravity=(0.0, 0.0, -grav))
    rng = np.random.default_rng(6)
    for _ in range(50):
        (t1, t2), (d1, d2), (a1, a2) = (rng.uniform(-3, 3, 2) for _ in range(3))
        c1, c2, s2, c12 = np.cos(t1), np.cos(t2), np.sin(t2), np.cos(t1 + t2)
        tau1 = (m2 * l2 ** 2 * (a1 + a2) + m2 * l1 * l2 * c2 * (2 * a1 + a2)
                + (m1 + m2) * l1 ** 2 * a1 - m2 * l1 * l2 * s2 * d2 ** 2
                - 2 * m2 * l1 * l2 * s2 * d1 * d2 + (m1 + m2) * grav * l1 * c1
                + m2 * grav * l2 * c12)
        tau2 = (m2 * l1 * l2 * c2 * a1 + m2 * l1 * l2 * s2 * d1 ** 2 + m2 * grav * l2 * c12
                + m2 * l2 ** 2 * (a1 + a2))
        tau = dyn.inverse_dynamics([t1, t2], [d1, d2], [a1, a2])
        np.testing.assert_allclose(tau, [tau1, tau2], rtol=0, atol=1e-12)


@pytest.mark.parametrize('method', METHODS)
def test_rp_arm_matches_seed_004_m_v_g(method):
    p = RP_ARM
    grav = 9.81
    dyn = RigidBodyDynamics(_model('rp_arm'), method, gravity=(0.0, 0.0, -grav))
    rng = np.random.default_rng(7)
    for _ in range(50):
        q = np.array([rng.uniform(-3, 3), rng.uniform(p['d2_min'], p['d2_max'])])
        qd = rng.uniform(-2, 2, 2)
        t1, d2 = q
        m_ref = np.diag([p['m1'] * p['l1'] ** 2 + p['Izz1'] + p['m2'] * d2 ** 2 + p['Iyy2'],
                         p['m2']])
        v_ref = np.array([2 * p['m2'] * d2 * qd[1] * qd[0], -p['m2'] * d2 * qd[0] ** 2])
        g_ref = np.array([(p['m1'] * p['l1'] + p['m2'] * d2) * grav * np.cos(t1),
                          p['m2'] * grav * np.sin(t1)])
        m, c, g = dyn.terms(q, qd)
        np.testing.assert_allclose(m, m_ref, rtol=0, atol=1e-12)
        np.testing.assert_allclose(c @ qd, v_ref, rtol=0, atol=1e-12)
        np.testing.assert_allclose(g, g_ref, rtol=0, atol=1e-12)


def test_friction_viscous_coulomb_and_smooth_sign():
    model = _model('panda')
    dyn = RigidBodyDynamics(model, viscous=np.full(7, 0.5), coulomb=np.full(7, 0.2))
    qd = np.array([1.0, -1.0, 0.0, 2.0, -0.5, 0.1, 0.0])
    np.testing.assert_allclose(dyn.friction_torque(qd), 0.2 * np.sign(qd) + 0.5 * qd)
    smooth = RigidBodyDynamics(model, viscous=np.zeros(7), coulomb=np.ones(7),
                               friction_smoothing=0.01)
    out = smooth.friction_torque(np.array([0.0, 1e-4, -1e-4, 1.0, -1.0, 0.005, 0.0]))
    assert out[0] == 0.0 and 0.0 < out[1] < 0.02 and out[3] == pytest.approx(1.0)


def test_computed_torque_equals_formula():
    model = _model('panda')
    dyn = RigidBodyDynamics(model, friction_smoothing=0.05)
    ref = RigidBodyDynamics(model, 'kronecker', friction_smoothing=0.05)
    rng = np.random.default_rng(2)
    q, qd, qr, qdr, qddr = (rng.uniform(-1, 1, 7) for _ in range(5))
    kp, kd = np.full(7, 400.0), np.full(7, 40.0)
    m, c, g = ref.terms(q, qd)
    expected = m @ (qddr + kd * (qdr - qd) + kp * (qr - q)) + c @ qd + g + \
        ref.friction_torque(qd)
    np.testing.assert_allclose(dyn.computed_torque(q, qd, qr, qdr, qddr, kp, kd), expected,
                               atol=1e-10)


def test_gravity_is_the_gradient_of_the_potential_energy():
    """g(q) = (dP/dq)^T (seed 000 eq. 45) with P of eq. 17, by central differences."""
    from robodyn_ros.dynamics import dh_chain, link_kinematics, potential_energy
    model = load_urdf(random_chain(5, 7), tip_link='tip')
    chain = dh_chain(model)
    q = np.random.default_rng(7).uniform(-2, 2, model.n)
    h = 1e-6
    grad = np.array([(potential_energy(chain, link_kinematics(chain, q + h * e, False)) -
                      potential_energy(chain, link_kinematics(chain, q - h * e, False)))
                     / (2 * h) for e in np.eye(model.n)])
    np.testing.assert_allclose(RigidBodyDynamics(model).gravity_vector(q), grad, atol=1e-7)


@pytest.mark.parametrize('seed', range(8))
@pytest.mark.parametrize('tilt', [1e-5, 1e-3])
def test_nearly_parallel_axes_use_hayati_rows_and_match_pinocchio(seed, tilt):
    """Consecutive axes tilted like rounded (1.5708) or calibrated descriptions: their common
    normal is kilometres away, so those rows carry Hayati's beta and stay exact."""
    model = load_urdf(random_chain(6, seed, branches=False, nearly_parallel=tilt),
                      tip_link='tip')
    table = model.dh_table()
    assert sum(row.beta != 0.0 for row in table.rows) >= 2
    assert max(abs(row.d) for row in table.rows) < 2.0  # frames stay on the links
    for method in METHODS:
        report = cross_check(model, method, samples=10, seed=seed)
        assert report.passed, (method, report)
