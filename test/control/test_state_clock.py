"""StateClock: which stamps are taken, and the reference's time base."""

from types import SimpleNamespace

import pytest

from robodyn_ros.control.state_clock import CLOCK_RESET, StateClock
from robodyn_ros.errors import InputError


def _taken(stamp, now=50.0):
    clock = StateClock()
    clock.take(stamp, now, SimpleNamespace(started=False, t0=0.0))
    return clock


@pytest.mark.parametrize('stamp, why', [(100.0, 'did not advance'),
                                        (100.0 - 0.5 * CLOCK_RESET, 'out of order')])
def test_repeated_and_out_of_order_stamps_are_refused(stamp, why):
    with pytest.raises(InputError, match=why):
        _taken(100.0).check(stamp)
    assert _taken(100.0).steady_offset(stamp, 50.001) is None


def test_unstamped_states_and_clock_resets_are_taken():
    clock = _taken(100.0)
    clock.check(0.0)
    clock.check(100.0 - 2 * CLOCK_RESET)  # a restarted simulator
    assert clock.steady_offset(100.001, 50.001) == pytest.approx(50.0)


def test_a_jump_shifts_a_started_reference_and_is_not_steady():
    clock = _taken(100.0)
    reference = SimpleNamespace(started=True, t0=120.0)
    assert clock.steady_offset(110.0, 50.001) is None  # 10 s ahead: a jump
    text = clock.take(110.0, 50.001, reference)
    assert 'jumped by 9.999 s' in text
    assert reference.t0 == pytest.approx(129.999) and clock.offset == pytest.approx(59.999)


def test_take_steady_keeps_the_offset_it_was_given():
    clock = _taken(100.0)
    offset = clock.steady_offset(100.001, 50.001)
    clock.take_steady(100.001, offset)
    assert clock.stamp == 100.001 and clock.offset == offset


def test_reference_time_never_goes_back_when_states_arrive_late():
    clock = _taken(100.0, now=50.0)  # offset 50
    assert clock.reference_time(50.040) == pytest.approx(100.040)  # extrapolated in a stall
    late = clock.steady_offset(100.001, 50.045)  # stamped 1 ms later, delivered 45 ms late
    clock.take_steady(100.001, late)
    assert clock.peek(50.045) == clock.reference_time(50.045) == pytest.approx(100.040)
    assert clock.reference_time(50.100) == pytest.approx(100.056)  # on the new offset again


def test_a_clock_reset_moves_the_reference_time_bound_with_it():
    clock = _taken(100.0, now=50.0)
    clock.reference_time(50.0)
    clock.take(3.0, 50.001, SimpleNamespace(started=True, t0=0.0))  # a restarted simulator
    assert clock.reference_time(50.001) == pytest.approx(3.0)
