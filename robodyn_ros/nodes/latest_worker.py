"""One daemon thread that works on the newest request, off the control thread.

The control thread only hands requests over (:meth:`LatestWorker.submit`, O(1)) and takes
finished results (:meth:`LatestWorker.take`, O(1)) between two cycles. A request that
arrives while another waits replaces it: the newest wins, so a storm of requests costs one
conversion per ``min_interval`` at most, never the control thread's time. The interpreter
hands its lock to the control thread every switch interval while the worker runs.
"""

import threading
import time
from typing import Any

__all__ = ['LatestWorker']


class LatestWorker:
    """Convert the newest submitted request with ``convert(request)`` on one thread.

    Args:
        convert: request -> result (any thread; an exception becomes
            ``on_error(exc)``'s result).
        on_error: exception -> result.
        name: the thread's name.
        min_interval: seconds between the starts of two conversions (a storm's bound).
    """

    def __init__(self, convert, on_error, name, min_interval=0.0):
        self.convert = convert
        self.on_error = on_error
        self.min_interval = float(min_interval)
        self._wake = threading.Condition()
        self._pending: tuple[Any] | None = None  # (request,) waiting
        self._ready: tuple[Any] | None = None  # (result,) finished
        # _ready changes hands between the two threads: the swap in take() and the store in
        # _run() hold this lock (two assignments: the control thread never waits longer)
        self._ready_lock = threading.Lock()
        self._stop = False
        self.busy = False
        self.internal_errors = 0  # exceptions from convert (a defect or a bad request)
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.thread.start()

    def submit(self, request):
        """Queue ``request`` (O(1)); it replaces one still waiting."""
        with self._wake:
            self._pending = (request,)
            self._wake.notify()

    def take(self):
        """(result,) of the last conversion once (O(1)), or None."""
        with self._ready_lock:
            ready, self._ready = self._ready, None
        return ready

    @property
    def idle(self):
        """True when nothing is waiting or being converted."""
        return self._pending is None and not self.busy

    @property
    def has_result(self):
        """True when :meth:`take` has something."""
        return self._ready is not None

    def _run(self):
        started = -float('inf')
        while True:
            with self._wake:
                while self._pending is None and not self._stop:
                    self._wake.wait()
                if self._stop:
                    return
                wait = started + self.min_interval - time.monotonic()
                if wait > 0.0:  # a storm: let the newest request replace this one
                    self._wake.wait(wait)
                    continue
                pending, self._pending = self._pending, None
                if pending is None:  # a stop between the wait and here
                    continue
                (request,) = pending
                self.busy = True
            started = time.monotonic()
            try:
                result = self.convert(request)
            except Exception as exc:  # noqa: BLE001 - the thread must outlive a bad request
                self.internal_errors += 1
                result = self.on_error(exc)
            with self._ready_lock:
                self._ready = (result,)
            self.busy = False

    def close(self, timeout=0.5):
        """Stop the thread (a conversion under way is abandoned after ``timeout`` [s]: the
        thread is a daemon)."""
        with self._wake:
            self._stop = True
            self._wake.notify()
        self.thread.join(timeout=timeout)
