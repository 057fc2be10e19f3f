"""The tool spring set while running (ControlLaw.request_spring, the node's cartesian.*
parameters): blended in over gain_ramp_time with the gains' raised cosine, so the law's
torque moves from the old spring's to the new one's without a step; a bad spring is
refused in one line and the running one stays."""

import numpy as np
import pytest

from robodyn_ros.control.laws import ControlLaw, LawConfig
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.errors import InputError
from robodyn_ros.model import load_robot

MODEL = load_robot('panda', tip_link='panda_hand')
Q = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])


def _law(mode):
    return ControlLaw(RigidBodyDynamics(MODEL), LawConfig(mode, np.full(7, 20.0),
                                                          np.full(7, 2.0)))


@pytest.mark.parametrize('mode', ['cartesian_impedance', 'operational_space'])
def test_a_new_spring_is_blended_in_without_a_step(mode):
    law = _law(mode)
    q_r, zero = Q + 0.02, np.zeros(7)
    before = law(Q, zero, q_r, zero, zero)
    law.request_spring([1000.0, 1000.0, 1000.0, 60.0, 60.0, 60.0], 0.7)
    taus, ramp = [], 0.5
    for k in range(601):
        law.step_gains(10.0 + k * 1e-3, ramp)
        taus.append(law(Q, zero, q_r, zero, zero))
    taus = np.array(taus)
    assert law.config.cartesian.stiffness == (1000.0, 1000.0, 1000.0, 60.0, 60.0, 60.0)
    assert law.config.cartesian.damping_ratio == pytest.approx(0.7)
    assert not law.blending
    steps = np.abs(np.diff(np.vstack([before, taus]), axis=0)).max(axis=1)
    total = np.abs(taus[-1] - before).max()
    assert total > 1.0  # the stiffer spring pulls harder on the same error
    assert steps.max() < 0.01 * total  # the raised cosine: no step of the change
    fresh = _law(mode)
    fresh.request_spring([1000.0, 1000.0, 1000.0, 60.0, 60.0, 60.0], 0.7)
    fresh.step_gains(0.0, 0.0)
    np.testing.assert_allclose(taus[-1], fresh(Q, zero, q_r, zero, zero), rtol=1e-12)


@pytest.mark.parametrize('stiffness, zeta', [([1.0] * 5, 1.0), ([np.nan] * 6, 1.0),
                                             ([-1.0] * 6, 1.0), ([500.0] * 6, 6.0)])
def test_a_bad_spring_is_refused_and_the_running_one_stays(stiffness, zeta):
    law = _law('cartesian_impedance')
    with pytest.raises(InputError, match='cartesian'):
        law.request_spring(stiffness, zeta)
    assert not law.blending and law.config.cartesian.stiffness[0] == 500.0
