"""The tool point's J(q) and J̇(q, q̇) q̇ (dynamics/tool_point.py) against Pinocchio's frame
Jacobian and classical frame acceleration (PinocchioChain.tool_motion) on
every robot of the registry (revolute, prismatic, continuous joints), and a tool offset
against finite differences of J q̇ along the motion."""

import numpy as np
import pytest

from robodyn_ros.dynamics.tool_point import tool_jacobian, tool_point_motion
from robodyn_ros.model import load_robot
from robodyn_ros.model.registry import ROBOTS

pytest.importorskip('pinocchio')


@pytest.mark.parametrize('name', sorted(ROBOTS))
def test_jacobian_and_its_velocity_product_equal_pinocchio(name):
    from robodyn_ros.dynamics.verification.pinocchio_chain import PinocchioChain
    model = load_robot(name, require_effort_limits=False)
    chain = PinocchioChain(model)
    rng = np.random.default_rng(7)
    for _ in range(10):
        q, qd = rng.uniform(-1.0, 1.0, model.n), rng.normal(0.0, 1.5, model.n)
        got = tool_point_motion(model, q, qd)
        jac, bias = chain.tool_motion(q, qd, model.tip_link, model.base_link)
        np.testing.assert_allclose(got.jacobian, jac, atol=1e-12)
        np.testing.assert_allclose(got.bias, bias, atol=1e-11)
        assert np.abs(got.bias).max() > 1e-5  # a moving arm: the term is not all zeros


def test_an_offset_point_moves_as_finite_differences_say():
    model = load_robot('panda')
    offset = np.eye(4)
    offset[:3, :3] = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    offset[:3, 3] = (0.02, -0.01, 0.1)  # a tool centre point 0.1 m past the flange
    q, qd = np.array([0.1, -0.6, 0.2, -2.0, 0.1, 1.6, 0.7]), np.linspace(-1.0, 1.0, 7)
    got = tool_point_motion(model, q, qd, offset)
    h = 1e-6  # J̇ q̇ = d/dt (J(q(t)) q̇) at constant q̇
    numeric = (tool_jacobian(model, q + h * qd, offset) -
               tool_jacobian(model, q - h * qd, offset)) @ qd / (2 * h)
    np.testing.assert_allclose(got.bias, numeric, atol=1e-7)
    plain = tool_jacobian(model, q)  # the offset moves the point, not the angular rows
    np.testing.assert_allclose(got.jacobian[3:], plain[3:], atol=1e-15)
    assert np.abs(got.jacobian[:3] - plain[:3]).max() > 1e-2


def test_a_bad_offset_is_refused_naming_it():
    with pytest.raises(ValueError, match='offset: expected a finite 4x4 transform'):
        tool_jacobian(load_robot('panda'), np.zeros(7), np.eye(3))
