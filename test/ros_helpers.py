"""Helpers for tests that run rclpy nodes in-process (own context, localhost DDS)."""

import time

__all__ = ['spin_until']


def spin_until(executor, predicate, timeout=10.0):
    """Spin ``executor`` until ``predicate()`` holds or ``timeout`` [s]; its last value."""
    deadline = time.perf_counter() + timeout
    while not predicate() and time.perf_counter() < deadline:
        executor.spin_once(timeout_sec=0.02)
    return predicate()
