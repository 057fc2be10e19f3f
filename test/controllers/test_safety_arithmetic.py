"""One safety arithmetic for both paths: the C++ controller's limit_torque / rate_step
(torque_safety.hpp, through librobodyn_dynamics' C entry point) and the Python
supervisor's limit_into / rate_step fed identical sequences (late cycles, early cycles, a
clock stepping back, non-finite targets, effort limits lowered and raised) give identical
outputs and flags; the derived hold gains are the same numbers; the state checks (a
position jump, a frozen stream) judge identical state sequences alike."""

import ctypes
import os
import re

import numpy as np
import pytest

from robodyn_ros.control.safety.hold import hold_bandwidths
from robodyn_ros.control.safety.kernels import (
    FROZEN_SECONDS,
    JUMP_TOLERANCE,
    frozen_state,
    limit_into,
    position_jump,
    rate_step,
)

pytestmark = pytest.mark.integration  # needs the colcon-built C++ package

_D = ctypes.POINTER(ctypes.c_double)
_I = ctypes.POINTER(ctypes.c_int)
PERIOD, RATE = 0.001, 1000.0
FROZEN = FROZEN_SECONDS  # [s] one constant for both paths
HEADER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__)))), 'robodyn_controllers', 'include', 'robodyn_controllers', 'torque_safety.hpp')


def test_a_stream_counts_as_frozen_after_the_same_time_on_both_paths():
    with open(HEADER, encoding='utf-8') as handle:
        found = re.search(r'constexpr double FROZEN_SECONDS = ([0-9.e-]+);', handle.read())
    assert found and float(found.group(1)) == FROZEN_SECONDS, found


def _sequence(n=4, count=400, seed=11):
    """(targets, limits, elapsed): random targets beyond and within the limits, NaN and inf
    targets, cycles late by up to 200 periods, early ones, a clock step back, effort limits
    lowered below the output and raised again."""
    rng = np.random.default_rng(seed)
    targets = rng.normal(0.0, 40.0, (count, n))
    targets[rng.random((count, n)) < 0.03] = np.nan
    targets[rng.random((count, n)) < 0.01] = np.inf
    targets[rng.random((count, n)) < 0.01] = -np.inf
    limits = np.full((count, n), 30.0)
    limits[150:220] = 2.0  # lowered below the output reached
    limits[300:] = 50.0
    elapsed = np.full(count, PERIOD)
    elapsed[rng.random(count) < 0.05] = 0.2  # SIGSTOP-like late cycles
    elapsed[rng.random(count) < 0.05] = 0.0003  # early
    elapsed[77] = -0.004  # the clock stepped back
    return targets, limits, elapsed


def _cpp(lib, targets, limits, elapsed, start):
    count, n = targets.shape
    targets, limits, elapsed = (np.ascontiguousarray(a, dtype=float)
                                for a in (targets, limits, elapsed))
    last = np.array(start, dtype=float)
    out = np.zeros((count, n))
    flags = np.zeros(count, dtype=np.intc)
    lib.robodyn_limit_torque(ctypes.c_int(n), ctypes.c_int(count), targets.ctypes.data_as(_D),
                             limits.ctypes.data_as(_D), elapsed.ctypes.data_as(_D),
                             ctypes.c_double(RATE), ctypes.c_double(PERIOD),
                             last.ctypes.data_as(_D), out.ctypes.data_as(_D),
                             flags.ctypes.data_as(_I))
    return out, flags


def _python(targets, limits, elapsed, start):
    output = np.array(start, dtype=float)
    out, flags = [], []
    for target, limit, dt in zip(targets, limits, elapsed):
        flags.append(limit_into(target, output, rate_step(RATE, dt, PERIOD), limit))
        out.append(output.copy())
    return np.array(out), np.array(flags)


def test_both_paths_give_identical_outputs_and_flags(plugin_library):
    lib = ctypes.CDLL(str(plugin_library))
    targets, limits, elapsed = _sequence()
    start = [0.5, -3.0, 12.0, 0.0]
    cpp, cpp_flags = _cpp(lib, targets, limits, elapsed, start)
    py, py_flags = _python(targets, limits, elapsed, start)
    np.testing.assert_array_equal(cpp, py)
    np.testing.assert_array_equal(cpp_flags, py_flags)
    # the invariant both keep: no step above one period's budget, late cycles included
    steps = np.abs(np.diff(np.vstack([start, py]), axis=0))
    assert steps.max() <= RATE * PERIOD * (1 + 1e-12)
    assert np.isfinite(py).all()


