"""SimClockStart: a controller on simulated time activates once /clock runs."""

from types import SimpleNamespace

from robodyn_ros.nodes.sim_clock_start import SimClockStart


class _Clock:
    def __init__(self):
        self.ns = 0

    def now(self):
        return SimpleNamespace(nanoseconds=self.ns)


class _Core:
    def __init__(self):
        self.activated = []

    def activate(self, now):
        self.activated.append(now)


def _now(clock):
    return lambda: clock.ns * 1e-9


def test_before_the_first_clock_activation_waits_then_starts_at_the_clocks_time():
    clock, core = _Clock(), _Core()
    start = SimClockStart(clock, sim_time=True)
    assert start.activate(core, _now(clock)) is True
    assert not start.ready(core, _now(clock)) and core.activated == []
    clock.ns = 2_057_000_000  # the simulation's first /clock, seconds after its start
    assert start.ready(core, _now(clock))
    assert core.activated == [2.057]
    assert start.ready(core, _now(clock)) and core.activated == [2.057]  # once


def test_a_running_clock_or_wall_time_activates_at_once():
    for sim_time, ns in ((True, 5), (False, 0)):
        clock, core = _Clock(), _Core()
        clock.ns = ns
        start = SimClockStart(clock, sim_time=sim_time)
        assert start.activate(core, _now(clock)) is False
        assert core.activated == [ns * 1e-9] and start.ready(core, _now(clock))


def test_a_deactivate_before_the_clock_starts_activates_nothing_later():
    clock, core = _Clock(), _Core()
    start = SimClockStart(clock, sim_time=True)
    start.activate(core, _now(clock))
    start.cancel()
    clock.ns = 1
    assert start.ready(core, _now(clock)) and core.activated == []


def test_a_lock_step_simulation_starting_at_time_0_activates_on_its_first_state():
    clock, core = _Clock(), _Core()
    start = SimClockStart(clock, sim_time=True)
    start.activate(core, _now(clock))
    assert not start.ready(core, _now(clock), stamp=2.057)  # a state ahead of the clock
    assert not start.ready(core, _now(clock))  # a timer: no state to judge by
    assert start.ready(core, _now(clock), stamp=0.0) and core.activated == [0.0]
