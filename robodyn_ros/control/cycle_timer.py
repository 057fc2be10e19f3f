"""When the controller node's one timer fires: the timing policy, pure (the node owns the
rclpy timer and applies what this decides).

* trigger 'timer': the cycle runs on the timer, every period.
* trigger 'state': a state answers itself, and the timer is the watchdog. It sleeps until
  the last valid state goes stale (SafetyLimits.stale_after: one period before
  state_timeout, so the first safe command is on the wire at state_timeout), re-armed at
  each firing rather than per state (a reset per state would wake the executor's timer
  thread every cycle); then it runs at rate (the safe command) until a state is answered
  again. No idle 1 kHz wake-ups while states arrive. In safe mode and the hold, too, the
  states are answered and the timer only watches: a timer's command lands in the
  hardware's cycles at random, and two in one cycle apply two steps at once.
"""

__all__ = ['CycleTimer', 'WATCHDOG_MIN_NS']

#: Shortest sleep of the watchdog [ns]: a late wake-up does not spin.
WATCHDOG_MIN_NS = 100_000


class CycleTimer:
    """The timer's period and when it fires, for one configuration.

    Args:
        supervisor: the core's SafetySupervisor (state, last valid state, limits).
        period: the nominal control period [s].
        trigger_state: True for trigger 'state' (the timer is the watchdog).

    Attributes:
        fast: True while the timer runs at rate (trigger 'timer', or the safe command
            with trigger 'state').
        period_ns: the control period [ns].
        watchdog_ns: the watchdog's first sleep [ns] (stale_after).
    """

    def __init__(self, supervisor, period: float, trigger_state: bool) -> None:
        self.supervisor = supervisor
        self.trigger_state = trigger_state
        self.fast = not trigger_state
        self.period_ns = int(round(period * 1e9))
        self.watchdog_ns = int(round(supervisor.limits.stale_after * 1e9))

    @property
    def initial_ns(self) -> int:
        """The timer's period at creation [ns]."""
        return self.period_ns if self.fast else self.watchdog_ns

    def _rearm(self, period_ns: int, fast: bool) -> int:
        self.fast = fast
        return period_ns

    def after_answer(self) -> int | None:
        """A state was answered with a command: the new timer period [ns] (back from the
        safe command: a watchdog again), or None (keep it)."""
        return self._rearm(self.watchdog_ns, False) if self.fast and self.trigger_state \
            else None

    def unanswered_needs_command(self, now: float) -> bool:
        """A state got no command: True when the safe command must answer it (a fault
        while states arrive: guard, jump, law; in safe mode and the hold every state is
        answered), or go out now because the watchdog expired between rejected states.
        Then :meth:`after_unanswered` says whether the timer runs at rate from here."""
        sup = self.supervisor
        return not self.fast and (sup.needs_timer(now) or
                                  (sup.publishing and not sup.commanding))

    def after_unanswered(self, now: float) -> int | None:
        """After the command of :meth:`unanswered_needs_command`: the timer period [ns]
        at rate when the last valid state is stale, else None (the states are answered,
        the timer stays a watchdog: two commands in one hardware cycle apply two steps)."""
        return self.to_rate() if self.supervisor.needs_timer(now) else None

    def to_rate(self) -> int:
        """The timer period [ns] once the safe command is published at rate."""
        return self._rearm(self.period_ns, True)

    def expiry_due(self, now: float) -> float | None:
        """When the last valid state went stale [s], if a firing at ``now`` is the
        watchdog's expiry (the law drives, the timer watches, the state is stale); else
        None. Asked before :meth:`on_fire`, which puts the timer at rate."""
        sup = self.supervisor
        if not self.trigger_state or self.fast or not sup.commanding or \
                sup.valid_time is None or not sup.needs_timer(now):
            return None
        return sup.valid_time + sup.limits.stale_after

    def on_fire(self, now: float) -> tuple[bool, int | None]:
        """The timer fired at monotonic ``now`` [s]: (run a cycle and publish, the new
        timer period [ns] or None to keep it)."""
        sup = self.supervisor
        fire = not self.trigger_state or sup.needs_timer(now)
        if self.fast:
            return fire, None
        if fire:
            return True, self.to_rate()
        if sup.valid_time is None:
            return False, None
        left = sup.valid_time + sup.limits.stale_after - now  # until the state is stale
        return False, self._rearm(max(int(left * 1e9) + 1, WATCHDOG_MIN_NS), False)
