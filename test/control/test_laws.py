import numpy as np
import pytest

from robodyn_ros.control.laws import MODES, ControlLaw, LawConfig
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.errors import InputError
from robodyn_ros.model import load_urdf
from robodyn_ros.model.registry import PANDA_HOME, robot_path

DYN = RigidBodyDynamics(load_urdf(robot_path('panda')[0], tip_link='panda_hand'))
RNG = np.random.default_rng(5)
Q, QD = np.array(PANDA_HOME) + 0.01, 0.3 * RNG.standard_normal(7)
Q_R, QD_R, QDD_R = Q + 0.002, QD + 0.01, 2.0 * RNG.standard_normal(7)


def _law(mode, lag):
    return ControlLaw(DYN, LawConfig(mode, np.full(7, 400.0), np.full(7, 40.0),
                                     feedforward_pd=True, velocity_lag=lag))


@pytest.mark.parametrize('mode', MODES)
def test_the_velocity_lag_compares_the_velocity_with_the_reference_of_its_instant(mode):
    """The derivative term sees qd_r - lag qdd_r, the reference velocity lag [s] earlier;
    every other term is the lag-free law's (feedforward: the model at the reference)."""
    lag = 0.0005
    lagged = _law(mode, lag)(Q, QD, Q_R, QD_R, QDD_R)
    plain = _law(mode, 0.0)(Q, QD, Q_R, QD_R, QDD_R)
    kd_term = -40.0 * lag * QDD_R
    if mode == 'computed_torque':  # the PD acts through M(q)
        kd_term = DYN.mass_matrix(Q) @ kd_term
    np.testing.assert_allclose(lagged - plain, kd_term, rtol=1e-9, atol=1e-9)
    assert np.abs(kd_term).max() > 1e-3  # the term is there to be seen


@pytest.mark.parametrize('lag', [-1e-4, 0.02, float('nan')])
def test_a_velocity_lag_outside_0_to_10_ms_is_refused(lag):
    with pytest.raises(InputError, match='velocity_lag'):
        _law('computed_torque', lag)
