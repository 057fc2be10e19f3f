"""What a ROS node asks of its controller's safety supervisor, and nothing more.

The node publishes, reports and ends what the supervisor decides; it never decides. So
it reads the supervisor's state and reason, whether a command must go out each cycle, the
nominal period and when the last command went out; and it tells the supervisor three
things: where the arm's torque now is (the rate limit continues from there), a fault it
found (latched), and that it is being deactivated. Everything else (limits, the hold, the
ramps, the event lists) stays inside :mod:`.supervisor`.
"""

from collections.abc import Sequence

from ..cycle_timer import CycleTimer
from .supervisor import SafetySupervisor, SupervisorState

__all__ = ['SafetyView']


class SafetyView:
    """The node's handle on a :class:`SafetySupervisor` (``ControllerCore.safety``)."""

    __slots__ = ('_supervisor',)

    def __init__(self, supervisor: SafetySupervisor) -> None:
        self._supervisor = supervisor

    # One read-only delegation per fact the node needs: the list is the interface, so each
    # is written out (and typed) rather than forwarded by __getattr__.

    @property
    def state(self) -> SupervisorState:
        """inactive, waiting, ramp_in, active, safe or held."""
        return self._supervisor.state

    @property
    def reason(self) -> str:
        """Why the supervisor is in its state (the diagnostics' words)."""
        return self._supervisor.reason

    @property
    def publishing(self) -> bool:
        """True while a command must go out every cycle."""
        return self._supervisor.publishing

    @property
    def faults(self) -> int:
        """Faults since the core was built."""
        return self._supervisor.faults

    @property
    def period(self) -> float:
        """The nominal control period [s]: one rate-limit step per period."""
        return self._supervisor.limits.period

    @property
    def output_time(self) -> float | None:
        """When the last command went out [s, the node's clock], None before one."""
        return self._supervisor.output_time

    @property
    def has_events(self) -> bool:
        """True when transitions or faults wait to be logged (ControllerCore.drain_events)."""
        return bool(self._supervisor.events)

    def continue_from(self, effort: Sequence[float], time: float) -> None:
        """The arm's torque is ``effort`` (chain order [N m or N]) since ``time``: the next
        command steps from it within the rate limit."""
        self._supervisor.continue_from(effort, time)

    def fault(self, now: float, reason: str) -> None:
        """A fault the node found (an internal error): latched safe mode."""
        self._supervisor.fault(now, reason, latch=True)

    def deactivate(self, now: float, reason: str) -> None:
        """Stop commanding (nothing is published after this): the node's shutdown."""
        self._supervisor.deactivate(now, reason)

    def cycle_timer(self, period: float, trigger_state: bool) -> CycleTimer:
        """The cycle timer of this supervisor (cycle_timer.py: when a cycle is due)."""
        return CycleTimer(self._supervisor, period, trigger_state)
