"""A process that only sleeps: the witness of machine-wide stalls during a fault case.

Why: on a virtual machine the whole guest sometimes stops for tens of milliseconds (measured
here: 48 ms during a disk flush, and a 105 ms stall in which the controller and the probe,
two processes, stopped together). Every process stops with it, the controller whose
silence the campaign bounds included. A process that does nothing but sleep 1 ms and note
when it woke late tells such a stall from a silence of the controller's own: a controller
that stops while the rest of the machine runs is never excused (checks._check_silence).
A loaded machine's scheduler does the same on a smaller scale: with two CPU hogs on two
cores a process that wakes from a sleep now and then waits 2-4 ms for a core, the
controller's watchdog timer included; the witness notes those waits too (WITNESS_GAP), and
only the part of a gap it saw is excused.

The witness's times are ``time.monotonic()`` (CLOCK_MONOTONIC, one clock for every process
on the machine), so they compare with the probe's receipt times directly.
"""

import os
import subprocess
import sys
import threading

__all__ = ['StallWitness', 'WITNESS_GAP']

#: A wake-up this much later than its nap asked is noted as a stall [s]: a loaded machine
#: that keeps a process that only sleeps from its core for 2 ms keeps the controller's
#: timer from it as well (two hogs on this 2-core VM: 2-4 ms, now and then).
WITNESS_GAP = 0.002

_SCRIPT = """
import os, sys, time
parent, gap, nap = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
print('up', flush=True)
last = time.monotonic()
while os.getppid() == parent:
    time.sleep(nap)
    now = time.monotonic()
    if now - last - nap > gap:
        print(repr(last + nap), repr(now), flush=True)
    last = now
"""


class StallWitness:
    """The witness process of one case and the stalls it saw, (start, end) [s] monotonic:
    from when a nap should have ended to when the witness woke.

    Args:
        gap: a wake-up later than this after its nap's end is a stall [s].
        nap: the witness's sleep [s] (longer: fewer wake-ups competing with a loaded
            machine's other processes, a coarser stall).

    It ends with :meth:`close`, or by itself when its parent (the probe) is gone.
    """

    def __init__(self, gap: float = WITNESS_GAP, nap: float = 0.001) -> None:
        self.stalls: list[tuple[float, float]] = []
        #: set once the witness is timing its naps: a stall before that is not seen (its
        #: interpreter's start takes 0.05 s idle, longer on a loaded machine)
        self.up = threading.Event()
        self.proc = subprocess.Popen(
            [sys.executable, '-c', _SCRIPT, str(os.getpid()), repr(gap), repr(nap)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.strip() == 'up':
                self.up.set()
                continue
            try:
                start, end = (float(v) for v in line.split())
            except ValueError:  # a line cut by the kill: not a stall
                continue
            self.stalls.append((start, end))

    def stalled(self, start: float, stop: float) -> float:
        """How long the witness was stalled within [start, stop] [s]."""
        return sum(max(0.0, min(end, stop) - max(begin, start))
                   for begin, end in list(self.stalls))

    def close(self) -> None:
        """End the process (its last stalls read first)."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.reader.join(timeout=1.0)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
