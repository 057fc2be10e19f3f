"""The C++ tip kinematics (robodyn_controllers/tip_kinematics.hpp, through the C entry
point robodyn_tip_kinematics) against robodyn_ros' tool point (dynamics/tool_point.py, itself
held to Pinocchio's frame Jacobian and classical acceleration): the same J, J̇ q̇ and tip
pose on the exported rows, within 1e-12 of the largest, across the registry's arms
(revolute and prismatic joints, Hayati rows)."""

import ctypes

import numpy as np
import pytest
from test_dh_dynamics_cpp import _D

from robodyn_ros.control.controller_config import ControllerConfig
from robodyn_ros.control.plugin_parameters import plugin_parameters, row_table
from robodyn_ros.dynamics.tool_point import tool_point_motion
from robodyn_ros.model import load_robot

pytestmark = pytest.mark.integration  # needs the colcon-built C++ package

RELATIVE = 1e-12
ROBOTS = ('three_link', 'two_link', 'rp_arm', 'panda', 'ur5', 'kinova', 'z1', 'xarm7')


def _cpp(library, values, q, qd):
    lib = ctypes.CDLL(str(library))
    rows = row_table(values)
    n, count = rows.shape[0], q.shape[0]
    tool = np.ascontiguousarray(values['tool_rotation'] + values['tool_point'], dtype=float)
    jac, bias, pose = np.zeros((count, 6, n)), np.zeros((count, 6)), np.zeros((count, 12))
    q, qd = np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(qd, dtype=float)
    code = lib.robodyn_tip_kinematics(
        ctypes.c_int(n), rows.ctypes.data_as(_D), tool.ctypes.data_as(_D), ctypes.c_int(count),
        q.ctypes.data_as(_D), qd.ctypes.data_as(_D), jac.ctypes.data_as(_D),
        bias.ctypes.data_as(_D), pose.ctypes.data_as(_D))
    assert code == 0
    return jac, bias, pose


@pytest.mark.parametrize('robot', ROBOTS)
def test_jacobian_bias_and_pose_are_the_python_ones(plugin_library, robot):
    model = load_robot(robot, require_effort_limits=False)
    values = plugin_parameters(model, ControllerConfig.from_parameters({}))
    base = model.dh_table('standard').base  # DH frame 0 in base_link
    rng = np.random.default_rng(11)
    q = rng.uniform(np.maximum(model.lower, -2.5), np.minimum(model.upper, 2.5), (25, model.n))
    qd = rng.normal(0.0, 1.5, (25, model.n))
    jac, bias, pose = _cpp(plugin_library, values, q, qd)
    rot = np.kron(np.eye(2), base[:3, :3])  # frame 0 -> base_link, both halves
    for k in range(len(q)):
        want = tool_point_motion(model, q[k], qd[k])
        scale = max(1.0, float(np.abs(want.jacobian).max()))
        assert np.abs(rot @ jac[k] - want.jacobian).max() <= RELATIVE * scale, (robot, k)
        scale = max(1.0, float(np.abs(want.bias).max()))
        assert np.abs(rot @ bias[k] - want.bias).max() <= RELATIVE * scale, (robot, k)
        point = base[:3, :3] @ pose[k, 9:] + base[:3, 3]
        assert np.abs(point - want.point).max() <= RELATIVE * max(1.0, np.abs(point).max())
        axes = base[:3, :3] @ pose[k, :9].reshape(3, 3)  # the tip's axes in base_link
        assert np.abs(axes - model.fk(q[k])[:3, :3]).max() <= RELATIVE, (robot, k)


def test_a_tool_rotation_that_is_no_rotation_is_refused(plugin_library):
    model = load_robot('panda')
    values = plugin_parameters(model, ControllerConfig.from_parameters({}))
    values['tool_rotation'] = [2.0] + values['tool_rotation'][1:]
    lib = ctypes.CDLL(str(plugin_library))
    rows = row_table(values)
    tool = np.ascontiguousarray(values['tool_rotation'] + values['tool_point'], dtype=float)
    code = lib.robodyn_tip_kinematics(ctypes.c_int(model.n), rows.ctypes.data_as(_D),
                                      tool.ctypes.data_as(_D), ctypes.c_int(0), *[None] * 5)
    assert code == 1
