"""The project's payload regressor against Pinocchio's joint-torque regressor, and
tau_0 + Y_p pi = the inverse dynamics of the model carrying that payload."""

import numpy as np
import pytest

from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.dynamics.verification.pinocchio_chain import PinocchioChain
from robodyn_ros.identification import PayloadRegressor, from_vector, to_vector, with_payload
from robodyn_ros.identification.sim_example import TRUE_PAYLOAD
from robodyn_ros.model import load_robot
from robodyn_ros.model.inertial import Inertial
from robodyn_ros.model.inertial_parameters import (
    from_log_cholesky,
    is_consistent,
    log_cholesky,
)

PAYLOAD = to_vector(TRUE_PAYLOAD)


@pytest.mark.parametrize('robot', ['panda', 'ur5', 'three_link'])
def test_regressor_equals_pinocchios_on_random_states(robot):
    import pinocchio as pin
    model = load_robot(robot)
    regressor, reference = PayloadRegressor(model), PinocchioChain(model)
    in_last_body = to_vector(from_vector(PAYLOAD).transformed(model.tool))
    order = [0, 1, 2, 3, 4, 5, 7, 6, 8, 9]  # Pinocchio: m, mc, Ixx Ixy Iyy Ixz Iyz Izz
    rng = np.random.default_rng(1)
    for _ in range(20):
        q, qd, qdd = (rng.uniform(-1.5, 1.5, model.n) for _ in range(3))
        ours = regressor.payload(q, qd, qdd) @ PAYLOAD
        theirs = pin.computeJointTorqueRegressor(reference.model, reference.data,
                                                 reference.q(q), qd, qdd)[:, -10:]
        np.testing.assert_allclose(ours, theirs @ in_last_body[order], rtol=0,
                                   atol=1e-10 * max(np.abs(ours).max(), 1.0))


def test_known_part_plus_regressor_is_the_inverse_dynamics_with_the_payload():
    model = load_robot('panda')
    regressor = PayloadRegressor(model)
    zero = np.zeros(model.n)
    loaded = RigidBodyDynamics(with_payload(model, PAYLOAD), viscous=zero, coulomb=zero)
    rng = np.random.default_rng(2)
    for _ in range(20):
        q, qd, qdd = (rng.uniform(-1.5, 1.5, model.n) for _ in range(3))
        np.testing.assert_allclose(regressor.known(q, qd, qdd) +
                                   regressor.payload(q, qd, qdd) @ PAYLOAD,
                                   loaded.inverse_dynamics(q, qd, qdd), rtol=0, atol=1e-10)


def test_last_body_of_the_urdf_through_its_own_parameters():
    """Y pi with pi = the URDF's own last body reproduces the full inverse dynamics from a
    model whose last body is removed (its mass made negligible)."""
    from dataclasses import replace
    model = load_robot('three_link')
    body = model.bodies[-1].transformed(np.linalg.inv(model.tool))  # in the tip frame
    light = replace(model, bodies=model.bodies[:-1] + (Inertial(1e-12, np.zeros(3),
                                                                np.eye(3) * 1e-15),))
    regressor = PayloadRegressor(light)
    full = RigidBodyDynamics(model)
    q, qd, qdd = np.array([0.3, -0.2, 0.5]), np.array([1.0, -0.5, 0.2]), np.ones(3)
    np.testing.assert_allclose(regressor.known(q, qd, qdd) +
                               regressor.payload(q, qd, qdd) @ to_vector(body),
                               full.inverse_dynamics(q, qd, qdd), atol=1e-9)


def test_log_cholesky_round_trip_and_consistency():
    np.testing.assert_allclose(from_log_cholesky(log_cholesky(PAYLOAD)), PAYLOAD, atol=1e-12)
    assert is_consistent(PAYLOAD)
    impossible = PAYLOAD.copy()
    impossible[4] = 10.0  # Ixx above Iyy + Izz: triangle inequality broken
    assert not is_consistent(impossible)
    assert is_consistent(from_log_cholesky(log_cholesky(impossible)))  # projected back
