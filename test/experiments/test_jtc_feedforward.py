"""The trajectory feed-forward mode, measured in the sim with an emulated JTC."""

import numpy as np
import pytest

from robodyn_ros.control.reference.trajectories import make_reference
from robodyn_ros.control.reference.trajectory_feedforward import feedforward_trajectory
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.errors import InputError
from robodyn_ros.experiments.jtc_feedforward import (
    PANDA_JTC_KD,
    PANDA_JTC_KP,
    jtc_feedforward_experiment,
)
from robodyn_ros.model import load_urdf
from robodyn_ros.model.registry import PANDA_HOME, robot_path

PANDA = load_urdf(robot_path('panda')[0], tip_link='panda_hand')
Q0 = list(PANDA_HOME)
AMPS = [0.5, 0.3, 0.5, 0.4, 0.5, 0.4, 0.5]
PERIODS = [4.0, 5.0, 3.0, 4.5, 2.5, 3.5, 2.0]


def test_feedforward_cuts_the_jtc_tracking_error_tenfold_on_the_panda():
    res = jtc_feedforward_experiment(PANDA, Q0, AMPS, PERIODS, PANDA_JTC_KP, PANDA_JTC_KD,
                                     duration=3.0)
    assert res['ratio'] <= 0.1, res
    assert res['without_feedforward'] > 1e-3  # the PD alone does lag: the test can fail


def test_feedforward_torque_is_the_inverse_dynamics_along_the_reference():
    dyn = RigidBodyDynamics(PANDA)
    ref = make_reference('sum_of_sines', Q0, AMPS, PERIODS, 1.0)
    traj = feedforward_trajectory(dyn, ref, 0.5, 0.1)
    np.testing.assert_allclose(traj.times, [0.1, 0.2, 0.3, 0.4, 0.5])
    q, qd, qdd = ref(0.3)
    np.testing.assert_allclose(traj.effort[2], dyn.inverse_dynamics(q, qd, qdd), atol=1e-12)
    no_g = feedforward_trajectory(dyn, ref, 0.5, 0.1, include_gravity=False)
    np.testing.assert_allclose(traj.effort - no_g.effort,
                               [dyn.gravity_vector(x) for x in traj.q], atol=1e-12)


def test_feedforward_above_the_effort_limits_is_rejected():
    dyn = RigidBodyDynamics(PANDA)
    ref = make_reference('sum_of_sines', Q0, AMPS, [0.05] * 7, 0.0)
    with pytest.raises(InputError, match='exceeds its limit'):
        feedforward_trajectory(dyn, ref, 0.5, 0.01, effort_limits=PANDA.effort_limits)
