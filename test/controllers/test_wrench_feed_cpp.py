"""The C++ wrench feed (robodyn_controllers/wrench_feed.hpp, through the C entry point
robodyn_wrench_feed) against robodyn_ros' (control/reference/wrench_target.py): the same
checks (applied, scaled down, refused when not finite) and the same applied wrench in every
cycle, within 1e-12 N, over targets that jump, exceed the bounds, stop (the timeout's ramp
to zero) and come back, in a base link turned away from DH frame 0."""

import ctypes

import numpy as np
import pytest
from test_dh_dynamics_cpp import _D

from robodyn_ros.control.reference.wrench_target import WrenchBounds, WrenchFeed

pytestmark = pytest.mark.integration  # needs the colcon-built C++ package

BOUNDS = WrenchBounds(max_force=20.0, max_torque=2.0, rise_time=0.2, timeout=0.5)
PERIOD, STEPS = 1e-3, 2500
#: DH frame 0 in the base link: turned 0.3 rad about z, then 0.2 about x
_C, _S = np.cos(0.3), np.sin(0.3)
BASE = np.eye(4)
BASE[:3, :3] = np.array([[_C, -_S, 0.0], [_S, _C, 0.0], [0.0, 0.0, 1.0]]) @ np.array(
    [[1.0, 0.0, 0.0], [0.0, np.cos(0.2), -np.sin(0.2)], [0.0, np.sin(0.2), np.cos(0.2)]])
#: (cycle, force, torque): a step, a jump, too large, not finite, a stop, a return
TARGETS = [(5, (5.0, 0.0, -2.0), (0.0, 0.3, 0.0)),
           (200, (-8.0, 6.0, 1.0), (0.1, 0.0, -0.4)),
           (260, (30.0, 40.0, 0.0), (0.0, 0.0, 5.0)),
           (300, (np.nan, 0.0, 0.0), (0.0, 0.0, 0.0)),
           (1500, (0.0, 0.0, 12.0), (1.0, 1.0, 0.0))]
CHECKS = {'applying': 0, 'scaled down to max_force, max_torque': 1}


def _python():
    feed = WrenchFeed(BOUNDS, 'base', BASE, accepts=True)
    out, checks = np.zeros((STEPS, 6)), []
    for s in range(STEPS):
        for cycle, force, torque in TARGETS:
            if cycle == s:
                ok, text = feed.take(s * PERIOD, force, torque, '')
                checks.append(CHECKS.get(text, 2))
        value = feed.value(s * PERIOD)
        if value is not None:
            out[s] = value
    return out, checks


def test_the_feed_applies_the_python_wrench_in_every_cycle(plugin_library):
    lib = ctypes.CDLL(str(plugin_library))
    arrival = np.array([t[0] for t in TARGETS], dtype=np.int32)
    targets = np.array([[*t[1], *t[2]] for t in TARGETS], dtype=float)
    bounds = np.array(BOUNDS, dtype=float)
    rotation = np.ascontiguousarray(BASE[:3, :3], dtype=float)
    out = np.zeros((STEPS, 6))
    checks = np.zeros(len(TARGETS), dtype=np.int32)
    lib.robodyn_wrench_feed(bounds.ctypes.data_as(_D), rotation.ctypes.data_as(_D),
                            ctypes.c_int(len(TARGETS)),
                            arrival.ctypes.data_as(ctypes.POINTER(ctypes.c_int)),
                            targets.ctypes.data_as(_D), ctypes.c_int(STEPS),
                            ctypes.c_double(PERIOD), out.ctypes.data_as(_D),
                            checks.ctypes.data_as(ctypes.POINTER(ctypes.c_int)))
    want, want_checks = _python()
    assert checks.tolist() == want_checks == [0, 0, 1, 2, 0]
    assert np.abs(out - want).max() <= 1e-12
    assert not want[1400].any()  # timed out and ramped down
    assert np.abs(want[1499]).max() == 0.0
    assert np.linalg.norm(want[1900, :3]) == pytest.approx(12.0)  # in, not yet timed out
