"""The lines a ROS 2 process prints with rcutils' default console format,
``[LEVEL] [<stamp s>.<ns>] [<logger>]: <message>``, behind launch's ``[<process>-N]``
prefix when launched.

The stamp is the time the process logged at on its own clock (the wall clock, as the
hardware's and the controllers' stamps are outside simulation): tests and the fault
campaign read from it when a process did something, free of the delay before a reader
saw the line. One reader of the format, for every caller.
"""

from collections.abc import Iterable
from dataclasses import dataclass
import re

__all__ = ['LogLine', 'logged', 'parse_log_line']

_LINE = re.compile(r'\[(DEBUG|INFO|WARN|ERROR|FATAL)\] \[(\d+\.\d+)\] \[([^\]]*)\]: (.*)$')


@dataclass(frozen=True)
class LogLine:
    """One parsed console line."""

    level: str  # DEBUG, INFO, WARN, ERROR or FATAL
    stamp: float  # [s] when the process logged it, on its clock
    logger: str  # the node's or logger's name
    message: str


def parse_log_line(line: str) -> LogLine | None:
    """The parts of ``line``, or None for a line not in the console format (a traceback,
    a print, a dump)."""
    found = _LINE.search(line.rstrip('\r\n'))
    if found is None:
        return None
    return LogLine(found[1], float(found[2]), found[3], found[4])


def logged(lines: str | Iterable[str], words: str, logger: str | None = None) -> list[LogLine]:
    """Every line of ``lines`` (a text or its lines) whose message contains ``words``, from
    ``logger`` when given, in order."""
    if isinstance(lines, str):
        lines = lines.splitlines()
    parsed = (parse_log_line(line) for line in lines)
    return [line for line in parsed if line is not None and words in line.message and
            (logger is None or line.logger == logger)]
