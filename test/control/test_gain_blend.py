"""control/laws/gain_blend.py: gains set while running are blended in over gain_ramp_time
(a raised cosine): the law's torque never steps, and a bad request is refused whole."""

import math

import numpy as np
import pytest

from robodyn_ros.control.laws import ControlLaw, LawConfig
from robodyn_ros.control.laws.gain_blend import GainBlend, checked_gains
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.model import load_robot

MODEL = load_robot('panda', tip_link='panda_hand')
DYN = RigidBodyDynamics(MODEL)
N = MODEL.n


@pytest.mark.parametrize('kp, kd, name', [([-1.0], [1.0], 'kp'), ([1.0], [float('nan')], 'kd'),
                                          ([1.0, 2.0], [1.0], 'kp')])
def test_a_bad_request_is_refused_naming_the_gain(kp, kd, name):
    with pytest.raises(ValueError, match=name):
        checked_gains(N, kp, kd)


def test_the_blend_is_a_raised_cosine_from_the_gains_in_force_to_the_request():
    blend, kp, kd = GainBlend(), np.full(N, 400.0), np.full(N, 40.0)
    blend.request(*checked_gains(N, [100.0], [20.0]))
    assert blend.step(10.0, kp, kd, 2.0) and kp[0] == 400.0  # starts where it is
    blend.step(11.0, kp, kd, 2.0)
    np.testing.assert_allclose(kp, 250.0)  # half way in time: half way
    np.testing.assert_allclose(kd, 30.0)
    assert blend.step(12.5, kp, kd, 2.0)
    np.testing.assert_allclose(kp, 100.0)
    assert not blend.step(12.6, kp, kd, 2.0) and not blend.active


def test_the_laws_torque_changes_smoothly_while_the_stiffness_changes():
    """joint_impedance holding 0.05 rad off the reference, K from 400 to 100 N m/rad over
    1 s at 1 kHz: the largest change in one cycle is the raised cosine's peak slope,
    pi / 2 x the whole change / 1000, never a step."""
    law = ControlLaw(DYN, LawConfig('joint_impedance', np.full(N, 400.0), np.full(N, 40.0)))
    q_r = np.array(MODEL.mid_range)
    q, zero = q_r - 0.05, np.zeros(N)
    before = law(q, zero, q_r, zero, zero)
    law.request_gains([100.0], [40.0])
    torques = []
    for k in range(1100):
        law.step_gains(k * 1e-3, 1.0)
        torques.append(law(q, zero, q_r, zero, zero))
    torques = np.array(torques)
    change = np.abs(torques[-1] - before)
    np.testing.assert_allclose(change, 300.0 * 0.05, rtol=1e-9)
    steps = np.abs(np.diff(np.vstack([before, torques]), axis=0)).max(axis=0)
    assert np.all(steps <= math.pi / 2 * change / 1000.0 * 1.001), steps
