"""Messages a recorder never received, from the publishers' sequence numbers.

A reliable keep-last writer overwrites a sample its reader has not acknowledged once its
history is full, so a recorder that falls behind (a busy machine, a niced recorder) loses
messages without an error. Each DDS writer numbers its samples 1, 2, 3, ...; a reader
that sees n + k after n lost k - 1 of them. Across such a gap, two recorded commands are
not two consecutive published ones: their difference is not one published torque step.
The recorder stores the summary in the bag's metadata (``custom_data``) for validation.

A reader can also stop receiving altogether while its publisher goes on (the recorder
starved on a loaded machine, a transport that dropped it): no sequence number shows that,
so the recorder notes each such silence (:meth:`SequenceGaps.silence`) and the summary
says which stretch of the run the bag does not cover.
"""

import json
from typing import Any

__all__ = ['SequenceGaps', 'CUSTOM_DATA_KEY', 'MAX_GAPS', 'listed_gaps', 'parse_gaps']

#: The bag metadata's custom_data key of the summary (a JSON object).
CUSTOM_DATA_KEY = 'robodyn.recording_gaps'
#: Gaps listed per topic (``lost`` and ``gap_count`` cover all of them).
MAX_GAPS = 1000


class SequenceGaps:
    """Per topic: the publishers seen, the messages lost and where (receive times)."""

    def __init__(self) -> None:
        self.last: dict[tuple[str, bytes], int] = {}
        self.topics: dict[str, dict[str, Any]] = {}

    def note(self, topic: str, publisher: bytes, sequence: int | None, time_ns: int) -> None:
        """A message of ``topic`` from writer ``publisher`` (its GID) with its publication
        ``sequence`` number (None or 0: unknown, nothing counted), received at ``time_ns``
        (the time it is recorded with)."""
        entry = self._entry(topic)
        key = (topic, publisher)
        previous = self.last.get(key)
        if previous is None:
            entry['publishers'] += 1
        if not sequence:
            self.last.setdefault(key, 0)
            return
        self.last[key] = sequence
        if previous and sequence > previous + 1:
            entry['lost'] += sequence - previous - 1
            entry['gap_count'] += 1
            if len(entry['gaps']) < MAX_GAPS:
                entry['gaps'].append([time_ns, sequence - previous - 1])

    def silence(self, topic: str, start_ns: int, end_ns: int | None) -> None:
        """Nothing of ``topic`` was received from ``start_ns`` (its last message) to
        ``end_ns`` (the next, or None: the recording ended first) although a publisher
        offered it: that stretch of the run is not in the bag."""
        silences = self._entry(topic).setdefault('silences', [])
        if len(silences) < MAX_GAPS:
            silences.append([start_ns, end_ns])

    def _entry(self, topic: str) -> dict[str, Any]:
        return self.topics.setdefault(topic, dict(publishers=0, lost=0, gap_count=0, gaps=[]))

    def to_json(self) -> str:
        """The summary: {topic: {publishers, lost, gap_count,
        gaps: [[receive time ns, lost], ...] (the first MAX_GAPS),
        silences: [[last message ns, next message ns or None], ...] (when any)}}."""
        return json.dumps(self.topics, separators=(',', ':'))


def listed_gaps(entry: Any) -> frozenset[int] | None:
    """The receive times [ns] of a topic's gaps from its summary ``entry``, or None when
    not all are listed (more than MAX_GAPS): a reader then cannot tell which consecutive
    messages were consecutive when published."""
    if not isinstance(entry, dict):
        return frozenset()
    gaps = [g for g in entry.get('gaps', []) if isinstance(g, list) and g]
    if entry.get('gap_count', len(gaps)) > len(gaps):
        return None
    return frozenset(int(g[0]) for g in gaps)


def parse_gaps(text: str | None) -> dict[str, dict[str, Any]]:
    """:meth:`SequenceGaps.to_json`'s summary from a bag's custom data ({} when absent or
    unreadable: a bag from another recorder)."""
    if not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
