"""SafetySupervisor: states, watchdog, guards, ramp-in, rate limit, final ramp."""

import numpy as np
import pytest

from robodyn_ros.control.events import EventKind
from robodyn_ros.control.levels import Level
from robodyn_ros.control.safety.supervisor import (
    ACTIVE,
    HELD,
    INACTIVE,
    LEVELS,
    RAMP_IN,
    SAFE,
    WAITING,
    SafetyLimits,
    SafetySupervisor,
)

N = 3
PERIOD = 1e-3
RATE = 1000.0


def _limits(**overrides):
    values = dict(effort=np.array([50.0, 50.0, 20.0]), max_torque_rate=RATE, period=PERIOD,
                  ramp_time=0.1, state_timeout=0.05, lower=np.full(N, -2.0),
                  upper=np.full(N, 2.0), velocity=np.full(N, 3.0), damping=np.full(N, 2.0))
    values.update(overrides)
    return SafetyLimits(**values)


def _gravity(q):
    return np.array([0.0, 10.0 * np.cos(q[1]), 3.0 * np.cos(q[2])])


def _active(**overrides):
    sup = SafetySupervisor(_limits(**overrides), _gravity)
    sup.activate(0.0)
    assert sup.accept_state(0.0, np.zeros(N), np.zeros(N))
    return sup


def test_states_inactive_waiting_ramp_in_active():
    sup = SafetySupervisor(_limits(), _gravity)
    assert sup.state == INACTIVE and not sup.publishing
    sup.activate(0.0)
    assert sup.state == WAITING and not sup.publishing
    sup.accept_state(0.0, np.zeros(N), np.zeros(N))
    assert sup.state == RAMP_IN
    law = np.array([1.0, 12.0, 2.0])
    t = 0.0
    while sup.state == RAMP_IN and t < 1.0:
        t += PERIOD
        sup.accept_state(t, np.zeros(N), np.zeros(N))
        out = sup.command(t, law)
    assert sup.state == ACTIVE and t == pytest.approx(0.1, abs=2 * PERIOD)
    np.testing.assert_allclose(out, law)
    assert [e.kind for e in sup.events] == [EventKind.TRANSITION] * 3
    assert [e.text.split(':')[0] for e in sup.events] == [
        'inactive -> waiting', 'waiting -> ramp_in', 'ramp_in -> active']
    # a normal start is logged at INFO (nothing to act on); /diagnostics says WARN while
    # the controller waits for its first state (LEVELS)
    assert {e.level for e in sup.events} == {Level.OK}


def test_first_output_is_the_hold_torque_and_rate_limit_applies_after():
    sup = _active()
    first = sup.command(0.0, np.array([5.0, 10.0, 3.0]))
    np.testing.assert_allclose(first, _gravity(np.zeros(N)))  # what the brakes held
    zero_start = _active(initial_output='zero')
    np.testing.assert_allclose(zero_start.command(0.0, np.array([5.0, 10.0, 3.0])),
                               [0.0, 1.0, 1.0])  # one step of max_torque_rate * period


def test_watchdog_on_monotonic_time_enters_safe_and_recovers_with_hold_reference():
    sup = _active()
    sup.command(0.0, np.zeros(N))
    stale = 0.05 - PERIOD  # a period to wake and compute: the safe command is out at 0.05
    sup.check_watchdog(stale)
    assert sup.state == RAMP_IN  # exactly stale_after: still fine
    sup.check_watchdog(stale + 1e-4)
    assert sup.state == SAFE and 'no valid joint state' in sup.reason and not sup.latched
    assert sup.accept_state(0.06, np.zeros(N), np.zeros(N))  # caller restarts reference
    assert sup.state == RAMP_IN


@pytest.mark.parametrize('q, qd, word', [
    (np.array([0.0, 2.1, 0.0]), np.zeros(N), 'position'),
    (np.array([0.0, -2.1, 0.0]), np.zeros(N), 'position'),
    (np.zeros(N), np.array([0.0, 0.0, -3.5]), 'velocity')])
def test_guards_latch_safe_mode(q, qd, word):
    sup = _active()
    sup.accept_state(0.001, q, qd)
    assert sup.state == SAFE and word in sup.reason and sup.latched
    assert not sup.accept_state(0.002, np.zeros(N), np.zeros(N))
    assert sup.state == SAFE  # latched: only deactivate/activate leaves it
    sup.deactivate(0.003)
    sup.activate(0.004)
    assert sup.accept_state(0.004, np.zeros(N), np.zeros(N)) and sup.state == RAMP_IN


