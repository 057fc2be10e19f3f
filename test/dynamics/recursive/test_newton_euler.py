"""Newton-Euler in DH frames: its scratch layout (the computed-torque law stages its
acceleration at the end of the same buffer). Agreement with Pinocchio's RNEA and the
seeds' M, C, g: test_rigid_body_dynamics."""

import numpy as np
import pytest

from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.dynamics.recursive.newton_euler import (
    FRAME,
    WRENCH,
    computed_torque_kernel,
    newton_euler,
)
from robodyn_ros.model import load_urdf
from robodyn_ros.model.random_chain import random_chain


@pytest.mark.parametrize('seed', range(4))
def test_scratch_is_the_first_entries_and_the_staged_acceleration_is_untouched(seed):
    model = load_urdf(random_chain(7, seed), tip_link='tip')
    dyn = RigidBodyDynamics(model)
    params, tau, buf, _ = dyn.kernel_workspace()
    n = model.n
    rng = np.random.default_rng(seed)
    q, qd, qdd = rng.uniform(-2, 2, (3, n))
    expected = dyn.inverse_dynamics(q, qd, qdd)
    poisoned = np.full_like(buf, np.nan)  # anything read before written shows as NaN
    poisoned[-n:] = qdd
    newton_euler(q, qd, poisoned[-n:], params, tau, poisoned)
    np.testing.assert_array_equal(tau, expected)
    assert np.isnan(poisoned[(FRAME + WRENCH) * n:-n]).all()
    np.testing.assert_array_equal(poisoned[-n:], qdd)


def test_computed_torque_kernel_is_one_newton_euler_pass():
    model = load_urdf(random_chain(6, 11), tip_link='tip')
    dyn = RigidBodyDynamics(model)
    params, tau, buf, _ = dyn.kernel_workspace()
    rng = np.random.default_rng(2)
    q, qd, q_r, qd_r, qdd_r = rng.uniform(-1, 1, (5, model.n))
    kp, kd = np.full(model.n, 400.0), np.full(model.n, 40.0)
    assert computed_torque_kernel(q, qd, q_r, qd_r, qdd_r, kp, kd, params, False, tau, buf)
    a = qdd_r + kd * (qd_r - qd) + kp * (q_r - q)
    np.testing.assert_array_equal(tau, dyn.inverse_dynamics(q, qd, a))
    q[3] = np.inf
    assert not computed_torque_kernel(q, qd, q_r, qd_r, qdd_r, kp, kd, params, False, tau,
                                      buf)
