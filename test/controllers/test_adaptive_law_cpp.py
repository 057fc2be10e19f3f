"""The C++ adaptive law (robodyn_controllers/joint_laws.cpp over payload_adaptation.hpp,
through the C entry points) against robodyn_ros' (control/laws/adaptive.py): the payload's
Slotine-Li regressor, the estimate's projection, and the law over sequences that carry the
estimate from cycle to cycle (late and early stamps, frozen cycles, a rest, a mass cap, a
non-finite state), within 1e-12 of the largest value."""

import ctypes

import numpy as np
import pytest
from test_dh_dynamics_cpp import _D

from robodyn_ros.control.controller_config import ControllerConfig
from robodyn_ros.control.controller_dynamics import controller_dynamics
from robodyn_ros.control.laws import Adaptation, ControlLaw, LawConfig
from robodyn_ros.control.laws.adaptive import project
from robodyn_ros.control.plugin_parameters import plugin_parameters, row_table
from robodyn_ros.dynamics.payload_regressor import PayloadRegressor
from robodyn_ros.errors import InputError
from robodyn_ros.model import load_robot

pytestmark = pytest.mark.integration  # needs the colcon-built C++ package

RELATIVE = 1e-12
ROBOTS = ('panda', 'ur5', 'rp_arm', 'kinova')


def _setup(robot):
    model = load_robot(robot, require_effort_limits=False)
    config = ControllerConfig.from_parameters({'mode': 'adaptive'})
    dyn, _ = controller_dynamics(model, config)
    values = plugin_parameters(model, config)
    tool = np.ascontiguousarray(values['tool_rotation'] + values['tool_point'], dtype=float)
    return model, dyn, values, tool


def _arrays(*arrays):
    return [np.ascontiguousarray(a, dtype=float) for a in arrays]


def _cpp_regressor(library, values, tool, q, qd, v, a):
    lib = ctypes.CDLL(str(library))
    rows = row_table(values)
    n, count = rows.shape[0], q.shape[0]
    gravity = np.ascontiguousarray(values['gravity'], dtype=float)
    y = np.zeros((count, n, 10))
    code = lib.robodyn_payload_regressor(
        ctypes.c_int(n), rows.ctypes.data_as(_D), gravity.ctypes.data_as(_D),
        tool.ctypes.data_as(_D), ctypes.c_int(count),
        *[x.ctypes.data_as(_D) for x in _arrays(q, qd, v, a)], y.ctypes.data_as(_D))
    assert code == 0
    return y


@pytest.mark.parametrize('robot', ROBOTS)
def test_the_payload_regressor_is_the_python_one(plugin_library, robot):
    model, dyn, values, tool = _setup(robot)
    rng = np.random.default_rng(7)
    count, n = 30, model.n
    q = rng.uniform(-1.5, 1.5, (count, n))
    qd, v, a = (rng.normal(0.0, 1.5, (count, n)) for _ in range(3))
    got = _cpp_regressor(plugin_library, values, tool, q, qd, v, a)
    regressor = PayloadRegressor(dyn.model, dyn.gravity)
    for k in range(count):
        want = regressor.slotine_li(q[k], qd[k], v[k], a[k])
        scale = max(1.0, float(np.abs(want).max()))
        assert np.abs(got[k] - want).max() <= RELATIVE * scale, (robot, k)


def test_the_projection_is_the_python_one(plugin_library):
    rng = np.random.default_rng(3)
    rows = np.vstack([rng.normal(0.0, 1.0, (40, 10)),  # mostly inconsistent
                      np.tile([2.0, 0.1, 0.0, 0.2, 0.05, 0.0, 0.0, 0.05, 0.0, 0.02], (1, 1)),
                      np.zeros((1, 10))])
    lib = ctypes.CDLL(str(plugin_library))
    for mass_max in (5.0, 0.5):
        got = np.ascontiguousarray(rows.copy())
        lib.robodyn_project_payload(ctypes.c_int(len(rows)), ctypes.c_double(mass_max),
                                    got.ctypes.data_as(_D))
        for k, row in enumerate(rows):
            want = project(row, mass_max)
            scale = max(1e-3, float(np.abs(want).max()))
            assert np.abs(got[k] - want).max() <= RELATIVE * scale, (mass_max, k, got[k], want)
            assert got[k][0] <= mass_max * (1 + 1e-12)


