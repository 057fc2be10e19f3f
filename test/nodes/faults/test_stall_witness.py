"""The stall witness sees a stretch in which it could not run, and the campaign's silence
check excuses exactly the part of a gap the witness saw stalled, nothing else."""

import os
import signal
import time
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip('rclpy')  # checks.py imports the probe, which needs rclpy

from robodyn_ros.nodes.faults.checks import Result, _check_silence  # noqa: E402
from robodyn_ros.nodes.faults.stall_witness import WITNESS_GAP, StallWitness  # noqa: E402


def test_a_process_stopped_for_120_ms_is_one_stall_of_that_length():
    witness = StallWitness()
    try:
        time.sleep(0.5)  # the interpreter up and sleeping
        quiet = list(witness.stalls)
        os.kill(witness.proc.pid, signal.SIGSTOP)
        t0 = time.monotonic()
        time.sleep(0.12)
        os.kill(witness.proc.pid, signal.SIGCONT)
        t1 = time.monotonic()
        deadline = time.monotonic() + 5.0
        while not _ending_after(witness.stalls[len(quiet):], t1) and \
                time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        witness.close()
    # a loaded machine stalls the witness on its own too, before the stop as after it
    ours = _ending_after(witness.stalls[len(quiet):], t1)
    assert ours, (witness.stalls[len(quiet):], t0, t1)
    assert ours[0][0] <= t0 + WITNESS_GAP, (ours, t0, t1)
    assert 0.11 <= witness.stalled(t0 - 1.0, t1 + 1.0) <= 0.25
    assert witness.stalled(t1 + 1.0, t1 + 2.0) == 0.0


def _ending_after(stalls, t1):
    """The stalls that end at ``t1`` (the SIGCONT) or later, 1 ms of clock reading allowed."""
    return [stall for stall in stalls if stall[1] >= t1 - 1e-3]


def _harness(times, stalls):
    """What _check_silence reads: commands received at ``times`` (no wire stamps), and a
    witness that saw ``stalls``."""
    witness = SimpleNamespace(stalls=stalls)
    witness.stalled = lambda a, b: StallWitness.stalled(witness, a, b)
    return SimpleNamespace(parameters={'state_timeout': 0.05, 'rate': 1000.0},
                           stop_time=None, sequence=[], arrivals=list(times), pauses=[],
                           state_log=[(t, None) for t in times], witness=witness)


@pytest.mark.parametrize('stalls, passed', [
    ([], False),                      # a 105 ms silence of the controller's own
    ([(1.102, 1.200)], True),         # 98 ms of it the whole machine stood still
    ([(1.102, 1.140)], False),        # a 38 ms stall leaves 67 ms of the controller's
    ([(3.000, 3.200)], False),        # a stall elsewhere excuses nothing
])
def test_only_a_witnessed_stall_inside_the_gap_is_excused(stalls, passed):
    times = np.concatenate([np.arange(1.0, 1.1, 1e-3), np.arange(1.205, 1.3, 1e-3)])
    result = Result('gap')
    _check_silence(_harness(times, stalls), result, [(t, None) for t in times])
    ok, detail = result.checks['no silence above state_timeout + 2 periods']
    assert ok == passed, detail
    assert (result.machine_stall > 0.0) == (stalls == [(1.102, 1.200)] or
                                            stalls == [(1.102, 1.140)])
    assert result.longest_silence == pytest.approx(0.105 - result.machine_stall, abs=1e-3)
