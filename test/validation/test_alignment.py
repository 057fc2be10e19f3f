"""validation.alignment: states compared with the reference chunk by chunk; the states just
after a stall counted apart on request."""

import numpy as np

from robodyn_ros.validation.alignment import Aligner
from robodyn_ros.validation.references import SampledReference


def _run(settle, chunks):
    """A 1 kHz state stream with a 100 ms stall at 0.5 s; the error is 1 within 0.05 s
    after the stall and 1e-3 elsewhere. Returns the tracking stats."""
    t = np.concatenate([np.arange(0.0, 0.5, 1e-3), np.arange(0.6, 1.0, 1e-3)])
    err = np.where((t >= 0.6) & (t < 0.65), 1.0, 1e-3)
    ref = SampledReference()
    ref.add_arrays(t, np.zeros((len(t), 1)), np.zeros((len(t), 1)))
    aligner = Aligner(1, 1e-2, None, settle_after_stall=settle)
    for part in np.array_split(np.arange(len(t)), chunks):
        aligner.add(t[part], -err[part, None], np.zeros((len(part), 1)),
                    np.zeros((len(part), 1)))
        aligner.process(ref)
    aligner.process(ref, final=True)
    return aligner.tracking


def test_every_state_counts_by_default():
    stats = _run(0.0, 1)
    assert stats.excluded == 0
    assert stats.maxabs[0] == 1.0


def test_states_after_a_stall_are_counted_apart_across_chunk_boundaries():
    for chunks in (1, 3, 7, 900):  # the stall and its settling window split anyhow
        stats = _run(0.0605, chunks)
        assert stats.excluded == 61, chunks  # 0.600 .. 0.660 inclusive
        assert abs(stats.maxabs[0] - 1e-3) < 1e-12, chunks
        assert stats.count == 900 - 61


def test_states_in_a_gap_of_the_recorded_reference_are_not_compared():
    """A recorder that lagged lost 0.5 s of the reference: the states there have no
    reference near them, and a cubic across the gap is not the reference (here 0.5 rad of
    a 2 s sine would be missed by up to ~0.1 rad); they are counted, not compared."""
    t = np.arange(0.0, 2.0, 0.001)
    w = np.pi
    kept = (t < 0.8) | (t > 1.3)
    ref = SampledReference()
    ref.add_arrays(t[kept], 0.5 * np.sin(w * t[kept])[:, None],
                   0.5 * w * np.cos(w * t[kept])[:, None])
    ok, q, rates = ref.evaluate(t, final=True)
    assert ref.in_gaps == int(np.count_nonzero(~kept)) and np.array_equal(ok, kept)
    assert q.shape == (int(kept.sum()), 1) and rates[0].shape == q.shape
    np.testing.assert_allclose(q[:, 0], 0.5 * np.sin(w * t[kept]), atol=1e-15)


def test_a_reference_sampled_sparsely_but_densely_enough_is_interpolated():
    t = np.arange(0.0, 1.0, 0.01)  # 10 ms apart: within MAX_INTERPOLATED_GAP
    ref = SampledReference()
    ref.add_arrays(t, np.sin(t)[:, None], np.cos(t)[:, None])
    states = np.arange(0.0, 0.99, 0.001) + 0.0005
    ok, q, _ = ref.evaluate(states, final=True)
    assert ok.all() and ref.in_gaps == 0
    np.testing.assert_allclose(q[:, 0], np.sin(states), atol=1e-9)
