"""The C++ task-space laws, cartesian_impedance and operational_space
(robodyn_controllers/task_laws.cpp over task_space.hpp and tip_kinematics.hpp, through the
C entry point robodyn_task_law) against robodyn_ros' (control/laws/cartesian_impedance.py,
operational_space.py): the same torques within 1e-12 of the largest where J
is well conditioned (its least singular value 0.05 or more), on random states and
references, large pose errors, gains that change from cycle to cycle, feed-forward tool
wrenches and non-finite inputs.
Near a singularity (and on an arm of fewer than six joints, always) the task-space solves
amplify the rounding of M, which the two languages form in different frames (composite
rigid bodies, Python's in the links' frames, C++'s in frame 0): there, within 1e-12 x the
condition number of J M^-1 J^T + mu^2 1. operational_space multiplies its whole task force
by the inverse of J M^-1 J^T + DAMPING 1, so the rounding of M reaches its torque scaled by
that matrix's condition number everywhere: within 1e-15 x it where J is well conditioned
(1e-12 x it elsewhere)."""

import ctypes

import numpy as np
import pytest
from test_dh_dynamics_cpp import _D

from robodyn_ros.control.controller_config import ControllerConfig
from robodyn_ros.control.controller_dynamics import controller_dynamics
from robodyn_ros.control.laws import Cartesian, ControlLaw, LawConfig
from robodyn_ros.control.plugin_parameters import plugin_parameters, row_table
from robodyn_ros.errors import InputError
from robodyn_ros.model import load_robot

pytestmark = pytest.mark.integration  # needs the colcon-built C++ package

RELATIVE = 1e-12
MODES = ('cartesian_impedance', 'operational_space')
#: what each law adds to J M^-1 J^T's diagonal before its inverse
TASK_DAMPING = {'cartesian_impedance': 1e-6, 'operational_space': 1e-4}
ROBOTS = ('panda', 'ur5', 'kinova', 'rp_arm')
WELL_CONDITIONED = 0.05  # J's least singular value [m or 1]
#: (include_gravity, include_friction, feedforward_pd, inertia_feedforward, velocity_lag),
#: the spring
CASES = [((1, 0, 0, 1, 0.0), Cartesian()),
         ((0, 1, 0, 1, 0.0005), Cartesian((800.0, 300.0, 1200.0, 10.0, 50.0, 25.0), 0.4))]


def _cpp(library, mode, values, tool, settings, spring, arrays, wrench=None):
    lib = ctypes.CDLL(str(library))
    rows = row_table(values)
    n, count = rows.shape[0], arrays[0].shape[0]
    gravity = np.ascontiguousarray(values['gravity'], dtype=float)
    numbers = np.array([*spring.stiffness, spring.damping_ratio], dtype=float)
    tau = np.zeros((count, n))
    contiguous = [np.ascontiguousarray(a, dtype=float) for a in
                  (settings, tool, numbers, *arrays)]
    code = lib.robodyn_task_law(
        mode.encode(), ctypes.c_int(n), rows.ctypes.data_as(_D), gravity.ctypes.data_as(_D),
        *[a.ctypes.data_as(_D) for a in contiguous[:3]], ctypes.c_int(count),
        *[a.ctypes.data_as(_D) for a in contiguous[3:]],
        None if wrench is None else np.ascontiguousarray(wrench).ctypes.data_as(_D),
        tau.ctypes.data_as(_D))
    assert code == 0, code
    return tau


def _python(dyn, mode, settings, spring, arrays, wrench=None):
    gravity, friction, pd, inertia, lag = settings
    q, qd, q_r, qd_r, qdd_r, kp, kd = arrays
    taus = []
    for k in range(q.shape[0]):
        law = ControlLaw(dyn, LawConfig(mode, kp[k], kd[k], bool(gravity),
                                        bool(friction), bool(pd), lag, bool(inertia),
                                        cartesian=spring))
        try:
            taus.append(law(q[k], qd[k], q_r[k], qd_r[k], qdd_r[k],
                            None if wrench is None else wrench[k]))
        except InputError:  # a non-finite state: the core faults (the C++ torque is NaN)
            taus.append(np.full(q.shape[1], np.nan))
    return np.array(taus)


