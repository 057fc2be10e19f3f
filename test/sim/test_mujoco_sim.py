"""MujocoSim directly: the simulated chain is the model's (g holds it), URDF limits are hard
stops, brakes hold until the first command, bad commands are refused."""

import numpy as np
import pytest

from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.errors import InputError
from robodyn_ros.model import load_robot
from robodyn_ros.model.registry import PANDA_HOME
from robodyn_ros.sim.mujoco_sim import MujocoSim, Obstacle

PANDA = load_robot('panda')
Q0 = np.array(PANDA_HOME)


def _run(sim, tau, steps):
    sim.set_command(tau)
    for _ in range(steps):
        sim.step()
    return sim.state()[0]


def test_gravity_torques_hold_the_arm_and_nothing_lets_it_fall():
    tau = RigidBodyDynamics(PANDA).gravity_vector(Q0)
    held = _run(MujocoSim(PANDA, Q0, friction=False), tau, 1000)
    assert np.abs(held - Q0).max() < 1e-6
    fallen = _run(MujocoSim(PANDA, Q0, friction=False), np.zeros(7), 1000)
    assert np.abs(fallen - Q0).max() > 0.05


def test_limits_are_hard_stops():
    q = _run(MujocoSim(PANDA, Q0), np.array([0.0, 0.0, 0.0, 50.0, 0.0, 0.0, 0.0]), 2000)
    assert q[3] <= PANDA.upper[3] + 0.02  # pushed into panda_joint4's upper limit, -0.07


def test_brakes_hold_until_the_first_command():
    sim = MujocoSim(PANDA, Q0, brakes=True)
    for _ in range(500):
        sim.step()
    assert np.array_equal(sim.state()[0], Q0) and sim.time == pytest.approx(0.5)
    assert np.abs(_run(sim, np.zeros(7), 500) - Q0).max() > 1e-3  # released: it falls


@pytest.mark.parametrize('tau', [np.zeros(6), np.array([np.nan] + [0.0] * 6)])
def test_bad_commands_are_refused(tau):
    with pytest.raises(InputError, match='finite'):
        MujocoSim(PANDA, Q0).set_command(tau)


def test_a_push_at_the_tool_is_the_jacobian_transpose_of_its_wrench_in_mujoco():
    """MuJoCo's own mapping of the push (mj_applyFT) against the URDF chain's Jacobian:
    two independent implementations of the external torque's ground truth."""
    from robodyn_ros.dynamics.contact_wrench import tool_jacobian
    model = load_robot('panda')
    sim = MujocoSim(model, model.mid_range + 0.2)
    wrench = np.array([20.0, -5.0, 10.0, 0.5, 0.0, -1.0])
    sim.set_push(wrench, start=0.002, duration=0.003)
    truth = []
    for _ in range(8):
        sim.set_command(RigidBodyDynamics(model).gravity_vector(sim.state()[0]))
        truth.append((sim.time, sim.state()[0], sim.external_torque()))
        sim.step()
    inside = [(q, tau) for t, q, tau in truth if 0.002 <= t < 0.005 - 1e-9]
    assert len(inside) == 3 and not any(tau.any() for t, _, tau in truth
                                        if t < 0.002 - 1e-9 or t >= 0.005)
    for q, tau in inside:
        np.testing.assert_allclose(tau, tool_jacobian(model, q).T @ wrench, atol=1e-9)
    with pytest.raises(InputError, match='push'):
        sim.set_push([1.0, 2.0], 0.0, 1.0)


@pytest.mark.parametrize('values, radius', [([0.3, 0.0, 0.5, 0.1, 0.1], 0.03),
                                            ([0.3, 0.0, 0.5, 0.1, 0.0, 0.1], 0.03),
                                            ([0.3, np.nan, 0.5, 0.1, 0.1, 0.1], 0.03),
                                            ([0.3, 0.0, 0.5, 0.1, 0.1, 0.1], 0.0)])
def test_an_impossible_obstacle_is_refused_naming_it(values, radius):
    with pytest.raises(InputError, match='obstacle: expected'):
        Obstacle.from_values(values, radius)


def test_the_tool_resting_on_the_obstacle_feels_its_weight_through_mujoco():
    """The box just under the tool of an arm with no torque on its last joint: the
    contact's joint torque is the constraint Jacobian's transpose of a normal force, and
    without an obstacle there is none."""
    model = load_robot('panda')
    free = MujocoSim(model, PANDA_HOME)
    free.step()
    assert not free.contact()[0].any() and free.contact()[1] == 0.0
    tool = np.array([0.307, 0.0, 0.5903])  # the tool point at PANDA_HOME (x, y, z) [m]
    sim = MujocoSim(model, PANDA_HOME, obstacle=Obstacle.from_values(
        [*tool[:2], tool[2] - 0.03 - 0.05 + 0.001, 0.05, 0.05, 0.05]))  # 1 mm overlap
    g = RigidBodyDynamics(model).gravity_vector(np.array(PANDA_HOME))
    sim.set_command(g * 0.9)  # the arm sags onto the box
    for _ in range(200):
        sim.step()
    torque, normal = sim.contact()
    assert normal > 1.0 and np.abs(torque).max() > 0.1
