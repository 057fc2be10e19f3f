"""operational_space (control/laws/operational_space.py): on the exact model the tool's
acceleration is the commanded one, a_r + D_x e_x' + K_x e_x (a unit mass, whatever the
configuration), the posture torque accelerates no tool direction (the dynamically
consistent nullspace), and a closed loop on the model lets a pose error decay as the
critically damped unit mass does."""

import numpy as np

from robodyn_ros.control.laws import MODES, PLUGIN_MODES, Cartesian, ControlLaw, LawConfig
from robodyn_ros.control.laws.cartesian_impedance import rotation_vector
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.dynamics.tool_point import tool_point_motion
from robodyn_ros.model import load_urdf
from robodyn_ros.model.registry import PANDA_HOME, robot_path

MODEL = load_urdf(robot_path('panda')[0], tip_link='panda_hand')
DYN = RigidBodyDynamics(MODEL)
Q = np.array(PANDA_HOME) + 0.01
ZERO = np.zeros(7)


def _law(kp=0.0, kd=0.0, spring=Cartesian()):
    return ControlLaw(DYN, LawConfig('operational_space', np.full(7, kp), np.full(7, kd),
                                     include_friction=False, cartesian=spring))


def _tool_acceleration(q, qd, tau):
    """[a; alpha] of the tip (DH frame 0 = the Panda's base_link) under ``tau`` on the
    model: J qdd + Jdot qd with qdd = M^-1 (tau - C qd - g)."""
    qdd = np.linalg.solve(DYN.mass_matrix(q), tau - DYN.inverse_dynamics(q, qd, ZERO))
    motion = tool_point_motion(MODEL, q, qd)
    return motion.jacobian @ qdd + motion.bias


def test_it_is_on_the_registry_of_both_paths():
    assert 'operational_space' in MODES and 'operational_space' in PLUGIN_MODES


def test_the_tool_accelerates_as_the_unit_mass_spring_commands():
    """A pose error and a velocity error, the reference accelerating: the tool's
    acceleration on the model is a_r + D_x e_x' + K_x e_x, to the damping of Lambda."""
    law = _law()
    q_r = Q + np.array([0.02, -0.01, 0.015, 0.01, -0.02, 0.01, 0.03])
    qd_r, qdd_r = np.full(7, 0.1), np.full(7, 0.5)
    qd = np.array([0.05, -0.1, 0.08, 0.02, 0.1, -0.05, 0.2])
    tau = law(Q, qd, q_r, qd_r, qdd_r)
    here, there = tool_point_motion(MODEL, Q, qd), tool_point_motion(MODEL, q_r, qd_r)
    frame = law.law.frame
    _, r, p = (a.copy() for a in frame.at(Q))
    _, r_r, p_r = frame.at(q_r)
    e_x = np.concatenate((p_r - p, rotation_vector(r_r @ r.T)))
    k_x = np.array(Cartesian().stiffness)
    wanted = (there.jacobian @ qdd_r + there.bias + 2.0 * np.sqrt(k_x) * (
        there.jacobian @ qd_r - here.jacobian @ qd) + k_x * e_x)
    got = _tool_acceleration(Q, qd, tau)
    np.testing.assert_allclose(got, wanted, rtol=0.005, atol=0.002 * np.abs(wanted).max())


def test_the_posture_torque_accelerates_no_tool_direction():
    """The tool spring off, the posture spring pulling: the tool's acceleration is the
    velocity product's alone (J M^-1 N^T tau_ns = 0, to the damping of Lambda)."""
    law = _law(kp=50.0, kd=5.0, spring=Cartesian((0.0,) * 6, 1.0))
    tau = law(Q, ZERO, Q + 0.05, ZERO, ZERO)
    accel = _tool_acceleration(Q, ZERO, tau)
    posture_alone = _tool_acceleration(Q, ZERO, DYN.gravity_vector(Q) + 50.0 * 0.05)
    assert np.abs(accel).max() < 1e-2 * np.abs(posture_alone).max(), (accel, posture_alone)


def test_a_pose_error_decays_as_the_critically_damped_unit_mass():
    """The model as the plant, 1 kHz semi-implicit Euler, a fixed reference 1 cm away in
    x: after 0.2 s the error is (1 + w t) e^(-w t) of the first, w = sqrt(K_x) (22.4 1/s),
    within 10 %: the same in any configuration."""
    law = _law(kp=5.0, kd=1.0)
    q_r = Q.copy()
    _, _, p_r = law.law.frame.at(q_r)
    p_r = p_r.copy()
    q, qd = Q.copy(), ZERO.copy()
    # start 1 cm off in x: solve for a posture whose tool is there (damped least squares)
    for _ in range(50):
        j, _, p = law.law.frame.at(q)
        e = np.concatenate([p_r - [0.01, 0.0, 0.0] - p, np.zeros(3)])
        q = q + j.T @ np.linalg.solve(j @ j.T + 1e-6 * np.eye(6), e)
    first = p_r[0] - law.law.frame.at(q)[2][0]
    h = 1e-3
    for _ in range(200):
        tau = law(q, qd, q_r, ZERO, ZERO)
        qdd = np.linalg.solve(DYN.mass_matrix(q), tau - DYN.inverse_dynamics(q, qd, ZERO))
        qd = qd + h * qdd
        q = q + h * qd
    w, t = np.sqrt(500.0), 0.2
    left = p_r[0] - law.law.frame.at(q)[2][0]
    assert abs(left - first * (1 + w * t) * np.exp(-w * t)) < 0.1 * abs(first) * (
        1 + w * t) * np.exp(-w * t) + 1e-5, (first, left)


def test_its_velocity_product_is_the_exact_recursions():
    """Jdot qd of the compiled tip frame equals tool_point.py's recursion in numpy (the
    Panda's frame 0 is its base_link) to rounding."""
    frame = _law().law.frame.tip
    rng = np.random.default_rng(3)
    for _ in range(5):
        q, qd = Q + rng.uniform(-0.5, 0.5, 7), rng.uniform(-2.0, 2.0, 7)
        exact = tool_point_motion(MODEL, q, qd).bias
        frame.at(q)
        np.testing.assert_allclose(frame.bias(qd), exact, atol=1e-12 * np.abs(exact).max())
