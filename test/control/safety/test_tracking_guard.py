"""The tracking guard's verdict and the cause it names."""

import numpy as np

from robodyn_ros.control.safety.tracking_guard import tracking_fault

NAMES = ('a', 'b', 'c')


def test_within_the_limit_is_no_fault_and_beyond_it_names_the_worst_joint():
    q_r = np.array([0.0, 0.1, -0.3])
    assert tracking_fault(q_r, np.zeros(3), 0.3, NAMES) == ''
    reason = tracking_fault(q_r, np.array([0.0, 0.0, 0.05]), 0.3, NAMES)
    assert reason.startswith('tracking error 0.35 on c above max_tracking_error 0.3: the arm '
                             'does not follow the commands'), reason


def test_a_recent_jump_is_named_as_the_likelier_cause():
    reason = tracking_fault(np.zeros(3), np.array([0.0, 0.5, 0.0]), 0.2, NAMES,
                            '; 0.010 s after joint b jumped +0.5')
    assert 'on b above max_tracking_error 0.2; 0.010 s after joint b jumped +0.5: the joint ' \
           'states jumped' in reason, reason


def test_a_nan_error_is_no_verdict_of_this_guard():
    # non-finite states are refused before any cycle uses them (state guard)
    assert tracking_fault(np.zeros(3), np.array([np.nan, 0.0, 0.0]), 0.2, NAMES) == ''
