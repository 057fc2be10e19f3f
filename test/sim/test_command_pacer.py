"""The free-running simulator's pacer: it steps at most max_ahead steps past the last
command, waits for the next one, and runs free after a wait that times out."""

import pytest

from robodyn_ros.sim.command_pacer import CommandPacer


def test_before_any_command_the_simulator_runs_free():
    pacer = CommandPacer(3, 0.05)
    assert all(pacer.may_step(1e-3 * k) for k in range(100))
    assert pacer.waits == 0


def test_it_waits_after_max_ahead_steps_and_a_command_releases_it():
    pacer = CommandPacer(3, 0.05)
    pacer.on_command(0.0)
    assert [pacer.may_step(1e-3 * k) for k in range(1, 6)] == [True] * 3 + [False] * 2
    pacer.on_command(0.0065)
    assert pacer.may_step(0.007) and pacer.waits == 2
    assert pacer.longest == pytest.approx(0.0025)


def test_a_wait_that_times_out_resumes_free_running_until_the_next_command():
    pacer = CommandPacer(1, 0.05)
    pacer.on_command(0.0)
    assert pacer.may_step(0.001) and not pacer.may_step(0.002)
    assert not pacer.may_step(0.051)
    assert pacer.may_step(0.0521) and pacer.timeouts == 1
    assert all(pacer.may_step(0.06 + 1e-3 * k) for k in range(50))  # no controller: free
    pacer.on_command(0.2)
    assert pacer.may_step(0.201) and not pacer.may_step(0.202)


def test_zero_never_waits():
    pacer = CommandPacer(0, 0.05)
    pacer.on_command(0.0)
    assert all(pacer.may_step(1e-3 * k) for k in range(100))


@pytest.mark.parametrize('ahead, timeout, word', [(-1, 0.05, 'wait_for_command'),
                                                  (2.5, 0.05, 'wait_for_command'),
                                                  (3, 0.0, 'command_wait_timeout'),
                                                  (3, 5.0, 'command_wait_timeout')])
def test_bad_settings_name_the_parameter(ahead, timeout, word):
    with pytest.raises(ValueError, match=word):
        CommandPacer(ahead, timeout)
