"""The JointTrajectoryController's default PD on the node path: its damping capped per
joint, the PD alone, sampled at 1 kHz as MuJoCo integrates it (semi-implicit Euler), is
stable at every spread configuration, where the uncapped default is not."""

import numpy as np
import pytest

from robodyn_ros.control.controller_config import spread_configurations
from robodyn_ros.control.jtc_gains import DAMPING_MARGIN, JTC_KD, JTC_KP, jtc_gains
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


def _dynamics(robot):
    model = load_robot(robot)
    return model, RigidBodyDynamics(model, 'kronecker')


@pytest.mark.parametrize('robot', ['panda', 'ur5', 'kinova', 'xarm7'])
def test_the_capped_pd_alone_is_stable_everywhere(robot):
    model, dynamics = _dynamics(robot)
    kp, kd = jtc_gains(model, dynamics.mass_matrix, PERIOD)
    assert np.all(kp == JTC_KP) and np.all((kd > 0.0) & (kd <= JTC_KD))
    for q in spread_configurations(model.lower, model.upper):
        assert _spectral_radius(dynamics.mass_matrix(q), kp, kd) < 1.0, q


def test_the_uncapped_default_rings_on_the_pandas_wrist():
    """What the cap replaces: 100 N m/rad and 10 N m s/rad diverge somewhere, and the
    cap acts where the inertia is light (the wrist), not on the shoulder."""
    model, dynamics = _dynamics('panda')
    configurations = spread_configurations(model.lower, model.upper)
    radii = [_spectral_radius(dynamics.mass_matrix(q), np.full(7, JTC_KP), np.full(7, JTC_KD))
             for q in configurations]
    assert max(radii) > 1.0
    _, kd = jtc_gains(model, dynamics.mass_matrix, PERIOD)
    assert kd[0] == JTC_KD and kd[6] < JTC_KD / 2
    free = np.min([1.0 / np.diag(np.linalg.inv(dynamics.mass_matrix(q)))
                   for q in configurations], axis=0)
    assert np.all(kd * PERIOD / free <= DAMPING_MARGIN * (1 + 1e-12))
