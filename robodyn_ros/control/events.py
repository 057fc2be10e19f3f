"""What the controller reports: typed events, one kind per thing that happens.

Every event is an :class:`Event` (kind, level, text) made by :func:`emit`; the node logs
them (at most one line per kind and text shape per second: nodes/node_events.EventGate)
and /diagnostics carries the state they leave. Tests assert kinds, not wording. The C++
controller (robodyn_controllers) names its events from the same vocabulary, and the inputs
a cycle treats specially are listed, by name, in cycle_events.py.
"""

from enum import Enum
from typing import NamedTuple

from .levels import Level

__all__ = ['EventKind', 'Event', 'emit']


class EventKind(str, Enum):
    """The kinds of event (the value is the name logs and tests use)."""

    #: The supervisor changed state (inactive, waiting, ramp_in, active).
    TRANSITION = 'transition'
    #: The supervisor entered the safe state: a fault, with its cause.
    FAULT = 'fault'
    #: One joint_states publisher's position jumped beyond the velocity guard: accepted
    #: (its stamps lag its motion), said once per kind.
    LAGGING_STREAM = 'lagging_stream'
    #: A joint state was not used (and does not feed the watchdog).
    STATE_REJECTED = 'state_rejected'
    #: The joint states' clock jumped: the reference moved with it.
    CLOCK_JUMP = 'clock_jump'
    #: The configured reference could not start: holding instead.
    REFERENCE_REJECTED = 'reference_rejected'
    #: A trajectory (topic or goal) was taken / refused.
    TRAJECTORY_ADOPTED = 'trajectory_adopted'
    TRAJECTORY_REFUSED = 'trajectory_refused'
    #: A pose target was refused, or put inside the workspace box.
    TARGET = 'target'
    #: A payload change was swapped in / refused.
    PAYLOAD_ADOPTED = 'payload_adopted'
    PAYLOAD_REFUSED = 'payload_refused'
    #: The external torque estimate crossed its thresholds (collision.reaction report; hold
    #: and compliant are faults).
    COLLISION = 'collision'


class Event(NamedTuple):
    """One event: its ``kind``, severity (``level``) and one line of ``text``."""

    kind: EventKind
    level: Level
    text: str


def emit(events: list[Event], kind: EventKind, level: Level, text: str) -> None:
    """Append an event to ``events`` (the owner's list, drained by the node)."""
    events.append(Event(kind, level, text))
