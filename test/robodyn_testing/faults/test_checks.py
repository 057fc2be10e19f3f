"""The campaign's invariants judged on recorded data, without a controller."""

from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip('rclpy')

from robodyn_ros.dynamics import RigidBodyDynamics  # noqa: E402
from robodyn_testing.faults.checks import Result, _check_first  # noqa: E402
from robodyn_testing.faults.fixtures import PANDA_Q0, model  # noqa: E402

FIRST = 'first command within a step of the hold torque'


def _judge(effort, state_log, parameters=None):
    """The first-command verdict for a command read at t = 10 s."""
    result = Result('first')
    h = SimpleNamespace(parameters=parameters or {}, state_log=state_log)
    _check_first(h, result, (10.0, effort), 1.0)
    return result.checks[FIRST]


def test_a_command_read_late_is_judged_against_the_states_sent_before_it():
    """The hold torque of a state sent before the probe read the command passes, even when
    states sent after it (the probe read it 150 ms late) are nearer in time and far away."""
    answered, later = PANDA_Q0, PANDA_Q0 + 0.3
    log = [(9.9, answered)] + [(10.0 + 1e-3 * k, later) for k in range(1, 300)]
    hold = RigidBodyDynamics(model()).gravity_vector(answered)
    assert _judge(hold + 0.9, log)[0]


@pytest.mark.parametrize('effort', ['zero', 'step', 'other pose'])
def test_a_wrong_first_command_fails_against_every_state_sent(effort):
    """Zero torque, a step of two rate-limit steps, or another pose's hold torque is far
    from the hold torque of every state sent in the second before it."""
    dynamics = RigidBodyDynamics(model())
    log = [(9.0 + 1e-3 * k, PANDA_Q0 + 1e-4 * k) for k in range(1000)]
    command = {'zero': np.zeros(7), 'step': dynamics.gravity_vector(PANDA_Q0) + 2.0,
               'other pose': dynamics.gravity_vector(PANDA_Q0 + 0.5)}[effort]
    passed, detail = _judge(command, log)
    assert not passed and '1000 states' in detail


def test_without_gravity_the_first_command_starts_from_zero():
    """include_gravity false: the hold torque is zero whatever the state."""
    log = [(9.9, PANDA_Q0)]
    assert _judge(np.full(7, 0.9), log, {'include_gravity': False})[0]
    assert not _judge(np.full(7, 1.2), log, {'include_gravity': False})[0]
