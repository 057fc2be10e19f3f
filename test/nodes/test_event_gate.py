"""EventGate: at most one log line per kind (EventKind, level, the text's shape) per
period; the next line says how many of its kind were held back."""

import pytest

pytest.importorskip('rclpy')
from robodyn_ros.control.events import Event, EventKind  # noqa: E402
from robodyn_ros.control.levels import Level  # noqa: E402
from robodyn_ros.nodes.node_events import EventGate  # noqa: E402


def test_one_line_per_kind_per_period_and_the_count_of_the_rest():
    gate = EventGate(period=1.0)
    rejected = Event(EventKind.STATE_REJECTED, Level.WARN, 'joint state rejected: 1.5 s old')
    same_shape = rejected._replace(text='joint state rejected: 2.5 s old')
    assert gate(rejected, now=0.0) == rejected.text
    assert gate(same_shape, now=0.2) is None  # same kind and shape: held back
    assert gate(rejected, now=0.5) is None
    ramp = Event(EventKind.TRANSITION, Level.OK, 'waiting -> ramp_in: valid joint state')
    active = ramp._replace(text='ramp_in -> active: ramp-in complete')
    assert gate(ramp, now=0.55) == ramp.text and gate(active, now=0.56) == active.text
    fault = Event(EventKind.FAULT, Level.ERROR, 'active -> safe: tracking')
    assert gate(fault, now=0.6) == fault.text  # another kind is not held back
    assert gate(rejected, now=1.1) == f'{rejected.text} (2 more like it in the last 1.1 s)'
