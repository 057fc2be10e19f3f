"""control/laws/adaptive.py: the adaptive law is passivity plus the payload estimate's
torque; the estimate stays physically consistent, is frozen when it must be, and in a
closed loop on the model finds a payload the model does not have."""

import numpy as np
import pytest

from robodyn_ros.control.laws import Adaptation, ControlLaw, LawConfig
from robodyn_ros.control.laws.adaptive import EPS, project
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.dynamics.payload_regressor import with_payload
from robodyn_ros.model import load_robot
from robodyn_ros.model.inertial_parameters import is_consistent, pseudo_inertia

MODEL = load_robot('three_link')
N = MODEL.n
ZERO = np.zeros(N)
DYN = RigidBodyDynamics(MODEL, viscous=ZERO, coulomb=ZERO)
LAMBDA, KD = np.full(N, 5.0), np.full(N, 2.0)
#: Adaptation rates of the closed-loop case (the three-link arm is light: faster than the
#: Panda's defaults)
GAMMA = (5.0, 0.5, 0.05)


def _law(mode, **adaptation):
    return ControlLaw(DYN, LawConfig(mode, LAMBDA, KD, include_friction=False,
                                     adaptation=Adaptation(**adaptation)))


def test_with_no_estimate_yet_it_is_the_passivity_law():
    rng = np.random.default_rng(0)
    q, qd, q_r, qd_r, qdd_r = (rng.normal(size=N) for _ in range(5))
    adaptive, passivity = _law('adaptive'), _law('passivity')
    # the estimate starts at the consistent point nearest 0: a payload of EPS
    assert adaptive.law.estimate.pi[0] == pytest.approx(EPS, rel=1e-6)
    np.testing.assert_allclose(adaptive(q, qd, q_r, qd_r, qdd_r),
                               passivity(q, qd, q_r, qd_r, qdd_r), rtol=0, atol=1e-6)


@pytest.mark.parametrize('pi', [
    np.array([1.0, 0.3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),  # COM far, no inertia
    np.array([-0.5, 0.0, 0.0, 0.0, 0.01, 0.0, 0.0, 0.01, 0.0, 0.01]),  # negative mass
    np.array([1.0, 0.0, 0.0, 0.0, 0.01, 0.0, 0.0, 0.01, 0.0, 0.05]),  # triangle broken
])
def test_the_projection_makes_every_estimate_consistent(pi):
    assert not is_consistent(pi)
    projected = project(pi, mass_max=5.0)
    assert np.linalg.eigvalsh(pseudo_inertia(projected))[0] >= EPS * (1 - 1e-6)


def test_a_consistent_estimate_is_left_as_it_is_and_a_heavy_one_capped():
    pi = np.array([1.5, 0.075, 0.0, 0.075, 0.00625, 0.0, -0.00375, 0.01, 0.0, 0.00625])
    np.testing.assert_allclose(project(pi, 5.0), pi, rtol=0, atol=1e-14)
    capped = project(pi * 4.0, 5.0)
    assert capped[0] == pytest.approx(5.0)
    np.testing.assert_allclose(capped[1:4] / capped[0], pi[1:4] / pi[0])  # COM kept


def _cycle(law, now, q, qd, allowed=True):
    q_r = q + 0.1
    law(q, qd, q_r, np.full(N, 0.5), np.zeros(N))
    law.adapt(now, allowed)


def test_the_estimate_is_frozen_when_not_allowed_and_at_rest():
    law = _law('adaptive', gamma=(1.0,))
    moving, still = np.full(N, 0.3), np.zeros(N)
    start = law.law.estimate.pi.copy()
    for k in range(5):  # safe mode, a contact: not allowed
        _cycle(law, 0.001 * k, ZERO, moving, allowed=False)
    np.testing.assert_array_equal(law.law.estimate.pi, start)
    law2 = ControlLaw(DYN, LawConfig('adaptive', LAMBDA, KD, include_friction=False,
                                     adaptation=Adaptation(gamma=(1.0,), rest_speed=0.01)))
    for k in range(5):  # at rest: reference and arm still
        q = ZERO.copy()
        law2(q, still, q + 0.1, still, still)
        law2.adapt(0.001 * k, True)
    np.testing.assert_array_equal(law2.law.estimate.pi, start)
    for k in range(5):
        _cycle(law, 0.001 * k, ZERO, moving)
    assert np.abs(law.law.estimate.pi - start).max() > 0


def test_in_a_closed_loop_it_finds_a_payload_the_model_does_not_have():
    """The arm (the model plus 2 kg at 0.1 m along the tip's x) simulated at 1 kHz
    (semi-implicit Euler on the exact dynamics), following sines: the mass estimate ends
    within 5 % and the tracking error below passivity's without it."""
    truth = np.array([2.0, 0.2, 0.0, 0.0, 0.002, 0.0, 0.0, 0.022, 0.0, 0.022])
    arm = RigidBodyDynamics(with_payload(MODEL, truth), viscous=ZERO, coulomb=ZERO)
    errors = {}
    for mode in ('passivity', 'adaptive'):
        law = ControlLaw(DYN, LawConfig(mode, LAMBDA * 2, KD * 10, include_friction=False,
                                        adaptation=Adaptation(gamma=GAMMA)))
        q, qd, dt, worst = np.zeros(N), np.zeros(N), 1e-3, []
        for k in range(20000):
            t = k * dt
            w = np.array([1.0, 1.3, 1.7][:N])
            q_r, qd_r, qdd_r = 0.5 * np.sin(w * t), 0.5 * w * np.cos(w * t), \
                -0.5 * w ** 2 * np.sin(w * t)
            tau = law(q, qd, q_r, qd_r, qdd_r)
            law.adapt(t, True)
            qdd = np.linalg.solve(arm.mass_matrix(q), tau - arm.inverse_dynamics(q, qd, ZERO))
            qd = qd + dt * qdd
            q = q + dt * qd
            if t > 15.0:
                worst.append(np.abs(q_r - q).max())
        errors[mode] = max(worst)
        if mode == 'adaptive':
            assert law.law.estimate.pi[0] == pytest.approx(2.0, rel=0.05)
    assert errors['adaptive'] < 0.2 * errors['passivity'], errors
