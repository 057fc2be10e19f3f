"""The JointTrajectoryController's default PD on the node path, fitted to each joint: the
PD alone, sampled at 1 kHz as MuJoCo integrates it (semi-implicit Euler), is stable at
every spread configuration, where uniform gains of 100 and 10 are not."""

import numpy as np
import pytest

from robodyn_ros.control.controller_config import spread_configurations
from robodyn_ros.control.jtc_gains import JTC_BANDWIDTH, jtc_gains
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.model import load_robot

PERIOD = 0.001


def _spectral_radius(mass, kp, kd, dt=PERIOD):
    """Largest |eigenvalue| of one semi-implicit Euler step of M qdd = -Kp q - Kd qd."""
    n = len(kp)
    inverse = np.linalg.inv(mass)
    a = -dt * inverse @ np.diag(kp)
    b = np.eye(n) - dt * inverse @ np.diag(kd)
    # qd' = b qd + a q ; q' = q + dt qd'
    step = np.block([[np.eye(n) + dt * a, dt * b], [a, b]])
    return float(np.abs(np.linalg.eigvals(step)).max())


@pytest.mark.parametrize('robot', ['panda', 'ur5', 'kinova', 'three_link'])
def test_the_fitted_pd_alone_is_stable_everywhere(robot):
    model = load_robot(robot)
    dynamics = RigidBodyDynamics(model)
    kp, kd = jtc_gains(model, dynamics.mass_matrix, PERIOD)
    assert np.all(kp > 0.0) and np.all(kd > 0.0)
    for q in spread_configurations(model.lower, model.upper):
        assert _spectral_radius(dynamics.mass_matrix(q), kp, kd) < 1.0, q


def test_uniform_gains_ring_on_the_pandas_wrist():
    """What the fitted gains replace: 100 N m/rad and 10 N m s/rad diverge somewhere."""
    model = load_robot('panda')
    dynamics = RigidBodyDynamics(model)
    radii = [_spectral_radius(dynamics.mass_matrix(q), np.full(7, 100.0), np.full(7, 10.0))
             for q in spread_configurations(model.lower, model.upper)]
    assert max(radii) > 1.0


def test_each_joint_is_critically_damped_on_its_lightest_inertia():
    model = load_robot('panda')
    dynamics = RigidBodyDynamics(model)
    kp, kd = jtc_gains(model, dynamics.mass_matrix, PERIOD)
    lightest = np.min([np.diag(dynamics.mass_matrix(q))
                       for q in spread_configurations(model.lower, model.upper)], axis=0)
    np.testing.assert_allclose(kp, JTC_BANDWIDTH ** 2 * lightest, rtol=1e-12)
    assert np.all(kd <= 2.0 * JTC_BANDWIDTH * lightest * (1 + 1e-12))
