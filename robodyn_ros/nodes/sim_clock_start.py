"""Activation on simulated time: deferred until the simulation's /clock has started.

Why: with ``use_sim_time`` a node's clock reads 0 until its first /clock message. A
controller activated at time 0 whose first state then arrives stamped seconds later sees a
state watchdog of seconds, trips, and recovers: a spurious safe-mode entry in every bag of
a cold-started simulation. Until the clock starts, the controller publishes nothing (as
before its first valid state: the simulator's brakes or hardware interface hold the arm)
and activates at the first callback that reads a running clock, or at a state stamped at
time 0 (a lock-step simulation publishes its first state and /clock at 0).
"""

__all__ = ['SimClockStart']


class SimClockStart:
    """Defers a core's activation until ``clock`` (an rclpy Clock) reads a non-zero time.

    Args:
        clock: the node's clock (ROS time: simulated with ``use_sim_time``).
        sim_time: the node's ``use_sim_time``; without it activation is never deferred.
        say: where a deferred activation is said, once (the node's log).
    """

    def __init__(self, clock, sim_time: bool, say=None):
        self.clock, self.sim_time, self.say = clock, sim_time, say
        self.pending = False

    def _started(self, stamp: float | None = None) -> bool:
        if not self.sim_time or self.clock.now().nanoseconds > 0:
            return True
        return stamp is not None and stamp <= 0.0

    def activate(self, core, now) -> bool:
        """Activate ``core`` at ``now()`` [s] when the clock runs, else defer (and say so).
        Returns True when deferred."""
        self.pending = not self._started()
        if not self.pending:
            core.activate(now())
        elif self.say is not None:
            self.say('activated: waiting for /clock (use_sim_time)')
        return self.pending

    def ready(self, core, now, stamp: float | None = None) -> bool:
        """In a callback: False while activation waits for the clock (nothing to do this
        callback); activates ``core`` at the first call that reads a running clock, or
        with a state's ``stamp`` [s] of 0 (simulated time that starts at 0)."""
        if not self.pending:
            return True
        if not self._started(stamp):
            return False
        self.pending = False
        core.activate(now())
        return True

    def cancel(self) -> None:
        """A deactivate or cleanup before the clock started: nothing to activate."""
        self.pending = False
