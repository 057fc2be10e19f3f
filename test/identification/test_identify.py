"""Identification on motion whose torques are known exactly, and its refusals."""

import numpy as np
import pytest

from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.errors import InputError
from robodyn_ros.identification import from_vector, to_vector, with_payload
from robodyn_ros.identification.excitation import design_excitation
from robodyn_ros.identification.identify import identify
from robodyn_ros.identification.sim_example import (
    Q0,
)
from robodyn_ros.identification.sim_example import (
    TRUE_COULOMB as COULOMB,
)
from robodyn_ros.identification.sim_example import (
    TRUE_PAYLOAD as PAYLOAD,
)
from robodyn_ros.identification.sim_example import (
    TRUE_VISCOUS as VISCOUS,
)
from robodyn_ros.model import load_robot

ARM = load_robot('panda')


def _motion(seconds=8.0):
    truth = RigidBodyDynamics(with_payload(ARM, to_vector(PAYLOAD)), viscous=VISCOUS,
                              coulomb=COULOMB, friction_smoothing=0.01)
    trajectory, _ = design_excitation(ARM, Q0, candidates=5)
    t = np.arange(0.0, seconds, 1e-3)
    samples = [trajectory(x) for x in t]
    tau = np.array([truth.inverse_dynamics(*s) + truth.friction_torque(s[1]) for s in samples])
    return t, np.array([s[0] for s in samples]), tau


@pytest.mark.integration  # 8000 samples through the regressor: 2 s
def test_exact_torques_give_the_parameters_back():
    result = identify(ARM, *_motion())
    estimate = from_vector(result.payload)
    assert abs(estimate.mass - 1.5) < 0.015 and np.linalg.norm(estimate.com - PAYLOAD.com) < 2e-3
    np.testing.assert_allclose(result.viscous, VISCOUS, rtol=0.07)
    np.testing.assert_allclose(result.coulomb, COULOMB, rtol=0.05)
    assert np.all(result.rms_after < 0.2 * result.rms_before)
    assert set(result.standard_errors) == {'payload', 'viscous', 'coulomb'}


def test_too_short_is_refused():
    t, q, tau = _motion(1.0)
    with pytest.raises(InputError, match='too short'):
        identify(ARM, t, q, tau)


def test_a_motion_that_excites_nothing_is_refused():
    t = np.arange(0.0, 2.5, 4e-3)  # just over the minimum duration: still refused
    q = np.tile(Q0, (len(t), 1))
    tau = np.tile(RigidBodyDynamics(ARM).gravity_vector(Q0), (len(t), 1))
    with pytest.raises(InputError, match='condition number'):
        identify(ARM, t, q, tau)


def test_non_finite_torques_are_refused():
    t, q, tau = _motion(3.0)
    tau[10, 2] = np.nan
    with pytest.raises(InputError, match='non-finite'):
        identify(ARM, t, q, tau)


@pytest.mark.integration  # 8000 samples through the regressor: 2 s
def test_torques_the_model_does_not_make_are_refused_with_the_figures():
    """The arm's motion with torques of another source (here: the exact ones, shuffled in
    time): no payload or friction explains them, and the fit is refused, not written."""
    t, q, tau = _motion()
    shuffled = tau[np.random.default_rng(0).permutation(len(tau))]
    with pytest.raises(InputError, match='does not explain the torques: held-out residual'):
        identify(ARM, t, q, shuffled)