def test_a_late_cycle_moves_one_period_not_more(plugin_library):
    lib = ctypes.CDLL(str(plugin_library))
    out, flags = _cpp(lib, np.array([[100.0]]), np.array([[87.0]]), np.array([0.2]), [0.0])
    assert out[0, 0] == pytest.approx(RATE * PERIOD)
    assert flags[0] == 3  # rate limited and clamped


def test_the_hold_bandwidths_are_the_same_numbers(plugin_library):
    """torque_safety.hpp's hold_bandwidth and hold.hold_bandwidths: the same w, bit for
    bit, for efforts, inertias (0 included) and loop latencies across their ranges."""
    lib = ctypes.CDLL(str(plugin_library))
    rng = np.random.default_rng(5)
    effort = rng.uniform(1.0, 300.0, 50)
    inertia = 10.0 ** rng.uniform(-4, 1, 50)
    inertia[7] = 0.0
    for latency in (0.0, 0.001, 0.03, 0.5):
        w = np.zeros(50)
        lib.robodyn_hold_bandwidths(ctypes.c_int(50), effort.ctypes.data_as(_D),
                                    inertia.ctypes.data_as(_D), ctypes.c_double(latency),
                                    w.ctypes.data_as(_D))
        np.testing.assert_allclose(w, hold_bandwidths(effort, inertia, latency), rtol=1e-15)
        assert w[7] == 0.0


def test_the_hold_watches_itself_alike(plugin_library):
    """torque_safety.hpp's watch_hold and PositionHold.watch: fed the same velocities
    (a hold running away on one joint and then another, spikes inside the settling time,
    NaN, a joint beyond its guard from the start), they halve the same bandwidths on the
    same states, bit for bit."""
    from robodyn_ros.control.safety import SafetyLimits
    from robodyn_ros.control.safety.hold import PositionHold
    lib = ctypes.CDLL(str(plugin_library))
    n, count = 3, 900
    rng = np.random.default_rng(9)
    guard = np.array([2.0, 2.5, 3.0])
    limits = SafetyLimits(effort=np.full(n, 80.0), max_torque_rate=RATE, period=PERIOD,
                          ramp_time=0.0, state_timeout=0.05, lower=np.full(n, -3.0),
                          upper=np.full(n, 3.0), velocity=guard, damping=np.ones(n),
                          loop_latency=0.02)
    m = np.diag([2.0, 0.5, 0.05])
    hold = PositionHold(limits, lambda q: m)
    qd0 = np.array([0.3, 3.4, np.nan])
    hold.start(np.zeros(n), 'here', qd0)
    w0 = hold.w.copy()
    t = np.cumsum(np.full(count, PERIOD))
    qd = rng.normal(0.0, 0.5, (count, n)) * np.linspace(1.0, 12.0, count)[:, None]
    qd[rng.random((count, n)) < 0.01] = np.nan
    w, joint = np.zeros((count, n)), np.zeros(count, dtype=np.int32)
    lib.robodyn_watch_hold(ctypes.c_int(n), ctypes.c_int(count), qd0.ctypes.data_as(_D),
                           guard.ctypes.data_as(_D), w0.ctypes.data_as(_D),
                           qd.ctypes.data_as(_D), t.ctypes.data_as(_D),
                           w.ctypes.data_as(_D), joint.ctypes.data_as(_I))
    halved = []
    for k in range(count):
        text = hold.watch(t[k], qd[k])
        halved.append(int(text.split('joint ')[1].split(' ')[0]) - 1 if text else -1)
        np.testing.assert_array_equal(w[k], hold.w, err_msg=str(k))
    assert halved == joint.tolist()
    assert 0 < sum(j >= 0 for j in halved) == hold.softenings == 4  # it ran out of halvings


