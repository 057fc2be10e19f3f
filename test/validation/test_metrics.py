"""Streaming statistics directly: tracking with non-finite samples, loop timing with jumps
back, the decimator's bound."""

import numpy as np
import pytest

from robodyn_ros.validation.metrics import Decimator, TimingStats, TrackingStats


def test_tracking_counts_non_finite_samples_and_keeps_the_finite_rms():
    stats = TrackingStats(2, tolerance=0.5)
    t = np.arange(4.0)
    err = np.array([[1.0, 0.1], [-1.0, np.nan], [1.0, 0.1], [-1.0, np.inf]])
    stats.add(t[:2], err[:2])
    stats.add(t[2:], err[2:])  # in two chunks: the same as one
    result = stats.result(['a', 'b'])['joints']
    assert result['a']['rms'] == 1.0 and result['a']['non_finite'] == 0
    assert result['b']['rms'] == pytest.approx(0.1) and result['b']['non_finite'] == 2
    assert result['a']['time_in_band'] == 0.0 and result['b']['time_in_band'] == 0.5


def test_tracking_all_non_finite_joint_has_no_rms():
    stats = TrackingStats(1, tolerance=1.0)
    stats.add(np.arange(3.0), np.full((3, 1), np.nan))
    joint = stats.result(['a'])['joints']['a']
    assert np.isnan(joint['rms']) and joint['time_in_band'] == 0.0


def test_timing_rate_gaps_and_backward_jumps():
    stats = TimingStats()
    stamps = np.concatenate([np.arange(0, 1, 0.001), [0.5], np.arange(1.0, 2.0, 0.001)])
    stamps = np.delete(stamps, [100, 200])  # two dropped cycles
    stats.add(stamps[:700])
    stats.add(stamps[700:])
    result = stats.result()
    assert result['backward_jumps'] == 1
    assert result['nominal_period_ms'] == pytest.approx(1.0)
    assert result['gaps'] >= 2 and result['dropped_cycles'] >= 2


def test_decimator_keeps_a_bounded_evenly_spaced_subset():
    keep = Decimator(limit=100)
    for k in range(50):
        keep.add(np.arange(k * 100, (k + 1) * 100))
    (kept,) = keep.get()
    assert len(kept) <= 200 and kept[0] == 0
    assert len(set(np.diff(kept))) == 1  # even spacing


def test_decimator_fed_one_sample_at_a_time_keeps_what_batches_keep():
    """A command topic adds one message at a time: the same rows as batch adds (its
    running count of kept rows replaces a sum over every row kept so far)."""
    one, batch = Decimator(limit=100), Decimator(limit=100)
    for k in range(5000):
        one.add(np.array([k]))
    for k in range(50):
        batch.add(np.arange(k * 100, (k + 1) * 100))
    assert np.array_equal(one.get()[0], batch.get()[0])
    assert one.kept == len(one.get()[0]) <= 200


def test_command_steps_in_one_batch_skip_non_finite_and_lost_pairs():
    from robodyn_ros.validation.bag_stream import CommandStats
    stats = CommandStats(gaps=frozenset({5}))
    values = np.array([[0.0], [1.0], [np.nan], [0.5], [10.0], [10.5]])
    stats.add(np.arange(1, 7, dtype=np.int64), values, None, Decimator())
    # steps at 2: 1.0, at 3 and 4: NaN (never a step), at 5: 9.5 but lost (a gap), at 6: 0.5
    assert stats.largest_step == 1.0 and stats.step_ns == 2 and stats.across_gaps == 1
