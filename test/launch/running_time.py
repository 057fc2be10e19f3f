"""A timeout on the waiting process's own running time, for the launch tests' waits.

A wait that ends at ``time.monotonic() + timeout`` also ends when the whole machine stood
still for longer than the timeout (a virtual machine paused and resumed: its monotonic
clock jumps forward), though the launch it waits on could not run either: the test then
measures the machine, not the launch. :class:`Timeout` counts only the time between two of
its checks up to ``PAUSE`` apart; a longer step is a pause of this process, counted apart
and reported (``paused``). A launch that is merely slow still runs out of time, since its
waiter checks every 0.1 s.
"""

import time

__all__ = ['PAUSE', 'Timeout']

#: A step between two checks longer than this is a pause of the waiting process [s]: the
#: waits check every 0.05-0.1 s, and beside two CPU hogs a step stays well under 1 s.
PAUSE = 2.0


class Timeout:
    """``timeout`` [s] of running time, from now (``clock``: a monotonic clock [s])."""

    def __init__(self, timeout, clock=time.monotonic):
        self.left = float(timeout)
        self.clock = clock
        self.last = clock()
        self.paused = 0.0  # [s] of steps longer than PAUSE, not counted

    def expired(self):
        """True once the running time since the start has reached the timeout."""
        now = self.clock()
        step, self.last = now - self.last, now
        if step > PAUSE:
            self.paused += step
        else:
            self.left -= step
        return self.left <= 0.0
