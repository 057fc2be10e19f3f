"""A launch run repeated only when it failed while the whole machine stood still.

Why: this VM sometimes stops as a whole for tens of milliseconds, and every process with
it: the controller's loop, the recorder, and Gazebo's /clock, which the JTC samples its
reference on. A run judged in such a stall measures the machine, not the package. A
witness process that only sleeps (StallWitness) tells such a stall from the package's own
slowness: a run is repeated only when it failed *and* the witness saw the machine stand
still in it, each earlier run's verdict and stalls are printed, and the last run is the one
judged, so a package that fails without a stall fails at once.
"""

__all__ = ['RUNS', 'STALL', 'Stalls', 'rerun_after_stalls']

#: A witness's late wake-up this long [s] is a machine-wide stall.
STALL = 0.03
#: Runs at most (rerun_after_stalls).
RUNS = 3


class Stalls:
    """A StallWitness from now on: 200 wake-ups per second beside the loaded loop."""

    def __init__(self):
        from robodyn_testing.faults.stall_witness import StallWitness
        self.witness = StallWitness(gap=STALL, nap=0.005)

    def since(self, t0, lead=0.0):
        """Stop the witness; [(start [s] after ``t0``, length [ms])] of the machine-wide
        stalls it saw starting after ``t0 - lead`` (time.monotonic() [s])."""
        self.witness.close()
        return [(round(a - t0, 2), round((b - a) * 1e3))
                for a, b in self.witness.stalls if a > t0 - lead and b - a >= STALL]


def rerun_after_stalls(run, failed, label, runs=RUNS):
    """``run()`` (a dict with 'stalls', as Stalls.since gives them) up to ``runs`` times:
    again only while ``failed(result)`` names why the run fails (None: it passes or cannot
    be judged) and the run had stalls. The last result."""
    for attempt in range(runs):
        result = run()
        why = failed(result)
        if why is None or not result.get('stalls') or attempt == runs - 1:
            return result
        print(f"{label}: {why} in a run with machine-wide stalls {result['stalls']} "
              '(start, ms): running it again')
    return result
