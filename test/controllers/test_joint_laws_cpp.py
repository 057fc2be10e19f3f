"""The C++ controller's laws (robodyn_controllers/joint_laws.hpp, through the C entry point
robodyn_joint_law) against robodyn_ros' laws (control/laws/): every mode, the same
sequences of states, references and gains (late cycles' larger errors, gain changes from
one state to the next, a velocity lag, each option), the same torques within 1e-12 of the
largest; a non-finite input stays non-finite in both (the supervisor refuses it)."""

import ctypes

import numpy as np
import pytest
from test_dh_dynamics_cpp import _D

from robodyn_ros.control.controller_config import ControllerConfig
from robodyn_ros.control.controller_dynamics import controller_dynamics
from robodyn_ros.control.laws import PLUGIN_MODES, ControlLaw, LawConfig
from robodyn_ros.control.plugin_parameters import plugin_parameters, row_table
from robodyn_ros.model import load_robot

pytestmark = pytest.mark.integration  # needs the colcon-built C++ package

RELATIVE = 1e-12
#: The laws without state (adaptive carries its estimate from cycle to cycle, and its
#: payload frame: test_adaptive_law_cpp.py feeds it sequences) and the task-space laws
#: (test_task_laws_cpp.py)
MODES = tuple(m for m in PLUGIN_MODES if m not in ('adaptive', 'cartesian_impedance',
                                                'operational_space'))
COUNT = 200
#: (include_gravity, include_friction, feedforward_pd, inertia_feedforward, velocity_lag)
SETTINGS = [(1, 0, 1, 1, 0.0), (1, 1, 1, 0, 0.0005), (0, 1, 0, 1, 0.002)]


def _sequence(model, seed):
    """COUNT cycles of a moving arm: errors growing in some (late cycles), gains that
    change between cycles."""
    rng = np.random.default_rng(seed)
    n = model.n
    t = np.arange(COUNT) * 1e-3
    q_r = 0.4 * np.sin(np.outer(t, 1.0 + np.arange(n)))
    qd_r = 0.4 * (1.0 + np.arange(n)) * np.cos(np.outer(t, 1.0 + np.arange(n)))
    qdd_r = rng.normal(0.0, 4.0, (COUNT, n))
    late = np.where(rng.random(COUNT) < 0.1, 20.0, 1.0)[:, None]  # a late cycle's error
    q = q_r + late * rng.normal(0.0, 1e-3, (COUNT, n))
    qd = qd_r + late * rng.normal(0.0, 1e-2, (COUNT, n))
    kp = np.repeat(rng.uniform(10.0, 500.0, (4, n)), COUNT // 4, axis=0)
    kd = np.repeat(rng.uniform(1.0, 40.0, (4, n)), COUNT // 4, axis=0)
    return q, qd, q_r, qd_r, qdd_r, kp, kd


def cpp_law(library, values, mode, settings, arrays):
    lib = ctypes.CDLL(str(library))
    rows = row_table(values)
    n = rows.shape[0]
    arrays = [np.ascontiguousarray(a, dtype=float) for a in arrays]
    gravity = np.ascontiguousarray(values['gravity'], dtype=float)
    flags = np.ascontiguousarray(settings, dtype=float)
    tau = np.zeros((arrays[0].shape[0], n))
    code = lib.robodyn_joint_law(
        ctypes.c_int(n), rows.ctypes.data_as(_D), gravity.ctypes.data_as(_D),
        mode.encode(), flags.ctypes.data_as(_D), ctypes.c_int(arrays[0].shape[0]),
        *[a.ctypes.data_as(_D) for a in arrays], tau.ctypes.data_as(_D))
    assert code == 0, f'robodyn_joint_law refused {mode!r} (code {code})'
    return tau


def python_law(dyn, mode, settings, arrays):
    gravity, friction, pd, inertia, lag = settings
    out = []
    for q, qd, q_r, qd_r, qdd_r, kp, kd in zip(*arrays):
        law = ControlLaw(dyn, LawConfig(mode, kp, kd, bool(gravity), bool(friction), bool(pd),
                                        lag, bool(inertia)))
        out.append(law(q, qd, q_r, qd_r, qdd_r))
    return np.array(out)


@pytest.mark.parametrize('robot', ['panda', 'ur5', 'three_link'])
@pytest.mark.parametrize('mode', MODES)
@pytest.mark.parametrize('settings', SETTINGS)
def test_both_languages_give_the_same_torque_for_every_law(plugin_library, robot, mode,
                                                           settings):
    model = load_robot(robot, require_effort_limits=False)
    config = ControllerConfig.from_parameters({'mode': mode})
    dyn, _ = controller_dynamics(model, config)
    values = plugin_parameters(model, config)
    arrays = _sequence(model, seed=hash((robot, mode)) % 1000)
    want = python_law(dyn, mode, settings, arrays)
    got = cpp_law(plugin_library, values, mode, settings, arrays)
    scale = max(1.0, float(np.abs(want).max()))
    worst = float(np.abs(got - want).max())
    assert worst <= RELATIVE * scale, f'{robot} {mode}: {worst:.3g} N m of {scale:.3g}'


def test_a_non_finite_input_stays_non_finite_and_an_unknown_mode_is_refused(plugin_library):
    model = load_robot('panda')
    config = ControllerConfig.from_parameters({})
    dyn, _ = controller_dynamics(model, config)
    values = plugin_parameters(model, config)
    arrays = [a[:3].copy() for a in _sequence(model, seed=1)]
    arrays[1][1, 2] = np.nan
    for mode in MODES:
        got = cpp_law(plugin_library, values, mode, SETTINGS[0], arrays)
        assert np.isfinite(got[0]).all() and not np.isfinite(got[1]).all(), mode
    lib = ctypes.CDLL(str(plugin_library))
    rows = row_table(values)
    code = lib.robodyn_joint_law(ctypes.c_int(model.n), rows.ctypes.data_as(_D),
                                 np.zeros(3).ctypes.data_as(_D), b'no_such_law',
                                 np.zeros(5).ctypes.data_as(_D), ctypes.c_int(0),
                                 *[None] * 7, None)
    assert code == 2
