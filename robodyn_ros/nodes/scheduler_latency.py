"""How late the machine woke the controller's watchdog: the part of a silence that is the
machine's, told from the controller's own.

When the last valid state goes stale the node's timer fires and the safe command goes
out. On a loaded machine the timer's thread can wait for a core after the timer is due
(two CPU hogs on two cores: 1-4 ms now and then); the node's own share is the time it
spent in its callbacks past the due time (a flood of states it rejects, a cycle). So the
wake-up is measured from the later of the due time and the end of the node's last callback
on its control thread (``callback_end``, noted by ``node_events.guarded``): what remains is
the scheduler's. It is reported on /diagnostics (``watchdog_wakeup_ms`` with the
``watchdog_expiry`` it belongs to, CLOCK_MONOTONIC seconds that any process on the machine
can compare with its own), so that a fault campaign judging the controller's silences can
leave that part out, as it leaves out a stall of the whole machine.

Only on the steady clock: with use_sim_time the due time is simulated time, which a
scheduler's delay does not advance.
"""

__all__ = ['WatchdogWakeup']


class WatchdogWakeup:
    """The last watchdog expiry: when it fired and how late the machine woke it [s].

    Args:
        steady: the controller's clock is CLOCK_MONOTONIC (not use_sim_time); else
            nothing is noted.
    """

    def __init__(self, steady: bool = True) -> None:
        self.steady = steady
        self.expiry: float | None = None  # CLOCK_MONOTONIC [s]
        self.late = 0.0  # [s]

    def note_cycle(self, now: float, cycle_timer, idle_since: float) -> None:
        """A callback at ``now`` that may publish the first safe command: noted when it is
        the watchdog's expiry (CycleTimer.expiry_due; asked before the timer goes to
        rate). The expiry comes on the timer, or on a rejected state that arrives first."""
        if self.steady:
            self.note(now, cycle_timer.expiry_due(now), idle_since)

    def note(self, woke: float, due: float | None, idle_since: float) -> None:
        """The timer woke at ``woke`` for an expiry ``due`` (None: not an expiry), the
        control thread idle since ``idle_since`` (all CLOCK_MONOTONIC [s])."""
        if due is None:
            return
        self.expiry = woke
        self.late = max(0.0, woke - max(due, idle_since))

    def values(self) -> dict[str, str]:
        """The /diagnostics key/values (none before the first expiry)."""
        if self.expiry is None:
            return {}
        return {'watchdog_expiry': f'{self.expiry:.6f}',
                'watchdog_wakeup_ms': f'{self.late * 1e3:.3f}'}
