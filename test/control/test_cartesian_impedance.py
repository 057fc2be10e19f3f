"""cartesian_impedance (control/laws/cartesian_impedance.py): its torque is its equation,
the tool spring acts through J^T, the posture spring only in J's nullspace, and its pose
and Jacobian are the tip's (dynamics/recursive/tip_frame.py)."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from robodyn_ros.control.laws import Cartesian, ControlLaw, LawConfig
from robodyn_ros.control.laws.cartesian_impedance import rotation_vector
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.dynamics.tool_point import tool_point_motion
from robodyn_ros.errors import InputError
from robodyn_ros.model import load_urdf
from robodyn_ros.model.registry import PANDA_HOME, robot_path

MODEL = load_urdf(robot_path('panda')[0], tip_link='panda_hand')
DYN = RigidBodyDynamics(MODEL)
Q = np.array(PANDA_HOME) + 0.01
ZERO = np.zeros(7)


def _law(kp=0.0, kd=0.0, spring=Cartesian()):
    return ControlLaw(DYN, LawConfig('cartesian_impedance', np.full(7, kp), np.full(7, kd),
                                     include_friction=False, cartesian=spring))


def test_the_tip_frame_is_the_tool_points_pose_and_jacobian():
    """Frame 0 is the Panda's base_link: J and the point equal tool_point.py's."""
    law = _law().law
    j, r, p = law.frame.at(Q)
    motion = tool_point_motion(MODEL, Q, ZERO)
    np.testing.assert_allclose(j, motion.jacobian, atol=1e-12)
    np.testing.assert_allclose(p, motion.point, atol=1e-12)
    assert np.allclose(r @ r.T, np.eye(3), atol=1e-12)


def test_at_its_target_and_at_rest_the_torque_is_gravity_alone():
    tau = _law(20.0, 5.0)(Q, ZERO, Q, ZERO, ZERO)
    np.testing.assert_allclose(tau, DYN.gravity_vector(Q), atol=1e-12)


def test_a_pose_error_is_the_springs_wrench_through_j_transpose():
    """Posture gains 0, the arm at rest: tau - g = J^T K_x e_x, e_x = [p_r - p; theta u]."""
    law = _law()
    q_r = Q + np.array([0.02, -0.01, 0.015, 0.01, -0.02, 0.01, 0.03])
    j, r, p = (a.copy() for a in law.law.frame.at(Q))  # the next call overwrites them
    _, r_r, p_r = law.law.frame.at(q_r)
    e_x = np.concatenate((p_r - p, rotation_vector(r_r @ r.T)))
    tau = law(Q, ZERO, q_r, ZERO, ZERO)
    np.testing.assert_allclose(tau - DYN.gravity_vector(Q),
                               j.T @ (np.array(Cartesian().stiffness) * e_x), atol=1e-9)


def test_the_posture_spring_moves_no_tool_direction():
    """The posture torque projected on J's nullspace: J M^-1 tau_ns = 0 would be the
    dynamically consistent one; the kinematic projector gives J tau_ns = 0 (to mu^2)."""
    law = _law(kp=50.0, kd=5.0, spring=Cartesian((0.0,) * 6, 1.0))
    q_r = Q + 0.05
    tau = law(Q, ZERO, q_r, ZERO, ZERO) - DYN.gravity_vector(Q)
    j = law.law.frame.at(Q)[0]
    assert np.abs(tau).max() > 0.1
    assert np.abs(j @ tau).max() < 1e-4 * np.abs(tau).max()  # mu^2 / the least of J J^T


def test_the_damper_acts_on_the_tools_velocity_against_the_targets():
    law = _law(spring=Cartesian((500.0,) * 3 + (30.0,) * 3, 0.7))
    qd = np.full(7, 0.1)
    still = law(Q, ZERO, Q, ZERO, ZERO)
    moving = law(Q, qd, Q, qd, ZERO)  # the reference moves with the arm: no damping
    nonlinear = DYN.inverse_dynamics(Q, qd, ZERO) - DYN.gravity_vector(Q)
    np.testing.assert_allclose(moving - still, nonlinear, atol=1e-9)
    damped = law(Q, qd, Q, ZERO, ZERO) - still - nonlinear
    j = law.law.frame.at(Q)[0]
    assert (j @ qd) @ np.linalg.lstsq(j.T, damped, rcond=None)[0] < 0.0  # opposes motion


@pytest.mark.parametrize('angle', [0.0, 1e-8, 0.4, 2.5, np.pi - 1e-5, np.pi])
def test_the_rotation_vector_is_the_rotations(angle):
    axis = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
    got = rotation_vector(Rotation.from_rotvec(angle * axis).as_matrix())
    want = angle * axis
    err = np.abs(got - want).max()
    if angle > np.pi - 1e-3:  # theta u and -theta u are the same rotation at pi
        err = min(err, np.abs(got + want).max())
    assert err < 1e-9, (got, want)


@pytest.mark.parametrize('spring, says', [
    (Cartesian((500.0,) * 5, 1.0), 'cartesian.stiffness: expected 6'),
    (Cartesian((500.0,) * 5 + (-1.0,), 1.0), 'cartesian.stiffness: expected 6'),
    (Cartesian((500.0,) * 5 + (float('nan'),), 1.0), 'cartesian.stiffness'),
    (Cartesian((500.0,) * 6, 6.0), 'cartesian.damping_ratio: expected 0 to 5'),
])
def test_a_spring_outside_its_range_is_refused_by_name(spring, says):
    with pytest.raises(InputError, match=says):
        _law(spring=spring)