def test_hold_command_is_gravity_minus_damping_only_while_the_state_is_fresh():
    sup = _active()
    q, qd = np.array([0.0, 0.3, 0.2]), np.array([0.5, -1.0, 0.1])
    sup.accept_state(0.01, q, qd)
    np.testing.assert_allclose(sup.safe_target(0.02), _gravity(q) - 2.0 * qd)
    np.testing.assert_allclose(sup.safe_target(0.2), _gravity(q))  # stale: no damping
    np.testing.assert_allclose(sup.safe_target(0.02, final=True), _gravity(q))
    zero = _active(safe_command='zero')
    np.testing.assert_array_equal(zero.safe_target(0.0), np.zeros(N))
    no_gravity = SafetySupervisor(_limits(), None)
    no_gravity.activate(0.0)
    no_gravity.accept_state(0.0, q, qd)
    np.testing.assert_allclose(no_gravity.safe_target(0.0), -2.0 * qd)


def test_rate_limit_and_clamp_on_every_output_including_safe_transitions():
    sup = _active(ramp_time=0.0)
    outputs = [sup.command(0.0, np.zeros(N))]
    t = 0.0
    for k in range(400):
        t += PERIOD
        if k < 100:
            sup.accept_state(t, np.zeros(N), np.zeros(N))
        law = np.array([80.0, -80.0, 25.0]) if k % 200 < 100 else np.array([-80.0, 80.0, -5.0])
        sup.check_watchdog(t)
        outputs.append(sup.command(t, law))
    steps = np.abs(np.diff(np.array(outputs), axis=0))
    assert steps.max() <= RATE * PERIOD + 1e-12
    assert np.all(np.abs(outputs) <= np.array([50.0, 50.0, 20.0]))
    assert sup.state == SAFE and sup.rate_limited > 0 and sup.clamped > 0


def test_non_finite_target_never_reaches_the_output():
    sup = _active()
    sup.command(0.0, np.zeros(N))
    out = sup.limit(0.001, np.array([np.nan, np.inf, 1.0]))
    assert np.all(np.isfinite(out))


def test_slow_cycles_do_not_widen_the_per_message_step():
    sup = _active(initial_output='zero')
    before = sup.command(0.0, np.zeros(N))
    out = sup.command(0.5, np.full(N, 40.0))  # half a second late: still one period's step
    np.testing.assert_allclose(np.abs(out - before), np.full(N, RATE * PERIOD))


def test_final_ramp_reaches_the_final_safe_command_within_the_rate_limit():
    sup = _active(ramp_time=0.0)
    sup.command(0.0, np.zeros(N))
    for k in range(1, 60):
        sup.command(k * PERIOD, np.array([40.0, -30.0, 10.0]))
    sup.accept_state(0.06, np.zeros(N), np.ones(N))
    before = sup.output.copy()
    ramp = sup.final_ramp(0.06)
    steps = np.abs(np.diff(np.vstack([before, ramp]), axis=0))
    assert steps.max() <= RATE * PERIOD + 1e-9
    np.testing.assert_array_equal(ramp[-1], sup.safe_target(0.06, final=True))


def test_jumps_from_one_publisher_are_a_lagging_stream_not_two_sources():
    """A starved driver catching up: 19 mrad between states 1 ms apart from its one
    publisher is accepted and named; the same from two publishers latches safe mode."""
    for publishers, mode in ((1, ACTIVE), (2, SAFE), (None, SAFE)):
        sup = _active(ramp_time=0.0)
        sup.command(0.0, np.zeros(N))
        q = np.zeros(N)
        for k in range(1, 6):
            q = q + np.array([0.019, 0.0, 0.0])
            text = sup.jump(k * 1e-3, q, ['a', 'b', 'c'], 1e-3, publishers)
            if not text:
                sup.accept_state(k * 1e-3, q, np.zeros(N))
        assert sup.state == mode, publishers
        kinds = {e.kind for e in sup.events}
        if publishers == 1:
            assert EventKind.LAGGING_STREAM in kinds and EventKind.FAULT not in kinds
        else:
            assert EventKind.FAULT in kinds and EventKind.LAGGING_STREAM not in kinds
            assert 'two joint_states publishers that disagree' in sup.reason


def test_three_jumps_within_the_window_latch_and_three_spread_out_do_not():
    """JUMPS_TO_FAULT jumps from two sources within JUMP_WINDOW seconds latch safe mode;
    the same jumps spread wider than the window are glitches, each state rejected."""
    from robodyn_ros.control.safety.state_jumps import JUMP_WINDOW, JUMPS_TO_FAULT

    def run(spacing):
        sup = _active(ramp_time=0.0)
        sup.command(0.0, np.zeros(N))
        t, q = 0.0, np.zeros(N)
        for _ in range(JUMPS_TO_FAULT):
            t += spacing
            sup.accept_state(t - 1e-3, q, np.zeros(N))  # a valid state just before
            assert sup.jump(t, q + np.array([0.5, 0.0, 0.0]), ['a', 'b', 'c'], 1e-3, 2)
        return sup

    spread = run(JUMP_WINDOW / (JUMPS_TO_FAULT - 1) + 0.05)
    assert spread.state == ACTIVE
    close = run(JUMP_WINDOW / JUMPS_TO_FAULT)
    assert close.state == SAFE and close.latched
    close.accept_state(10.0, np.zeros(N), np.zeros(N))
    assert close.state == SAFE  # latched: only deactivate + activate recovers


