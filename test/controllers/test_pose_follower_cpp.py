"""The C++ pose follower (robodyn_controllers/pose_follower.cpp, through the C entry point
robodyn_follow_poses) against robodyn_ros' (control/reference/pose_target.py): the same
joint reference, step for step (to rounding), for the same targets at 10 Hz that jump,
turn, leave the reach and push joints into their limits, on arms of 6 and 7 joints."""

import ctypes

import numpy as np
import pytest
from scipy.spatial.transform import Rotation
from test_dh_dynamics_cpp import _D

from robodyn_ros.control.controller_config import ControllerConfig
from robodyn_ros.control.plugin_parameters import plugin_parameters, row_table
from robodyn_ros.control.reference.pose_target import PoseFollower, PoseTarget, TargetBounds
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.dynamics.recursive.tip_frame import TipFrame
from robodyn_ros.model import load_robot

pytestmark = pytest.mark.integration  # needs the colcon-built C++ package

H, EVERY, SPEED, TURN = 0.001, 100, 0.25, 1.0
#: The law's torque rate limit [N m/s]: the jerk bound is on in both.
RATE = 1000.0


def _targets(model, q0, rng, count):
    """count targets about the tool's start pose: jumps of up to 0.3 m and 1 rad, and one
    far outside the reach."""
    _, r0, p0 = (a.copy() for a in TipFrame(RigidBodyDynamics(model)).at(q0))
    rows = []
    for k in range(count):
        p = p0 + rng.uniform(-0.3, 0.3, 3) if k != 3 else p0 + np.array([0.0, 0.0, 2.0])
        r = Rotation.from_rotvec(rng.uniform(-1.0, 1.0, 3)).as_matrix() @ r0
        rows.append(np.concatenate([p, r.ravel()]))
    return np.array(rows)


def _cpp(library, values, limits, q0, targets, steps):
    lib = ctypes.CDLL(str(library))
    rows = row_table(values)
    n = rows.shape[0]
    tool = np.array(values['tool_rotation'] + values['tool_point'], dtype=float)
    out = np.zeros((steps, 3 * n))
    arrays = [np.ascontiguousarray(a, dtype=float) for a in (tool, limits)]
    code = lib.robodyn_follow_poses(
        ctypes.c_int(n), rows.ctypes.data_as(_D), *[a.ctypes.data_as(_D) for a in arrays],
        ctypes.c_double(SPEED), ctypes.c_double(TURN), ctypes.c_double(H), ctypes.c_double(RATE),
        np.ascontiguousarray(q0, dtype=float).ctypes.data_as(_D), ctypes.c_int(len(targets)),
        np.ascontiguousarray(targets).ctypes.data_as(_D), ctypes.c_int(EVERY),
        ctypes.c_int(steps), out.ctypes.data_as(_D))
    assert code == 0, code
    return out


def _python(model, limits, q0, targets, steps):
    n = model.n
    dyn = RigidBodyDynamics(model)
    follower = PoseFollower(TipFrame(dyn), q0, np.zeros(n), *limits.reshape(4, n),
                            TargetBounds(SPEED, TURN, (), RATE), H,
                            lambda q: np.diag(dyn.mass_matrix(q)))
    follower.advance(0.0)
    out = []
    for s in range(steps):
        if s % EVERY == 0 and s // EVERY < len(targets):
            t = targets[s // EVERY]
            follower.aim(PoseTarget(t[:3], t[3:].reshape(3, 3), False))
        out.append(np.concatenate(follower.advance((s + 1) * H)))
    return np.array(out)


@pytest.mark.parametrize('robot', ['panda', 'ur5'])
def test_the_cpp_follower_gives_the_python_reference(plugin_library, robot):
    model = load_robot(robot, require_effort_limits=False)
    values = plugin_parameters(model, ControllerConfig.from_parameters({}))
    n = model.n
    q0 = model.mid_range + 0.3
    limits = np.concatenate([model.lower + 0.05, model.upper - 0.05, np.full(n, 1.5),
                             np.full(n, 8.0)])
    targets = _targets(model, q0, np.random.default_rng(5), 8)
    steps = EVERY * len(targets) + 300
    got = _cpp(plugin_library, values, limits, q0, targets, steps)
    want = _python(model, limits, q0, targets, steps)
    worst = np.abs(got - want).max(axis=0)
    print(f'{robot}: worst |C++ - Python| position {worst[:n].max():.2e} rad, velocity '
          f'{worst[n:2 * n].max():.2e} rad/s, acceleration {worst[2 * n:].max():.2e} rad/s^2')
    assert np.abs(want[:, n:2 * n]).max() > 0.1  # the reference moved
    # rounding only: an acceleration is a velocity difference over one period (x 1000)
    np.testing.assert_allclose(got[:, :n], want[:, :n], atol=1e-12)
    np.testing.assert_allclose(got[:, n:2 * n], want[:, n:2 * n], atol=1e-11)
    np.testing.assert_allclose(got[:, 2 * n:], want[:, 2 * n:], atol=1e-8)
