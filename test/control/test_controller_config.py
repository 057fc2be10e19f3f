"""ControllerConfig: every bad parameter is one line naming it and what is valid."""

import numpy as np
import pytest

from robodyn_ros.control import ControllerConfig
from robodyn_ros.errors import ConfigError


def test_integers_are_accepted_where_floats_are_meant():
    cfg = ControllerConfig.from_parameters(dict(kp=[400, 400], rate=1000, state_timeout=1,
                                                gravity=[0, 0, -9], earth_gravity=False))
    assert cfg.kp == (400.0, 400.0) and isinstance(cfg.rate, float)
    assert cfg.gravity == (0.0, 0.0, -9.0)


@pytest.mark.parametrize('values, words', [
    (dict(mode='bogus'), ["mode: unknown value 'bogus'", 'computed_torque']),
    (dict(trigger='Timer'), ["trigger: unknown value 'Timer'", 'timer, state']),
    (dict(kp=[-1.0]), ['kp: expected values >= 0', '-1.0']),
    (dict(gravity=[0, 0]), ['gravity: expected 3 values']),
    (dict(rate=0.0), ['rate: expected 100 to 20000 Hz', '0.0']),
    (dict(rate=1e9), ['rate:', '100 to 20000']),
    (dict(rate='fast'), ["rate: expected a number, got 'fast'"]),
    (dict(state_timeout=float('nan')), ['state_timeout: expected a finite number']),
    (dict(include_gravity='yes'), ['include_gravity: expected true or false']),
    (dict(safe_command='brake'), ['safe_command', 'hold, zero']),
    (dict(effort_limits=[0.0]), ['effort_limits: expected values > 0']),
    (dict(cross_check_every=-1), ['cross_check_every']),
    (dict(cross_check_every=2.5), ['cross_check_every: expected an integer']),
    (dict(reference_margin=0.01, position_margin=0.02), ['reference_margin']),
    (dict(joints='panda_joint1'), ['joints: expected a list']),
])
def test_bad_values_raise_one_line(values, words):
    with pytest.raises(ConfigError) as info:
        ControllerConfig.from_parameters(values)
    text = str(info.value)
    assert '\n' not in text
    for word in words:
        assert word in text


def test_per_joint_broadcasts_one_value_and_checks_length():
    cfg = ControllerConfig.from_parameters(dict(kp=[3.0], kd=[1.0, 2.0]))
    np.testing.assert_array_equal(cfg.per_joint('kp', 4), np.full(4, 3.0))
    with pytest.raises(ConfigError, match='kd: expected 1 or 4 values'):
        cfg.per_joint('kd', 4)
    np.testing.assert_array_equal(cfg.per_joint('effort_limits', 2, [7.0, 8.0]), [7.0, 8.0])