def test_a_frozen_stream_latches_gravity_without_damping_and_rest_does_not():
    sup = _active()
    q, qd = np.array([0.0, 0.3, 0.2]), np.array([0.5, -1.0, 0.1])
    for k in range(1, 210):  # the same state, bit for bit, every ms while it says 1 rad/s
        sup.accept_state(k * PERIOD, q.copy(), qd.copy())
        sup.check_frozen(k * PERIOD)
    assert sup.state == SAFE and sup.latched and 'repeated themselves' in sup.reason
    np.testing.assert_allclose(sup.safe_target(0.21), _gravity(q))  # no damping on it
    sup.accept_state(0.211, q + 1e-4, qd)  # the stream moves again: damping comes back
    np.testing.assert_allclose(sup.safe_target(0.211), _gravity(q + 1e-4) - 2.0 * qd)
    rest = _active()
    for k in range(1, 400):  # at rest: the same positions, velocities 0
        rest.accept_state(k * PERIOD, q.copy(), np.zeros(N))
        rest.check_frozen(k * PERIOD)
    assert rest.state != SAFE


def test_release_holds_the_arm_where_it_was_released_until_activated():
    sup = SafetySupervisor(_limits(hold_kp=np.full(N, 100.0), hold_kd=np.full(N, 10.0)),
                           _gravity)
    sup.activate(0.0)
    sup.accept_state(0.0, np.zeros(N), np.zeros(N))
    q, t = np.array([0.1, 0.2, 0.3]), 0.2
    sup.accept_state(t, q, np.full(N, 0.5))  # mid-motion
    sup.command(t, np.zeros(N))
    sup.release(t + PERIOD)
    assert sup.state == HELD and sup.publishing and not sup.commanding
    assert LEVELS[HELD] == Level.WARN and 'at the release position' in sup.reason
    np.testing.assert_array_equal(sup.hold_q, q)
    moved = q + 0.05  # the arm went on: pulled back and damped
    sup.accept_state(t + 2 * PERIOD, moved, np.full(N, 0.5))
    expected = _gravity(moved) + 100.0 * (q - moved) - 10.0 * 0.5
    np.testing.assert_allclose(sup.safe_target(t + 2 * PERIOD), expected)
    # the law's torque is not taken while held; the rate limit still applies
    before = sup.output.copy()
    out = sup.command(t + 2 * PERIOD, np.full(N, 40.0))
    assert np.abs(out - before).max() <= RATE * PERIOD * (1 + 1e-12)
    # fresh states are answered (one command per hardware cycle); the timer only once stale
    assert not sup.needs_timer(t + 2 * PERIOD) and sup.needs_timer(t + 0.1)
    sup.activate(t + 3 * PERIOD)  # back to following: ramps in from the hold's output
    assert sup.state == WAITING
    sup.accept_state(t + 4 * PERIOD, moved, np.zeros(N))
    assert sup.state == RAMP_IN


def test_release_before_any_command_and_after_a_fault():
    sup = SafetySupervisor(_limits(), _gravity)
    sup.activate(0.0)
    sup.release(0.001)  # nothing commanded: nothing to hold
    assert sup.state == INACTIVE and not sup.publishing
    sup = _active()
    sup.fault(0.01, 'two sources', latch=True, trusted=False)
    sup.release(0.02)  # the fault's hold stays: the state is not trusted
    assert sup.state == HELD and sup.hold_q is None and 'gravity' in sup.reason
    q = np.array([0.1, 0.2, 0.3])
    sup.accept_state(0.03, q, np.zeros(N))  # a latched distrust is not lifted by a state
    assert sup.hold_q is None


def test_released_during_stale_states_the_next_valid_state_is_held():
    sup = SafetySupervisor(_limits(hold_kp=np.full(N, 100.0), hold_kd=np.full(N, 10.0)),
                           _gravity)
    sup.activate(0.0)
    sup.accept_state(0.0, np.zeros(N), np.zeros(N))
    sup.check_watchdog(0.1)  # 100 ms without a state: gravity + damping, not latched
    assert sup.state == SAFE and not sup.latched and sup.hold_q is None
    sup.release(0.11)
    assert sup.state == HELD and 'not trusted' in sup.reason
    q = np.array([0.1, 0.2, 0.3])
    sup.accept_state(0.12, q, np.zeros(N))  # the states are back: held where they say
    np.testing.assert_array_equal(sup.hold_q, q)
    assert sup.state == HELD and 'position hold at the position the states resumed at' in \
        sup.reason
    sup.accept_state(0.13, q + 0.1, np.zeros(N))
    np.testing.assert_array_equal(sup.hold_q, q)  # once: the hold stays where it started
