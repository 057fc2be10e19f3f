"""running_time.Timeout: a pause of the waiting process does not use up a launch's time."""

from running_time import PAUSE, Timeout


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def _steps(timeout, steps):
    """Whether ``timeout`` expired after the clock moved by each of ``steps`` [s]."""
    clock = _Clock()
    wait = Timeout(timeout, clock)
    expired = []
    for step in steps:
        clock.now += step
        expired.append(wait.expired())
    return wait, expired


def test_running_time_runs_out():
    wait, expired = _steps(1.0, [0.1] * 11)
    assert expired.index(True) in (9, 10) and wait.paused == 0.0


def test_a_pause_of_the_machine_is_not_counted():
    # 0.5 s of running time, a 300 s pause (a virtual machine stood still), 0.4 s more
    wait, expired = _steps(1.0, [0.1] * 5 + [300.0] + [0.1] * 4)
    assert not any(expired) and wait.paused == 300.0
    # and the time left after the pause still runs out
    wait.clock.now += 0.2  # a step, not a pause
    assert wait.expired()


def test_a_step_up_to_the_pause_bound_is_counted():
    wait, expired = _steps(1.0, [PAUSE * 0.9])
    assert expired == [True] and wait.paused == 0.0
