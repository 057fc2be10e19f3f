"""The recorder's loop takes messages for at most one turn's time: a backlog that never
empties (a niced recorder on a busy machine) still lets it see a signal and close the bag."""

import time
from types import SimpleNamespace

import pytest

pytest.importorskip('rclpy')

from robodyn_ros.nodes.recorder import TURN, RecorderNode  # noqa: E402


class _Endless:
    """A subscription that always has one more message (gives up after a million)."""

    msg_type = None

    def __init__(self):
        self.handle = self
        self.taken = 0

    def take_message(self, _type, _raw):
        self.taken += 1
        if self.taken > 1_000_000:
            return None
        return b'', {}


def test_a_backlog_that_never_empties_ends_the_turn_at_its_deadline():
    recorded = []
    node = SimpleNamespace(on_message=lambda topic, data, info: recorded.append(topic))
    sub = _Endless()
    t0 = time.monotonic()
    RecorderNode._take_all(node, '/joint_states', sub, t0 + TURN)
    took = time.monotonic() - t0
    assert recorded and sub.taken < 1_000_000, 'the turn ignored its deadline'
    assert took < TURN + 0.5  # generous: a loaded machine may stop the thread a while


def test_without_a_deadline_every_message_is_taken():
    recorded = []
    node = SimpleNamespace(on_message=lambda topic, data, info: recorded.append(topic))
    sub = _Endless()
    RecorderNode._take_all(node, '/joint_states', sub)
    assert len(recorded) == 1_000_000
