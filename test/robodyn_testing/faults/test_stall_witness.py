"""The stall witness sees a stretch in which it could not run, and the campaign's silence
check excuses exactly the part of a gap the witness saw stalled, nothing else."""

import os
import signal
import time
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip('rclpy')  # checks.py imports the probe, which needs rclpy

from robodyn_testing.faults.checks import Result, _check_silence  # noqa: E402
from robodyn_testing.faults.stall_witness import WITNESS_GAP, StallWitness  # noqa: E402


def test_a_process_stopped_for_120_ms_is_one_stall_of_that_length():
    witness = StallWitness()
    try:
        # the witness timing its naps (its interpreter's start under two hogs can take
        # longer than any fixed wait: stopped before, it would see no stall)
        assert witness.up.wait(10.0)
        time.sleep(0.05)
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


def _harness(times, stalls, wakeups=None):
    """What _check_silence reads: commands received at ``times`` (no wire stamps), a
    witness that saw ``stalls`` and the controller's reported watchdog ``wakeups``."""
    witness = SimpleNamespace(stalls=stalls)
    witness.stalled = lambda a, b: StallWitness.stalled(witness, a, b)
    return SimpleNamespace(parameters={'state_timeout': 0.05, 'rate': 1000.0},
                           stop_time=None, sequence=[], arrivals=list(times), pauses=[],
                           state_log=[(t, None) for t in times], witness=witness,
                           wakeups=wakeups or {})


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


@pytest.mark.parametrize('wakeups, passed', [
    ({}, False),                      # a 52.6 ms silence against 52 ms
    ({1.1525: 0.0030}, True),         # the machine woke the due watchdog 3 ms late
    ({1.1525: 0.0005}, False),        # 0.5 ms of it: 52.1 ms remain the controller's
    ({2.5: 0.0030}, False),           # an expiry elsewhere excuses nothing
    ({1.1525: 0.0008}, True),         # 0.8 ms: 51.8 ms remain
])
def test_only_the_late_wake_up_of_the_gap_s_own_expiry_is_excused(wakeups, passed):
    """The controller's watchdog woke late for the expiry that ends the gap (it reports
    how late, measured from the due time or its own last callback, whichever is later)."""
    times = np.concatenate([np.arange(1.0, 1.1, 1e-3), np.arange(1.1526, 1.2, 1e-3)])
    result = Result('gap')
    _check_silence(_harness(times, [], wakeups), result, [(t, None) for t in times])
    ok, detail = result.checks['no silence above state_timeout + 2 periods']
    assert ok == passed, detail


def test_a_late_wake_up_is_excused_up_to_its_cap_only():
    """20 ms reported for a 69 ms gap: 5 ms (WAKEUP_EXCUSE) are excused, 64 ms remain."""
    times = np.concatenate([np.arange(1.0, 1.1, 1e-3), np.arange(1.169, 1.2, 1e-3)])
    result = Result('gap')
    _check_silence(_harness(times, [], {1.168: 0.020}), result, [(t, None) for t in times])
    assert not result.checks['no silence above state_timeout + 2 periods'][0]
    assert result.machine_stall == pytest.approx(0.005)
