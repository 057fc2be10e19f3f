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
