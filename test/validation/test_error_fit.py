import numpy as np
import pytest

from robodyn_ros.validation.error_fit import ErrorFit, reference_rates


def _sines(t):
    w = np.array([2 * np.pi / 2.0, 2 * np.pi / 3.0])
    a = np.array([0.5, 0.3])
    return a * w * np.cos(np.outer(t, w)), -a * w * w * np.sin(np.outer(t, w))


def test_the_fit_recovers_a_time_shift_and_an_acceleration_term_chunk_by_chunk():
    t = np.arange(0.0, 10.0, 0.001)
    v, a = _sines(t)
    rng = np.random.default_rng(3)
    err = 2e-6 + 3e-4 * v - 4.5e-5 * a + rng.normal(0.0, 1e-7, v.shape)
    fit = ErrorFit(2)
    for chunk in np.array_split(np.arange(len(t)), 7):
        fit.add(err[chunk], v[chunk], a[chunk])
    for offset, c_v, c_a, rest in fit.result():
        assert offset == pytest.approx(2e-6, abs=1e-8)
        assert c_v == pytest.approx(3e-4, rel=1e-3)
        assert c_a == pytest.approx(-4.5e-5, rel=1e-3)
        assert rest == pytest.approx(1e-7, rel=0.05)


def test_a_joint_that_holds_has_no_fit_and_non_finite_rows_are_left_out():
    v, a = _sines(np.arange(0.0, 2.0, 0.001))
    v[:, 1] = a[:, 1] = 0.0
    err = 1e-5 * a
    err[5, 0] = np.nan
    fit = ErrorFit(2)
    fit.add(err, v, a)
    first, second = fit.result()
    assert second is None and fit.count == len(v) - 1
    assert first is not None and first[2] == pytest.approx(1e-5, rel=1e-9)


def test_the_reference_rates_are_central_differences_interpolated():
    t = np.arange(0.0, 1.0, 0.001)
    v, a = _sines(t)
    ts = t[100:900] + 0.0004
    k = np.searchsorted(t, ts, side='right') - 1
    vs, acc = reference_rates(t, v, ts, k)
    v_true, a_true = _sines(ts)
    assert np.abs(vs - v_true).max() < 2e-5 and np.abs(acc - a_true).max() < 1e-4
