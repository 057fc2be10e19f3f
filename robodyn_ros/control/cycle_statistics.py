"""Per-cycle statistics of the controller: compute time, achieved rate, counters.

Compute time is the cycle's CPU time (its thread's CPU clock): the work a cycle does. The
wall time of the same span is kept beside it; on a loaded machine the two differ by the
time the thread was preempted, which shows in the state->command latency instead.

Fixed-size ring buffers (no allocation per cycle); :meth:`CycleStatistics.summary` gives
the key/value strings the node puts on /diagnostics.
"""

import numpy as np

__all__ = ['CycleStatistics', 'HISTOGRAM_BINS']

#: Compute times are also binned per microsecond over the whole run (the last bin holds
#: everything slower) for run-wide percentiles.
HISTOGRAM_BINS = 1000


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
        self.histogram = np.zeros(HISTOGRAM_BINS, dtype=np.int64)  # 1 us bins, whole run
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
        self.histogram[min(int(compute_us), HISTOGRAM_BINS - 1)] += 1

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

    def run_percentile(self, q):
        """Compute-time percentile ``q`` [0, 100] over the whole run [us] (1 us bins)."""
        total = int(self.histogram.sum())
        if total == 0:
            return 0.0
        k = int(np.searchsorted(np.cumsum(self.histogram), q / 100.0 * total))
        return float(min(k, HISTOGRAM_BINS - 1) + 1)

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
            'compute_run_p50_us': f'{self.run_percentile(50):.0f}',
            'compute_run_p99_us': f'{self.run_percentile(99):.0f}',
            'wall_p50_us': f'{np.percentile(wall, 50):.2f}',
            'wall_p99_us': f'{np.percentile(wall, 99):.2f}',
            'cycles': str(self.count),
        }
        values.update({k: str(v) for k, v in sorted(self.counters.items())})
        return values