def test_the_derived_acceleration_limit_looks_at_the_same_configurations(plugin_library):
    """torque_safety.hpp's spread_value (where the C++ controller looks for the largest
    M_jj) and controller_config.spread_configurations: the same points, bit for bit, for
    bounded and continuous joints."""
    from robodyn_ros.control.controller_config import SPREAD_SAMPLES, spread_configurations
    lib = ctypes.CDLL(str(plugin_library))
    lower = np.array([-2.9, -1.76, -np.inf, 0.0, -0.1])
    upper = np.array([2.9, 1.76, np.inf, 0.04, 3.75])
    expected = spread_configurations(lower, upper)
    for sample in range(SPREAD_SAMPLES):
        q = np.zeros(5)
        lib.robodyn_spread_configuration(ctypes.c_int(5), ctypes.c_int(sample),
                                         lower.ctypes.data_as(_D), upper.ctypes.data_as(_D),
                                         q.ctypes.data_as(_D))
        np.testing.assert_array_equal(q, expected[sample])
    assert np.all(np.abs(expected[:, 2]) <= np.pi)


def _states(n=3, count=1200, seed=3):
    """(q, qd, elapsed): an arm moving, glitches of 0.5 rad and 10 rad, a stream frozen
    while moving (must be found) and one repeating at rest (velocities 0: must not), late
    cycles, a clock stepping back."""
    rng = np.random.default_rng(seed)
    elapsed = np.full(count, PERIOD)
    elapsed[rng.random(count) < 0.03] = 0.2
    elapsed[50] = -0.002
    t = np.cumsum(np.maximum(elapsed, 0.0))
    q = 0.3 * np.sin(np.outer(t, np.arange(1, n + 1)))
    qd = 0.3 * np.cos(np.outer(t, np.arange(1, n + 1))) * np.arange(1, n + 1)
    q[100, 1] += 0.5
    q[101:104, 0] += 10.0
    q[200:500], qd[200:500] = q[200], qd[200]  # frozen while moving
    q[700:1000], qd[700:1000] = q[700], 0.0  # at rest
    return q, qd, elapsed


def _python_states(q, qd, velocity, elapsed):
    last_q, last_qd = q[0].copy(), qd[0].copy()
    since = frozen_for = 0.0
    jumps, frozen = [], []
    wrap = np.zeros(q.shape[1])
    for qk, qdk, dt in zip(q, qd, elapsed):
        since += max(dt, 0.0)
        j = position_jump(qk, last_q, velocity, wrap, since, JUMP_TOLERANCE)
        jumps.append(j)
        if j >= 0:
            frozen.append(0)
            continue
        frozen_for, is_frozen = frozen_state(qk, qdk, last_q, last_qd, dt, frozen_for, FROZEN)
        frozen.append(int(is_frozen))
        last_q, last_qd, since = qk.copy(), qdk.copy(), 0.0
    return np.array(jumps), np.array(frozen)


def test_the_state_checks_judge_alike(plugin_library):
    lib = ctypes.CDLL(str(plugin_library))
    q, qd, elapsed = _states()
    count, n = q.shape
    velocity = np.full(n, 2.0)
    jump, frozen = np.zeros(count, dtype=np.intc), np.zeros(count, dtype=np.intc)
    q, qd = np.ascontiguousarray(q), np.ascontiguousarray(qd)
    lib.robodyn_state_checks(ctypes.c_int(n), ctypes.c_int(count), q.ctypes.data_as(_D),
                             qd.ctypes.data_as(_D), velocity.ctypes.data_as(_D),
                             elapsed.ctypes.data_as(_D), ctypes.c_double(FROZEN),
                             jump.ctypes.data_as(_I),
                             frozen.ctypes.data_as(_I))
    py_jump, py_frozen = _python_states(q, qd, velocity, elapsed)
    np.testing.assert_array_equal(jump, py_jump)
    np.testing.assert_array_equal(frozen, py_frozen)
    assert jump[100] == 1 and (jump[101:104] == 0).all()  # the glitches, found
    assert frozen[200:500].any() and not frozen[700:1000].any()  # frozen while moving only
    assert (jump[:100] < 0).all() and not frozen[:200].any()  # motion is not a fault
