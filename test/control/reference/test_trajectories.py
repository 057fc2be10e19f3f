"""The reference generators built by name (make_reference): the parameters' '1 or n'
amplitudes reach every joint."""

import numpy as np
import pytest

from robodyn_ros.control.reference.trajectories import make_reference
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
