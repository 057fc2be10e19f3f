"""Severity of the controller's events and diagnostics."""

from enum import IntEnum

__all__ = ['Level']


class Level(IntEnum):
    """diagnostic_msgs/DiagnosticStatus's levels, also the severity of an event (logged
    at info, warning or error). An int: it goes into the message's byte as it is."""

    OK = 0
    WARN = 1
    ERROR = 2
