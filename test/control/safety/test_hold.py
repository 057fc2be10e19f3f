"""The position hold's arithmetic (control/safety/hold.py): the bandwidth bounds, and the
hold in closed loop on MuJoCo through a loop whose states and commands are late, as the
node path's are on a loaded machine."""

from collections import deque

import numpy as np
import pytest

from robodyn_ros.control import ControllerConfig, ControllerCore
from robodyn_ros.control.safety.hold import (
    HOLD_DELAY_MARGIN,
    equivalent_gains,
    hold_acceleration,
    hold_bandwidths,
)
from robodyn_ros.model import load_urdf
from robodyn_ros.model.registry import PANDA_HOME, robot_path

PANDA = load_urdf(robot_path('panda')[0], tip_link='panda_hand')
#: joints 1 and 3 aligned (q2 = 0): the inertia joint 1 feels with the others free is 40
#: times below M_11, where a diagonal PD hold rang even within one cycle
ALIGNED = np.array([0.0, 0.0, 0.0, -1.57, 0.0, 1.87, 0.0])
ELSEWHERE = np.array([0.6, -0.4, -1.1, -2.2, 1.2, 2.4, -0.9])


def test_the_bandwidth_is_the_lowest_of_its_three_bounds():
    effort, inertia = np.array([87.0, 12.0, 12.0, 5.0]), np.array([2.0, 0.05, 0.005, 0.0])
    w = hold_bandwidths(effort, inertia, 0.0)
    np.testing.assert_allclose(w[:3], [np.sqrt(87.0 / (0.5 * 2.0)), np.sqrt(12.0 / 0.025),
                                       2 * np.pi * 5.0])
    assert w[3] == 0.0  # no inertia, no stiffness
    slow = hold_bandwidths(effort, inertia, 0.1)
    np.testing.assert_allclose(slow[:3], np.minimum(w[:3], HOLD_DELAY_MARGIN / 0.1))
    kp, kd = equivalent_gains(w, inertia)
    assert np.all(kp <= effort / 0.5 * (1 + 1e-12))
    np.testing.assert_allclose(kd, 2.0 * np.sqrt(kp * inertia))
    a = hold_acceleration(w, np.ones(4), np.zeros(4), np.ones(4))
    np.testing.assert_allclose(a, w * w - 2.0 * w)


def _held_through_a_late_loop(q0, latency_ms, seconds=2.5, **params):
    """(largest |q - q_trip|, largest |q - q_end| over the last 0.5 s) [rad] after a trip
    at ``q0`` with every joint moving at 0.1 rad/s, the states and the commands each late
    by half of ``latency_ms`` cycles; (inf, inf) once the arm is beyond its limits (the
    node refuses such a state)."""
    mujoco_sim = pytest.importorskip('robodyn_ros.sim.mujoco_sim')
    sim = mujoco_sim.MujocoSim(PANDA, q0=q0)
    sim.data.qvel[:] = 0.1
    core = ControllerCore(PANDA, ControllerConfig.from_parameters(
        dict(kp=[400.0], kd=[40.0], ramp_time=0.0, **params)))
    core.activate(0.0)
    names = list(PANDA.joint_names)
    q, qd, _ = sim.state()
    core.cycle(0.0, names, q, qd)
    core.supervisor.fault(0.0, 'test trip', latch=True)
    states = deque([(q, qd)] * (latency_ms // 2))
    commands = deque([core.supervisor.output.copy()] * (latency_ms - latency_ms // 2))
    path = []
    for k in range(1, int(seconds * 1000)):
        states.append(sim.state()[:2])
        command = core.cycle(k * 1e-3, names, *states.popleft())
        if command is None:
            return np.inf, np.inf
        commands.append(command.effort)
        sim.set_command(commands.popleft())
        sim.step()
        path.append(sim.data.qpos.copy())
    path = np.array(path)
    return float(np.abs(path - q).max()), float(np.abs(path[-500:] - path[-1]).max())


@pytest.mark.parametrize('q0', [PANDA_HOME, ALIGNED, ELSEWHERE],
                         ids=['home', 'aligned', 'elsewhere'])
def test_a_hold_built_for_30_ms_holds_through_30_ms_of_loop_latency(q0):
    """hold_latency 0.03 s holds within 0.05 rad, released at 0.1 rad/s on every joint,
    through 30 ms of latency, and the arm is at rest after 2 s; the diagonal PD hold the
    decoupled one replaced ran away (4-5 rad) from 'aligned' and 'elsewhere' with 3 ms."""
    drift, ringing = _held_through_a_late_loop(np.array(q0), 30, hold_latency=0.03)
    assert drift < 0.05 and ringing < 1e-3, (drift, ringing)


def test_the_node_default_holds_through_20_ms_of_loop_latency():
    """The node's default hold_latency (0.02 s) through 20 ms, from the pose where the
    hold built for one cycle rings at 20 ms."""
    drift, ringing = _held_through_a_late_loop(ELSEWHERE, 20)
    assert drift < 0.05 and ringing < 1e-3, (drift, ringing)


def test_a_one_cycle_hold_is_not_built_for_a_late_loop():
    """hold_latency 0 (the C++ controller's one-cycle loop) holds with a cycle or two of
    latency, and not with 40 ms: the bound is real, and the node's default needs it."""
    drift, ringing = _held_through_a_late_loop(ELSEWHERE, 2, hold_latency=0.0)
    assert drift < 0.05 and ringing < 1e-3, (drift, ringing)
    assert _held_through_a_late_loop(ELSEWHERE, 40, hold_latency=0.0)[0] > 0.2