@pytest.mark.parametrize('mode', MODES)
@pytest.mark.parametrize('robot', ROBOTS)
@pytest.mark.parametrize('case', range(len(CASES)))
def test_the_task_law_gives_the_python_torques(plugin_library, mode, robot, case):
    model = load_robot(robot, require_effort_limits=False)
    config = ControllerConfig.from_parameters({'mode': mode})
    dyn, _ = controller_dynamics(model, config)
    values = plugin_parameters(model, config)
    tool = np.array(values['tool_rotation'] + values['tool_point'])
    settings, spring = CASES[case]
    rng = np.random.default_rng(11 + case)
    count, n = 40, model.n
    q = rng.uniform(-1.5, 1.5, (count, n))
    q_r = q + rng.normal(0.0, 0.05, (count, n))
    q_r[5] = q[5] + rng.normal(0.0, 1.2, n)  # a large pose error (rotation towards pi)
    qd, qd_r, qdd_r = (rng.normal(0.0, 1.0, (count, n)) for _ in range(3))
    kp, kd = rng.uniform(0.0, 50.0, (count, n)), rng.uniform(0.0, 10.0, (count, n))
    arrays = [q, qd, q_r, qd_r, qdd_r, kp, kd]
    # the second case with a feed-forward wrench at the tool point (LawInput.wrench)
    wrench = rng.normal(0.0, [10.0] * 3 + [1.0] * 3, (count, 6)) if case else None
    got = _cpp(plugin_library, mode, values, tool, settings, spring, arrays, wrench)
    want = _python(dyn, mode, settings, spring, arrays, wrench)
    frame = ControlLaw(dyn, LawConfig(mode, kp[0], kd[0])).law.frame
    strict = 0
    for k in range(count):
        j = frame.at(q[k])[0]
        task = j @ np.linalg.solve(dyn.mass_matrix(q[k]), j.T) + TASK_DAMPING[mode] * np.eye(6)
        well = model.n >= 6 and np.linalg.svd(j, compute_uv=False)[-1] >= WELL_CONDITIONED
        strict += well
        bound = RELATIVE * max(1.0, float(np.abs(want[k]).max()))
        if not well or mode == 'operational_space':
            bound *= np.linalg.cond(task) * (1e-3 if well else 1.0)  # 1e-15 x where well
        assert np.abs(got[k] - want[k]).max() <= bound, (robot, k, well)
    assert strict >= (count // 4 if model.n >= 6 else 0), strict


@pytest.mark.parametrize('mode', MODES)
def test_a_non_finite_state_gives_a_non_finite_torque_the_supervisor_refuses(plugin_library,
                                                                             mode):
    model = load_robot('panda')
    config = ControllerConfig.from_parameters({'mode': mode})
    values = plugin_parameters(model, config)
    tool = np.array(values['tool_rotation'] + values['tool_point'])
    q = np.tile(model.mid_range, (2, 1))
    q[1, 3] = np.nan
    zero = np.zeros_like(q)
    got = _cpp(plugin_library, mode, values, tool, CASES[0][0], Cartesian(),
               [q, zero, q, zero, zero, zero + 10.0, zero + 1.0])
    assert np.all(np.isfinite(got[0])) and not np.all(np.isfinite(got[1]))


def test_another_mode_is_refused(plugin_library):
    model = load_robot('panda')
    config = ControllerConfig.from_parameters({'mode': 'cartesian_impedance'})
    values = plugin_parameters(model, config)
    lib = ctypes.CDLL(str(plugin_library))
    rows = row_table(values)
    zero = np.zeros(64)
    code = lib.robodyn_task_law(b'computed_torque', ctypes.c_int(model.n),
                                rows.ctypes.data_as(_D), zero.ctypes.data_as(_D),
                                *[zero.ctypes.data_as(_D)] * 4, ctypes.c_int(0),
                                *[zero.ctypes.data_as(_D)] * 9)
    assert code == 2
