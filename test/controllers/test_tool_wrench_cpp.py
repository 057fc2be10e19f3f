"""The C++ controller's tool wrench (librobodyn_dynamics.so, src/tool_wrench.cpp) on the
rows and tool frame `robodyn export` writes, against robodyn_ros'
dynamics/contact_wrench.py on the URDF chain: the same states, the same wrench (1e-10
relative) and condition number, for 7-, 6- and 3-joint arms and a prismatic joint."""

import ctypes

import numpy as np
import pytest

from robodyn_ros.control.controller_config import ControllerConfig
from robodyn_ros.control.plugin_parameters import plugin_parameters, row_table
from robodyn_ros.dynamics.contact_wrench import tool_wrench
from robodyn_ros.model import load_robot

pytestmark = pytest.mark.integration  # needs the colcon-built C++ package

#: Relative to the largest wrench: the two paths build J from different frames (DH rows
#: against the URDF chain, equal to ~1e-15 m) and J^T's least squares amplifies that by
#: its condition number (up to ~1e3 at the states below).
RELATIVE = 1e-10
_D = ctypes.POINTER(ctypes.c_double)


def cpp_wrench(library, values, q, tau):
    """(wrench (count, 6), condition (count,), return code) from the C++ estimate."""
    lib = ctypes.CDLL(str(library))
    rows = row_table(values)
    n, count = rows.shape[0], q.shape[0]
    base = np.ascontiguousarray(values['base_rotation'], dtype=float)
    tool = np.ascontiguousarray(values['tool_point'], dtype=float)
    q, tau = (np.ascontiguousarray(a, dtype=float) for a in (q, tau))
    wrench, condition = np.zeros((count, 6)), np.zeros(count)
    code = lib.robodyn_tool_wrench(
        ctypes.c_int(n), rows.ctypes.data_as(_D), base.ctypes.data_as(_D),
        tool.ctypes.data_as(_D), ctypes.c_int(count), q.ctypes.data_as(_D),
        tau.ctypes.data_as(_D), wrench.ctypes.data_as(_D), condition.ctypes.data_as(_D))
    return wrench, condition, code


def _states(model, count=50, seed=3):
    rng = np.random.default_rng(seed)
    lo = np.where(np.isfinite(model.lower), model.lower, -np.pi)
    hi = np.where(np.isfinite(model.upper), model.upper, np.pi)
    q = rng.uniform(lo + 0.1 * (hi - lo), hi - 0.1 * (hi - lo), (count, model.n))
    return q, rng.normal(0.0, 5.0, (count, model.n))


@pytest.mark.parametrize('robot', ('panda', 'ur5', 'kinova', 'rp_arm', 'three_link'))
def test_cpp_wrench_equals_python_on_the_same_states(plugin_library, robot):
    model = load_robot(robot, require_effort_limits=False)
    values = plugin_parameters(model, ControllerConfig.from_parameters({}))
    q, tau = _states(model)
    cpp, condition, code = cpp_wrench(plugin_library, values, q, tau)
    assert code == 0
    python = [tool_wrench(model, qk, tk) for qk, tk in zip(q, tau)]
    expected = np.array([p.wrench for p in python])
    scale = float(np.max(np.abs(expected)))
    worst = float(np.max(np.abs(cpp - expected))) / scale
    assert worst <= RELATIVE, f'{robot}: C++ differs by {worst:.3g} relative'
    conditions = np.array([p.condition for p in python])
    finite = np.isfinite(conditions)
    assert np.array_equal(finite, np.isfinite(condition)), robot
    assert np.allclose(condition[finite], conditions[finite], rtol=1e-6), robot
    assert scale > 1.0  # the wrenches are not all near zero


def test_export_carries_a_base_rotation_that_is_not_the_identity():
    # the case the rotation into base_link exists for: on this arm DH frame 0 is not
    # base_link's axes, and the agreement above covers it
    values = plugin_parameters(load_robot('kinova'), ControllerConfig.from_parameters({}))
    assert not np.allclose(np.reshape(values['base_rotation'], (3, 3)), np.eye(3))


def test_cpp_wrench_refuses_a_base_rotation_that_is_not_a_rotation(plugin_library):
    model = load_robot('three_link')
    values = plugin_parameters(model, ControllerConfig.from_parameters({}))
    values['base_rotation'] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.1]
    q, tau = _states(model, count=2)
    assert cpp_wrench(plugin_library, values, q, tau)[2] == 1
