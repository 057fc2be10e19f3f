"""control/reference/figures.py: the circle's phase starts and ends at rest and is smooth;
its joint trajectory puts the tool on the circle at the start orientation; bad figures are
refused in one line."""

import numpy as np
import pytest

from robodyn_ros.control.laws.cartesian_impedance import rotation_vector
from robodyn_ros.control.reference.figures import Circle, circle_through, circle_trajectory
from robodyn_ros.control.reference.trajectories import SplineTrajectory
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.dynamics.recursive.tip_frame import TipFrame
from robodyn_ros.errors import InputError
from robodyn_ros.model import load_robot

MODEL = load_robot('panda', tip_link='panda_hand')
Q0 = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])
FRAME = TipFrame(RigidBodyDynamics(MODEL))
BASE = MODEL.dh_table('standard').base


def _tool(q):
    _, r, p = FRAME.at(q)
    return BASE[:3, :3] @ p + BASE[:3, 3], BASE[:3, :3] @ r


def test_the_phase_rises_and_falls_at_rest_and_turns_a_whole_number_of_times():
    c = Circle(np.zeros(3), 0.1, 0.5, 2.0)
    assert c.phase(0.0) == (0.0, 0.0, 0.0)
    end = c.phase(c.duration)
    assert end[0] == pytest.approx(2 * np.pi * 3) and end[1:] == (0.0, 0.0)
    t = np.linspace(0.0, c.duration, 8001)
    phi = np.array([c.phase(s) for s in t])
    dt = t[1] - t[0]
    np.testing.assert_allclose(np.gradient(phi[:, 0], dt)[1:-1], phi[1:-1, 1], atol=1e-4)
    np.testing.assert_allclose(np.gradient(phi[:, 1], dt)[1:-1], phi[1:-1, 2], atol=1e-3)
    assert phi[:, 1].max() == pytest.approx(np.pi)


def test_the_joint_trajectory_puts_the_tool_on_the_circle():
    p0, r0 = _tool(Q0)
    circle = circle_through(p0, 0.1, 0.5, 1.0)
    figure = circle_trajectory(MODEL, Q0, circle)
    assert figure.times[0] > 0 and np.all(np.diff(figure.times) > 0)
    assert figure.times[-1] == pytest.approx(circle.duration)
    for t, q in zip(figure.times, figure.positions):
        p, r = _tool(q)
        assert np.linalg.norm(p - circle.point(t)) < 1e-10
        assert np.linalg.norm(rotation_vector(r0 @ r.T)) < 1e-10
    # the velocities and accelerations belong to the positions: a quintic spline through
    # them stays on the circle between the points too
    zero = np.zeros(7)
    spline = SplineTrajectory((Q0, zero, zero), figure.times, figure.positions, figure.velocities,
                              figure.accelerations)
    for t in np.linspace(0.0, circle.duration, 333):
        assert np.linalg.norm(_tool(spline(t)[0])[0] - circle.point(t)) < 1e-7
    np.testing.assert_allclose(figure.velocities[-1], 0.0, atol=1e-8)


def test_a_circle_out_of_reach_or_out_of_range_is_refused_in_one_line():
    p0, _ = _tool(Q0)
    with pytest.raises(InputError, match='leaves the reach|outside'):
        circle_trajectory(MODEL, Q0, circle_through(p0, 0.9, 0.5, 1.0))
    for kwargs in (dict(radius=0.0), dict(radius=float('nan')), dict(frequency=-1.0),
                   dict(plane='ab')):
        args = dict(radius=0.1, frequency=0.5) | kwargs
        with pytest.raises(InputError):
            circle_through(p0, **args)
