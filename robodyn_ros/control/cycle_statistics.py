"""Per-cycle statistics of the controller: compute time, achieved rate, counters.

Compute time is the cycle's CPU time (its thread's CPU clock): the work a cycle does. The
wall time of the same span is kept beside it; on a loaded machine the two differ by the
time the thread was preempted, which shows in the state->command latency instead.

Fixed-size ring buffers (no allocation per cycle); :meth:`CycleStatistics.summary` gives
the key/value strings the node puts on /diagnostics.
"""

import numpy as np

__all__ = ['CycleStatistics']


class CycleStatistics:
    """Compute (CPU) and wall time [us] and cycle times [s, monotonic] over the last
    ``window`` cycles.

    Args:
        window: number of cycles kept.
    """

    def __init__(self, window=2000):
        self.window = int(window)
        self.compute_us = np.zeros(self.window)
        self.wall_us = np.zeros(self.window)
        self.times = np.zeros(self.window)
        self.count = 0
        self.compute_max_us = 0.0
        self.counters = {}

    def record(self, now, compute_us, wall_us):
        """One cycle at ``now`` [s] that took ``compute_us`` of CPU, ``wall_us`` of wall."""
        k = self.count % self.window
        self.compute_us[k] = compute_us
        self.wall_us[k] = wall_us
        self.times[k] = now
        self.count += 1
        if compute_us > self.compute_max_us:
            self.compute_max_us = compute_us

    def bump(self, name):
        """Increment counter ``name``."""
        self.counters[name] = self.counters.get(name, 0) + 1

    def rate(self):
        """Achieved command rate over the window [Hz] (0 with fewer than 2 cycles)."""
        m = min(self.count, self.window)
        if m < 2:
            return 0.0
        times = self.times[:m]
        span = float(times.max() - times.min())
        return (m - 1) / span if span > 0 else 0.0

    def summary(self):
        """{key: value string} for /diagnostics."""
        m = min(self.count, self.window)
        window = self.compute_us[:m] if m else np.zeros(1)
        wall = self.wall_us[:m] if m else np.zeros(1)
        values = {
            'rate_hz': f'{self.rate():.3f}',
            'compute_p50_us': f'{np.percentile(window, 50):.2f}',
            'compute_p99_us': f'{np.percentile(window, 99):.2f}',
            'compute_max_us': f'{self.compute_max_us:.2f}',
            'wall_p50_us': f'{np.percentile(wall, 50):.2f}',
            'wall_p99_us': f'{np.percentile(wall, 99):.2f}',
            'cycles': str(self.count),
        }
        values.update({k: str(v) for k, v in sorted(self.counters.items())})
        return values
