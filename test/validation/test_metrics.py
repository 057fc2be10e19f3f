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