def _sequence(n, count, seed):
    """A moving arm with a hidden payload's tracking errors; stamps 1 ms apart with jitter,
    a late cycle (20 ms: beyond MAX_STEP) and an early one; cycles where adaptation is not
    allowed (a contact, a hold) and a rest at the end."""
    rng = np.random.default_rng(seed)
    t = np.arange(count) * 1e-3
    w = 1.0 + 0.3 * np.arange(n)
    q_r = 0.5 * np.sin(np.outer(t, w))
    qd_r = 0.5 * w * np.cos(np.outer(t, w))
    qdd_r = -0.5 * w * w * np.sin(np.outer(t, w))
    q = q_r + rng.normal(0.0, 3e-3, (count, n))
    qd = qd_r + rng.normal(0.0, 3e-2, (count, n))
    rest = slice(count - 40, count)
    q_r[rest], q[rest] = q_r[count - 41], q_r[count - 41] + 1e-3
    qd_r[rest] = qdd_r[rest] = 0.0
    qd[rest] = 1e-3
    stamps = t + rng.uniform(-2e-4, 2e-4, count)
    stamps[100:] += 0.02  # one late cycle
    stamps[150] = stamps[149] - 1e-4  # one that goes back in time: no step
    allowed = np.ones(count)
    allowed[200:230] = 0.0
    return stamps, allowed, q, qd, q_r, qd_r, qdd_r


def _cpp_adaptive(library, values, tool, settings, adaptation, stamps, allowed, arrays):
    lib = ctypes.CDLL(str(library))
    rows = row_table(values)
    n, count = rows.shape[0], len(stamps)
    gravity = np.ascontiguousarray(values['gravity'], dtype=float)
    tau, pi = np.zeros((count, n)), np.zeros((count, 10))
    code = lib.robodyn_adaptive_law(
        ctypes.c_int(n), rows.ctypes.data_as(_D), gravity.ctypes.data_as(_D),
        *[x.ctypes.data_as(_D) for x in _arrays(settings, tool, adaptation)],
        ctypes.c_int(count), *[x.ctypes.data_as(_D) for x in _arrays(stamps, allowed)],
        *[x.ctypes.data_as(_D) for x in _arrays(*arrays)], tau.ctypes.data_as(_D),
        pi.ctypes.data_as(_D))
    assert code == 0, code
    return tau, pi


def _python_adaptive(dyn, settings, adaptation, stamps, allowed, arrays):
    gravity, friction, pd, inertia, lag = settings
    q, qd, q_r, qd_r, qdd_r, kp, kd = arrays
    law = ControlLaw(dyn, LawConfig('adaptive', kp[0], kd[0], bool(gravity), bool(friction),
                                    bool(pd), lag, bool(inertia), adaptation))
    taus, pis = [], []
    for k in range(len(stamps)):
        try:
            taus.append(law(q[k], qd[k], q_r[k], qd_r[k], qdd_r[k]))
        except InputError:  # a non-finite state: the core faults (the C++ torque is NaN)
            taus.append(np.full(len(q[k]), np.nan))
        law.adapt(float(stamps[k]), bool(allowed[k]))  # then held, as the C++ estimate
        pis.append(law.law.estimate.pi.copy())
    return np.array(taus), np.array(pis)


#: (include_gravity, include_friction, feedforward_pd, inertia_feedforward, velocity_lag)
#: and the adaptation: fast rates, and one with a mass cap the estimate runs into
CASES = [((1, 0, 0, 1, 0.0), Adaptation((20.0, 0.5, 0.01), 5.0, 0.01)),
         ((0, 1, 0, 1, 0.0005), Adaptation((200.0, 2.0, 0.05), 0.05, 0.01))]


