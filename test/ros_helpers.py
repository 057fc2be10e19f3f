"""Helpers for tests that run rclpy nodes in-process (own context, localhost DDS)."""

import os
import signal
import time

__all__ = ['spin_until', 'stall']


def spin_until(executor, predicate, timeout=10.0):
    """Spin ``executor`` until ``predicate()`` holds or ``timeout`` [s]; its last value."""
    deadline = time.perf_counter() + timeout
    while not predicate() and time.perf_counter() < deadline:
        executor.spin_once(timeout_sec=0.02)
    return predicate()


def stall(pid, seconds):
    """Deschedule process ``pid`` for ``seconds`` of wall time (SIGSTOP, then SIGCONT
    whatever happens), as a loaded machine can."""
    os.kill(pid, signal.SIGSTOP)
    try:
        time.sleep(seconds)
    finally:
        os.kill(pid, signal.SIGCONT)
