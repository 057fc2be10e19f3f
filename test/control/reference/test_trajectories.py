"""The reference generators built by name (make_reference): the parameters' '1 or n'
amplitudes reach every joint."""

import numpy as np
import pytest

from robodyn_ros.control.reference.trajectories import EndingAtRest, make_reference
from robodyn_ros.errors import InputError

Q0 = np.array([0.1, -0.2, 0.3])


@pytest.mark.parametrize('kind', ['one_minus_cos', 'sum_of_sines'])
def test_one_amplitude_moves_every_joint(kind):
    generator = make_reference(kind, Q0, amplitudes=[0.2], periods=[2.0], ramp=0.0)
    q, qd, qdd = generator(0.5)
    assert q.shape == qd.shape == qdd.shape == (3,)
    assert np.all(np.abs(q - Q0) > 1e-3), q - Q0


def test_one_minus_cos_reaches_twice_its_amplitude_at_half_its_period():
    q, qd, _ = make_reference('one_minus_cos', Q0, amplitudes=[0.1, 0.2, 0.3],
                              periods=[2.0])(1.0)
    np.testing.assert_allclose(q - Q0, [0.2, 0.4, 0.6], atol=1e-12)
    np.testing.assert_allclose(qd, 0.0, atol=1e-12)


def test_too_few_amplitudes_name_the_count():
    with pytest.raises(InputError, match='2 amplitudes for 3 joints; give 1 or 3'):
        make_reference('one_minus_cos', Q0, amplitudes=[0.1, 0.2], periods=[2.0])


def _ending(duration=6.0, settle=2.0):
    q0 = np.array([0.1, -0.4, 0.7])
    return q0, EndingAtRest(make_reference('sum_of_sines', q0, [0.3, 0.4, 0.5],
                                           [2.0, 3.0, 5.0]), q0, duration, settle)


def test_ending_at_rest_ends_at_the_start_at_rest_and_stays_there():
    q0, reference = _ending()
    for t in (6.0, 7.5):
        q, qd, qdd = reference(t)
        assert np.allclose(q, q0) and not qd.any() and not qdd.any()
    q, qd, qdd = reference(6.0 - 1e-6)
    assert np.allclose(q, q0, atol=1e-12) and np.allclose(qd, 0, atol=1e-9)


def test_ending_at_rest_is_the_reference_until_it_settles_and_smooth_after():
    """The same samples before end - settle; velocity and acceleration are the derivatives
    of position and acceleration (central differences), and every position lies between q0
    and the reference's own."""
    q0, ending = _ending()
    plain = make_reference('sum_of_sines', q0, [0.3, 0.4, 0.5], [2.0, 3.0, 5.0])
    assert all(np.array_equal(a, b) for a, b in zip(ending(3.9), plain(3.9)))
    h = 1e-5
    for t in np.linspace(4.0, 6.0, 41):
        q, qd, qdd = ending(t)
        assert np.allclose((ending(t + h)[0] - ending(t - h)[0]) / (2 * h), qd, atol=1e-6)
        assert np.allclose((ending(t + h)[1] - ending(t - h)[1]) / (2 * h), qdd, atol=1e-4)
        r = plain(t)[0]
        assert np.all((q - np.minimum(q0, r) >= -1e-12) & (np.maximum(q0, r) - q >= -1e-12))


@pytest.mark.parametrize('settle', [0.0, 7.0])
def test_ending_at_rest_refuses_a_settle_outside_the_run(settle):
    with pytest.raises(InputError, match='settle'):
        _ending(settle=settle)