@pytest.mark.parametrize('robot', ['panda', 'rp_arm'])
@pytest.mark.parametrize('case', range(len(CASES)))
def test_the_adaptive_law_gives_the_python_torques_and_estimates(plugin_library, robot,
                                                                  case):
    model, dyn, values, tool = _setup(robot)
    settings, adaptation = CASES[case]
    count, n = 400, model.n
    stamps, allowed, *states = _sequence(n, count, seed=case)
    kp, kd = np.full((count, n), 8.0), np.full((count, n), 15.0)
    arrays = [*states, kp, kd]
    numbers = np.array([*adaptation.gamma, adaptation.mass_max, adaptation.rest_speed])
    tau, pi = _cpp_adaptive(plugin_library, values, tool, settings, numbers, stamps, allowed,
                            arrays)
    want_tau, want_pi = _python_adaptive(dyn, settings, adaptation, stamps, allowed, arrays)
    assert np.abs(want_pi[-1] - want_pi[0]).max() > 1e-5  # the estimate did move
    assert np.all(want_pi[200:230] == want_pi[199])  # frozen while not allowed
    assert np.all(want_pi[-30:] == want_pi[-31])  # and at rest
    if adaptation.mass_max < 1.0:
        assert want_pi[:, 0].max() == pytest.approx(adaptation.mass_max)  # the cap reached
    tau_scale = max(1.0, float(np.abs(want_tau).max()))
    assert np.abs(tau - want_tau).max() <= RELATIVE * tau_scale
    pi_scale = max(1e-3, float(np.abs(want_pi).max()))
    assert np.abs(pi - want_pi).max() <= RELATIVE * pi_scale


def test_a_non_finite_state_leaves_the_estimate_as_it_was(plugin_library):
    model, dyn, values, tool = _setup('panda')
    settings, adaptation = CASES[0]
    count, n = 60, model.n
    stamps, allowed, *states = (a[:count] for a in _sequence(n, 400, seed=5))
    states[1][30, 2] = np.nan  # qd
    arrays = [*states, np.full((count, n), 8.0), np.full((count, n), 15.0)]
    numbers = np.array([*adaptation.gamma, adaptation.mass_max, adaptation.rest_speed])
    tau, pi = _cpp_adaptive(plugin_library, values, tool, settings, numbers, stamps, allowed,
                            arrays)
    want_tau, want_pi = _python_adaptive(dyn, settings, adaptation, stamps, allowed, arrays)
    assert not np.isfinite(tau[30]).all() and not np.isfinite(want_tau[30]).all()
    assert np.isfinite(pi).all() and np.isfinite(want_pi).all()
    assert np.all(pi[30] == pi[29]) and np.all(want_pi[30] == want_pi[29])
    assert np.abs(pi - want_pi).max() <= RELATIVE * max(1e-3, float(np.abs(want_pi).max()))


def test_settings_the_law_cannot_take_are_refused(plugin_library):
    model, dyn, values, tool = _setup('panda')
    lib = ctypes.CDLL(str(plugin_library))
    rows = row_table(values)
    gravity = np.ascontiguousarray(values['gravity'], dtype=float)
    bad_tool = tool.copy()
    bad_tool[0] = 2.0  # not a rotation
    for tool_, numbers in ((bad_tool, [0.2, 0.005, 5e-5, 5.0, 0.01]),
                           (tool, [-1.0, 0.005, 5e-5, 5.0, 0.01]),
                           (tool, [0.2, 0.005, 5e-5, 0.0, 0.01]),
                           (tool, [0.2, 0.005, 5e-5, 5.0, np.nan])):
        code = lib.robodyn_adaptive_law(
            ctypes.c_int(model.n), rows.ctypes.data_as(_D), gravity.ctypes.data_as(_D),
            *[x.ctypes.data_as(_D) for x in _arrays(np.zeros(5), tool_, numbers)],
            ctypes.c_int(0), *[None] * 11)
        assert code == 1, (tool_[:3], numbers)
