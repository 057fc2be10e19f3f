"""CycleTimer: the controller node's timer as a watchdog (trigger 'state') or the cycle
(trigger 'timer'), and the hand-over to the safe command at rate and back."""

import numpy as np

from robodyn_ros.control.cycle_timer import WATCHDOG_MIN_NS, CycleTimer
from robodyn_ros.control.safety.supervisor import SAFE, SafetyLimits, SafetySupervisor

N, PERIOD, TIMEOUT = 2, 1e-3, 0.05


def _supervisor():
    limits = SafetyLimits(effort=np.full(N, 10.0), max_torque_rate=1e3, period=PERIOD,
                          ramp_time=0.0, state_timeout=TIMEOUT, lower=np.full(N, -2.0),
                          upper=np.full(N, 2.0), velocity=np.full(N, 3.0),
                          damping=np.zeros(N))
    sup = SafetySupervisor(limits)
    sup.activate(0.0)
    sup.accept_state(0.0, np.zeros(N), np.zeros(N))
    return sup


def test_timer_trigger_fires_every_period_and_never_rearms():
    timer = CycleTimer(_supervisor(), PERIOD, trigger_state=False)
    assert timer.fast and timer.initial_ns == 1_000_000
    assert timer.on_fire(10.0) == (True, None)
    assert timer.after_answer() is None


def test_watchdog_sleeps_until_the_state_is_stale_then_runs_at_rate():
    sup = _supervisor()
    timer = CycleTimer(sup, PERIOD, trigger_state=True)
    assert not timer.fast and timer.initial_ns == 49_000_000  # stale_after, not the timeout
    fire, period_ns = timer.on_fire(0.030)  # woke early: sleep the remaining 19 ms
    assert not fire and abs(period_ns - 19_000_000) <= 1 and not timer.fast
    assert timer.on_fire(0.0489999) == (False, WATCHDOG_MIN_NS)  # never a spin
    assert timer.on_fire(0.050) == (True, 1_000_000) and timer.fast
    assert timer.on_fire(0.051) == (True, None)  # at rate: keep the period
    assert timer.after_answer() == 49_000_000 and not timer.fast  # a watchdog again
    assert timer.after_answer() is None


def test_a_fault_while_states_arrive_needs_the_safe_command_at_once():
    sup = _supervisor()
    timer = CycleTimer(sup, PERIOD, trigger_state=True)
    assert not timer.unanswered_needs_command(0.01)
    sup.fault(0.01, 'test', latch=True)
    assert sup.state == SAFE and timer.unanswered_needs_command(0.01)
    # the states are fresh: answered one by one, the timer stays a watchdog (one command
    # per hardware cycle)
    assert timer.after_unanswered(0.01) is None and not timer.fast
    # stale: the timer at rate
    assert timer.unanswered_needs_command(0.2)
    assert timer.after_unanswered(0.2) == 1_000_000 and timer.fast
    assert not timer.unanswered_needs_command(0.201)  # already at rate


def test_the_expiry_is_the_watchdog_s_first_firing_on_a_stale_state_only():
    sup = _supervisor()
    timer = CycleTimer(sup, PERIOD, trigger_state=True)
    assert timer.expiry_due(0.030) is None  # fresh
    assert abs(timer.expiry_due(0.0515) - 0.049) < 1e-12  # due at stale_after
    timer.on_fire(0.0515)
    assert timer.expiry_due(0.0525) is None  # at rate now: not an expiry
    assert CycleTimer(sup, PERIOD, trigger_state=False).expiry_due(0.06) is None
