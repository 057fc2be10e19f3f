"""validation.recording_losses: the recorder's listed gaps become the stamps of the states
recorded after them, one by one and from a chunk's arrays alike."""

import numpy as np

from robodyn_ros.io import encode_joint_state
from robodyn_ros.validation.recording_losses import RecordingLosses


def test_a_listed_gap_is_known_by_the_stamp_of_the_state_after_it():
    losses = RecordingLosses()
    losses.listed({'gaps': [[2_000, 99], ['bad'], [3_000, -1]], 'gap_count': 3})
    assert losses.by_receipt == {2_000: 99}  # malformed entries left out
    raws = [encode_joint_state(t, ['a'], [0.0]) for t in (1.5, 1.25, 1.75)]
    losses.state(raws[0], 1_000)  # not after a gap
    losses.state(raws[1], 2_000)
    assert losses.by_stamp == {1.25: 99}
    data = np.frombuffer(b''.join(raws), np.uint8)
    start = np.cumsum([0] + [len(r) for r in raws[:-1]])
    many = RecordingLosses()
    many.listed({'gaps': [[2_000, 99]]})
    many.states(data, start, np.array([1_000, 2_000, 3_000], np.int64))
    assert many.by_stamp == losses.by_stamp
    RecordingLosses().listed(None)  # a bag from another recorder: nothing
