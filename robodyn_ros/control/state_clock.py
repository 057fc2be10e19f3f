"""The joint states' time base: which stamps the controller takes, and where the reference
clock stands against the monotonic clock.

The reference runs at ``t_ref = now + offset``, ``offset`` = stamp - receipt time of the
last valid state, so the published reference shares the states' stamps whatever the robot
PC's clock says, while the watchdog stays on the monotonic clock. The reference time
never goes back: a state delivered late (its offset smaller than the last one's) after
commands were extrapolated on the old offset is evaluated at the last reference time,
so the published reference stamps stay ordered for a bag's reader (a clock jump moves
that bound with the clock).

A stamp of exactly 0 is ambiguous: simulated time at its start, or a publisher that does
not stamp. The first one is taken as time 0 (a simulator's first state); a second one
means the stream is unstamped (offset 0: the reference runs on the receipt time, said
once); after stamped states, a missing stamp keeps the offset (time goes on).
"""

from ..errors import InputError

__all__ = ['StateClock', 'CLOCK_RESET']

#: A state stamp this far [s] behind the previous one is a clock reset, not a stale state;
#: a change of the stamp-to-monotonic offset this large is a jump of the states' clock.
CLOCK_RESET = 1.0


class StateClock:
    """Stamp checks and the stamp-to-monotonic ``offset`` [s] of the last valid state."""

    def __init__(self) -> None:
        self.stamp = 0.0  # last accepted stamp [s]; 0: none yet or unstamped
        self.offset = 0.0
        self.stamped = False  # a non-zero stamp was taken
        self.zero_seen = False  # a zero stamp was taken before any non-zero one
        self.last_reference = float('-inf')  # the latest reference time handed out [s]

    def _refusal(self, stamp):
        """Why a stamp [s] (0 = unset) is refused: it repeats the last one or is older than
        it by less than CLOCK_RESET; '' when it is taken."""
        if stamp and self.stamp:
            if stamp == self.stamp:
                return 'stamp did not advance (repeated state)'
            if self.stamp - CLOCK_RESET < stamp < self.stamp:
                return 'stamp older than the previous state (out of order)'
        return ''

    def check(self, stamp: float) -> None:
        """InputError when the stamp [s] is refused (see _refusal)."""
        reason = self._refusal(stamp)
        if reason:
            raise InputError(reason)

    def stamp_interval(self, stamp: float) -> float:
        """Seconds between ``stamp`` and the last accepted stamp (0 when either is unset)."""
        return stamp - self.stamp if stamp and self.stamp else 0.0

    def _offset(self, stamp, now):
        """Stamp minus receipt time [s] (for a zero stamp see the module docstring)."""
        if stamp:
            return stamp - now
        if self.stamped:
            return self.offset
        return 0.0 if self.zero_seen else -now

    def take(self, stamp: float, now: float, reference) -> str:
        """Accept a checked state received at monotonic ``now`` [s]. A jump of the states'
        clock (reset, stamps switched on) shifts a started ``reference``'s start by the same
        amount, so it continues without a step; returns that event's text, else ''."""
        offset = self._offset(stamp, now)
        jump = offset - self.offset
        text = ''
        if abs(jump) > CLOCK_RESET:
            self.last_reference += jump
        if abs(jump) > CLOCK_RESET and reference.started:
            reference.t0 += jump
            text = f'joint state clock jumped by {jump:.3f} s; reference time shifted with it'
            if not stamp and not self.stamped:
                text = ('joint states carry no stamp (0): the reference runs on their '
                        'receipt time')
        self.take_steady(stamp, offset)
        return text

    def reference_time(self, now: float, offset: float | None = None) -> float:
        """The reference time [s] at monotonic ``now``: ``now + offset`` (default the last
        valid state's), or the latest time handed out when that is later (control thread:
        it is remembered)."""
        t = self.peek(now, offset)
        self.last_reference = t
        return t

    def peek(self, now: float, offset: float | None = None) -> float:
        """:meth:`reference_time` without remembering it (any thread)."""
        t = now + (self.offset if offset is None else offset)
        return t if t >= self.last_reference else self.last_reference

    def steady_offset(self, stamp: float, now: float) -> float | None:
        """The offset a state would get from :meth:`take` when it passes :meth:`check`
        and the states' clock did not jump; None otherwise (nothing changed)."""
        if self._refusal(stamp):
            return None
        offset = self._offset(stamp, now)
        return None if abs(offset - self.offset) > CLOCK_RESET else offset

    def take_steady(self, stamp: float, offset: float) -> None:
        """Accept a state whose :meth:`steady_offset` was ``offset``."""
        self.offset = offset
        if stamp:
            self.stamp = stamp
            self.stamped = True
        elif not self.stamped:
            self.zero_seen = True
