"""The nodes' events in their logs: callbacks that let no exception escape, and a gate that
keeps a flood of one kind of event to one line a second."""

import re
import time

from ..control.levels import Level

__all__ = ['guarded', 'EventGate', 'log_events']


def guarded(method):
    """Callback wrapper: an exception is handed to ``self.on_internal_error`` (logged,
    and the controller latches safe mode); nothing escapes the callback. Its end is noted
    in ``self.callback_end`` (CLOCK_MONOTONIC [s]: the thread busy until then, see
    scheduler_latency.py)."""
    def wrapper(self, *args):
        try:
            return method(self, *args)
        except Exception as exc:  # noqa: BLE001 - nothing may escape a callback
            self.on_internal_error(exc)
        finally:
            self.callback_end = time.monotonic()
    wrapper.__name__ = method.__name__
    wrapper.__doc__ = method.__doc__
    return wrapper


class EventGate:
    """At most one log line per kind of event per ``period`` [s] (monotonic), so
    alternating faults or clocks cannot flood the log. A kind is the event's EventKind
    (control/events.py), level and the shape of its text (numbers blanked): two different
    transitions in a row are both logged, the same rejection at 1 kHz once a second. The
    line after a quiet spell says how many of its kind were held back."""

    _NUMBER = re.compile(r'[-+]?\d[\d.e+-]*')

    def __init__(self, period=1.0):
        self.period = period
        self.last = {}  # (kind, level, shape) -> (time logged, held back since)

    def __call__(self, event, now=None):
        """The line to log for ``event`` (an Event), or None (held back)."""
        now = time.monotonic() if now is None else now
        text = event.text
        kind = (event.kind, event.level, self._NUMBER.sub('#', text))
        logged, held = self.last.get(kind, (None, 0))
        if logged is not None and now - logged < self.period:
            self.last[kind] = (logged, held + 1)
            return None
        if len(self.last) > 1000:  # bounded memory whatever the texts
            self.last.clear()
        self.last[kind] = (now, 0)
        return text if not held else f'{text} ({held} more like it in the last ' \
                                      f'{now - logged:.1f} s)'


def log_events(logger, events, gate=None):
    """Log Events: OK at info, WARN at warning, ERROR at error (separate call sites: rclpy
    refuses one site logging at several severities); ``gate`` (an EventGate) thins them."""
    for event in events:
        level, text = event.level, event.text
        if gate is not None:
            text = gate(event)
            if text is None:
                continue
        if level == Level.ERROR:
            logger.error(text)
        elif level == Level.WARN:
            logger.warning(text)
        else:
            logger.info(text)
