"""Which recorded states follow states the recorder lost: a gap in the recorded stamps that
is the recorder's, not the control loop's.

The recorder lists, per topic, where it lost messages (io.sequence_gaps: the receive time
of the message after each gap and how many were lost before it). A reader knows a state
by its header stamp, so each listed gap is turned into the stamp [s] of the state recorded
right after it, as JointStateBatch decodes that stamp; the alignment stage then does not
take that gap for a stall (alignment.Aligner).
"""

import struct
from typing import Any

import numpy as np

__all__ = ['RecordingLosses']


class RecordingLosses:
    """The state topic's recording gaps, and the stamps of the states recorded after them.

    Attributes:
        by_stamp: {stamp [s] of the first state recorded after a gap: states lost there},
            filled while the bag is read (shared with the Aligner).
    """

    def __init__(self) -> None:
        self.by_receipt: dict[int, int] = {}  # receive time [ns] -> states lost
        self.times = np.zeros(0, np.int64)  # the keys of by_receipt, for np.isin
        self.by_stamp: dict[float, int] = {}

    def listed(self, entry: Any) -> None:
        """The gaps of the recorder's summary ``entry`` for the state topic (the listed
        ones: each is a fact even when not all are listed)."""
        if not isinstance(entry, dict):
            return
        for gap in entry.get('gaps', []):
            if isinstance(gap, list) and len(gap) == 2 and all(
                    isinstance(v, int) and v > 0 for v in gap):
                self.by_receipt[gap[0]] = gap[1]
        self.times = np.array(sorted(self.by_receipt), np.int64)

    def state(self, raw: bytes, bag_ns: int) -> None:
        """A state (its CDR bytes, at least the header's first 12) received at
        ``bag_ns``: noted by its stamp when a gap ends there."""
        lost = self.by_receipt.get(bag_ns)
        if lost is not None and len(raw) >= 12:
            sec, nanosec = struct.unpack_from('<iI', raw, 4)
            self.by_stamp[float(sec) + nanosec * 1e-9] = lost

    def states(self, data: np.ndarray, start: np.ndarray, bag_ns: np.ndarray) -> None:
        """:meth:`state` for many at once: message i starts at ``data[start[i]]``."""
        for at in np.flatnonzero(np.isin(bag_ns, self.times)).tolist():
            first = int(start[at])
            self.state(data[first:first + 12].tobytes(), int(bag_ns[at]))
