"""SequenceGaps: messages lost between a publisher's sequence numbers, per topic."""

from robodyn_ros.io.sequence_gaps import SequenceGaps, parse_gaps

A, B = b'writer-a', b'writer-b'


def test_lost_messages_are_counted_per_publisher_with_where_they_were_lost():
    gaps = SequenceGaps()
    for seq, t in [(1, 10), (2, 11), (5, 14), (6, 15)]:
        gaps.note('/cmd', A, seq, t)
    for seq, t in [(7, 12), (8, 13)]:  # a second writer numbers its own samples
        gaps.note('/cmd', B, seq, t)
    entry = parse_gaps(gaps.to_json())['/cmd']
    assert entry == dict(publishers=2, lost=2, gap_count=1, gaps=[[14, 2]])


def test_unknown_sequence_numbers_count_nothing_and_bad_custom_data_is_empty():
    gaps = SequenceGaps()
    for t in range(3):
        gaps.note('/cmd', A, None, t)
    gaps.note('/cmd', A, 40, 3)  # the first number seen: nothing before it is known lost
    assert gaps.topics['/cmd'] == dict(publishers=1, lost=0, gap_count=0, gaps=[])
    assert parse_gaps('not json') == {} and parse_gaps(None) == {} and parse_gaps('[1]') == {}


def test_gaps_beyond_the_listed_ones_make_the_steps_unknown():
    from robodyn_ros.io.sequence_gaps import MAX_GAPS, listed_gaps
    gaps = SequenceGaps()
    for k in range(MAX_GAPS + 2):  # every other message lost: MAX_GAPS + 1 gaps
        gaps.note('/cmd', A, 2 * k + 1, k)
    entry = parse_gaps(gaps.to_json())['/cmd']
    assert entry['gap_count'] == MAX_GAPS + 1 and len(entry['gaps']) == MAX_GAPS
    assert listed_gaps(entry) is None
    assert listed_gaps({'gaps': [[5, 1]]}) == frozenset({5})  # a summary without a count
