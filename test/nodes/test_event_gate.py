"""EventGate: at most one log line per event kind and level per period; the next line
says how many of its kind were held back."""

import pytest

pytest.importorskip('rclpy')
from robodyn_ros.control.events import Event, EventKind  # noqa: E402
from robodyn_ros.control.levels import Level  # noqa: E402
from robodyn_ros.nodes.node_support import EventGate  # noqa: E402


def test_one_line_per_kind_per_period_and_the_count_of_the_rest():
    gate = EventGate(period=1.0)
    rejected = Event(EventKind.STATE_REJECTED, Level.WARN, 'joint state rejected: a')
    other_text = rejected._replace(text='joint state rejected: b (another reason)')
    assert gate(rejected, now=0.0) == rejected.text
    assert gate(other_text, now=0.2) is None  # same kind: held back
    assert gate(rejected, now=0.5) is None
    fault = Event(EventKind.FAULT, Level.ERROR, 'active -> safe: tracking')
    assert gate(fault, now=0.6) == fault.text  # another kind is not held back
    assert gate(rejected, now=1.1) == f'{rejected.text} (2 more like it in the last 1.1 s)'
