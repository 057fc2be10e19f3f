"""The C++ controller's momentum observer (librobodyn_dynamics.so) on the rows `robodyn
export` writes, against robodyn_ros' dynamics/momentum_observer.py: the same samples, the
same estimates (1e-12 relative), pushes, gaps and restarts included."""

import ctypes

import numpy as np
import pytest

from robodyn_ros.control.controller_config import ControllerConfig
from robodyn_ros.control.controller_dynamics import controller_dynamics
from robodyn_ros.control.plugin_parameters import plugin_parameters, row_table
from robodyn_ros.dynamics.momentum_observer import MomentumObserver, ObserverSettings
from robodyn_ros.model import load_robot

pytestmark = pytest.mark.integration  # needs the colcon-built C++ package

RELATIVE = 1e-12
_D = ctypes.POINTER(ctypes.c_double)


def cpp_observer(library, values, gain, max_step, stamps, q, qd, tau):
    """r (count, n) from the C++ MomentumObserver; the C entry's return code."""
    lib = ctypes.CDLL(str(library))
    rows = row_table(values)
    n, count = rows.shape[0], q.shape[0]
    arrays = [np.ascontiguousarray(a, dtype=float) for a in (stamps, q, qd, tau)]
    gravity = np.ascontiguousarray(values['gravity'], dtype=float)
    r = np.zeros((count, n))
    code = lib.robodyn_momentum_observer(
        ctypes.c_int(n), rows.ctypes.data_as(_D), gravity.ctypes.data_as(_D),
        ctypes.c_double(gain), ctypes.c_double(max_step), ctypes.c_int(count),
        *(a.ctypes.data_as(_D) for a in arrays), r.ctypes.data_as(_D))
    return r, code


def _sequence(model, count=400, seed=5):
    """Smooth random motion with applied torques, a 30 ms gap at sample 200, the stream
    restarting (a stamp going back) at sample 300, and a driver repeating its reading
    (samples 101-103: a fresh one spans them; 350-369: a gap)."""
    rng = np.random.default_rng(seed)
    t = np.arange(count) * 1e-3
    t[200:] += 0.03
    t[300:] -= 0.25
    w = rng.uniform(0.5, 3.0, model.n)
    phase = rng.uniform(0, 2 * np.pi, model.n)
    q = model.mid_range + 0.4 * np.sin(np.outer(t, w) + phase)
    qd = 0.4 * w * np.cos(np.outer(t, w) + phase)
    tau = rng.normal(0.0, 5.0, (count, model.n))
    for first, last in ((100, 104), (349, 370)):
        if last <= count:
            q[first + 1:last], qd[first + 1:last] = q[first], qd[first]
    return t, q, qd, tau


@pytest.mark.parametrize('robot', ('panda', 'ur5', 'rp_arm', 'kinova'))
def test_cpp_estimates_equal_python_on_the_same_samples(plugin_library, robot):
    model = load_robot(robot, require_effort_limits=False)
    config = ControllerConfig.from_parameters({'include_friction': True,
                                               'friction_smoothing': 0.02})
    values = plugin_parameters(model, config)
    dyn, _ = controller_dynamics(model, config)
    stamps, q, qd, tau = _sequence(model)
    observer = MomentumObserver(dyn, ObserverSettings(50.0, 0.005))
    python = np.array([observer.update(*s).copy() for s in zip(stamps, q, qd, tau)])
    cpp, code = cpp_observer(plugin_library, values, 50.0, 0.005, stamps, q, qd, tau)
    assert code == 0
    scale = max(1.0, float(np.max(np.abs(python))))
    worst = float(np.max(np.abs(cpp - python))) / scale
    assert worst <= RELATIVE, f'{robot}: C++ differs by {worst:.3g} relative'
    assert np.max(np.abs(python)) > 1.0  # the estimates are not all near zero


def test_cpp_observer_refuses_unstable_settings_and_non_finite_samples(plugin_library):
    model = load_robot('three_link')
    values = plugin_parameters(model, ControllerConfig.from_parameters({}))
    stamps, q, qd, tau = _sequence(model, count=5)
    assert cpp_observer(plugin_library, values, 500.0, 0.005, stamps, q, qd, tau)[1] == 1
    tau[3, 0] = np.nan
    assert cpp_observer(plugin_library, values, 50.0, 0.005, stamps, q, qd, tau)[1] == 2
