"""The C++ controller's gain blend (robodyn_controllers/gain_blend.hpp, through the C entry
point robodyn_gain_blend) against robodyn_ros' GainBlend (control/laws/gain_blend.py): the
same requests at the same times, a request arriving mid-blend, a zero ramp, give the same
gains at every step, bit for bit (the same arithmetic in the same order)."""

import ctypes

import numpy as np
import pytest
from test_dh_dynamics_cpp import _D

from robodyn_ros.control.laws.gain_blend import GainBlend

pytestmark = pytest.mark.integration  # needs the colcon-built C++ package

N = 7
COUNT = 400


def _sequence(seed):
    """Times at 1 kHz with jitter, requests at three steps (one mid-blend)."""
    rng = np.random.default_rng(seed)
    t = np.cumsum(rng.uniform(0.5e-3, 3e-3, COUNT))
    requested = np.zeros(COUNT, dtype=np.int32)
    requested[[5, 60, 300]] = 1
    kp = rng.uniform(0.0, 800.0, (COUNT, N))
    kd = rng.uniform(0.0, 60.0, (COUNT, N))
    return t, requested, kp, kd


def python_blend(kp0, kd0, t, duration, requested, kp_req, kd_req):
    blend, kp, kd = GainBlend(), kp0.copy(), kd0.copy()
    out_p, out_d = [], []
    for k in range(len(t)):
        if requested[k]:
            blend.request(kp_req[k].copy(), kd_req[k].copy())
        blend.step(float(t[k]), kp, kd, duration)
        out_p.append(kp.copy())
        out_d.append(kd.copy())
    return np.array(out_p), np.array(out_d)


def cpp_blend(library, kp0, kd0, t, duration, requested, kp_req, kd_req):
    lib = ctypes.CDLL(str(library))
    kp, kd = np.zeros((len(t), N)), np.zeros((len(t), N))
    arrays = [np.ascontiguousarray(a, dtype=float) for a in (kp0, kd0, t)]
    req = [np.ascontiguousarray(a, dtype=float) for a in (kp_req, kd_req)]
    lib.robodyn_gain_blend(
        ctypes.c_int(N), ctypes.c_int(len(t)), *[a.ctypes.data_as(_D) for a in arrays],
        ctypes.c_double(duration),
        np.ascontiguousarray(requested).ctypes.data_as(ctypes.POINTER(ctypes.c_int)),
        *[a.ctypes.data_as(_D) for a in req], kp.ctypes.data_as(_D), kd.ctypes.data_as(_D))
    return kp, kd


@pytest.mark.parametrize('duration', [0.0, 0.05, 1.0])
def test_both_languages_blend_the_gains_alike(plugin_library, duration):
    t, requested, kp_req, kd_req = _sequence(seed=int(duration * 100))
    kp0, kd0 = np.full(N, 100.0), np.full(N, 10.0)
    want = python_blend(kp0, kd0, t, duration, requested, kp_req, kd_req)
    got = cpp_blend(plugin_library, kp0, kd0, t, duration, requested, kp_req, kd_req)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    # the sequence does change the gains: a blend that did nothing would pass the above
    assert not np.allclose(want[0][-1], kp0) and np.ptp(want[0][:, 0]) > 1.0
