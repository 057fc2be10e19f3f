"""Exact bounds of polynomial segments (control/reference/envelope.py)."""

import numpy as np

from robodyn_ros.control.reference.envelope import first_excursion


def _dense_excursion(coeffs, durations, lower, upper):
    for k, h in enumerate(durations):
        x = np.linspace(0.0, h, 20001)
        for j in range(coeffs.shape[2]):
            v = np.polynomial.polynomial.polyval(x, coeffs[:, k, j])
            if v.min() < lower[j] - 1e-9 or v.max() > upper[j] + 1e-9:
                return k, j
    return None


def test_first_excursion_agrees_with_dense_sampling_on_random_quintics():
    rng = np.random.default_rng(1)
    lower, upper = np.full(3, -3.0), np.full(3, 3.0)
    outcomes = set()
    for _ in range(300):
        coeffs, durations = rng.normal(size=(6, 4, 3)), rng.uniform(0.1, 2.0, 4)
        found = first_excursion(coeffs, durations, lower, upper)
        expected = _dense_excursion(coeffs, durations, lower, upper)
        assert (None if found is None else (found.k, found.j)) == expected
        outcomes.add(found is None)
    assert outcomes == {True, False}


def test_the_excursion_is_the_extreme_value_and_its_time():
    # q = 4 x (1 - x) on [0, 1]: 0 at both ends, 1 at x = 0.5
    coeffs = np.array([0.0, 4.0, -4.0])[:, None, None]
    found = first_excursion(coeffs, np.array([1.0]), np.array([-1.0]), np.array([0.9]))
    assert found.k == 0 and found.j == 0
    assert abs(found.time - 0.5) < 1e-12 and abs(found.value - 1.0) < 1e-12
    assert first_excursion(coeffs, np.array([1.0]), np.array([-1.0]), np.array([1.0])) is None


def test_unbounded_joints_are_never_refused():
    coeffs = np.array([0.0, 1e6])[:, None, None]
    assert first_excursion(coeffs, np.array([1.0]), np.array([-np.inf]),
                           np.array([np.inf])) is None
