"""The loop benchmark publisher's schedule: it keeps its phase and skips ticks already
past, as an rcl timer does."""

import pytest

from robodyn_ros.nodes.loop_bench_nodes import next_tick

PERIOD = 1e-3


def test_on_time_keeps_the_phase():
    assert next_tick(1.0, PERIOD, 1.0 + 2e-5) == (pytest.approx(1.001), 0)


def test_late_by_less_than_a_period_keeps_the_phase():
    tick, missed = next_tick(1.0, PERIOD, 1.0009)
    assert (tick, missed) == (pytest.approx(1.001), 0)


@pytest.mark.parametrize('late, missed', [(1.5e-3, 1), (2.0e-3 + 1e-9, 2), (3.7e-3, 3)])
def test_ticks_already_past_are_skipped_not_burst(late, missed):
    tick, skipped = next_tick(1.0, PERIOD, 1.0 + late)
    assert skipped == missed
    assert 1.0 + late < tick <= 1.0 + late + PERIOD  # the next send is in the future
    assert tick == pytest.approx(1.0 + (missed + 1) * PERIOD)
