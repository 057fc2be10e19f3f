"""LatestWorker: the newest request wins, each result is taken exactly once, a failing
conversion becomes on_error's result, close() stops the thread."""

import threading
import time

from robodyn_ros.nodes.latest_worker import LatestWorker


def _wait(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(1e-4)
    return predicate()


def test_every_result_is_taken_exactly_once():
    worker = LatestWorker(lambda x: x * 2, repr, 'test_worker')
    try:
        for i in range(500):
            worker.submit(i)
            assert _wait(lambda: worker.has_result), i
            assert worker.take() == (2 * i,)
            assert worker.take() is None
    finally:
        worker.close()


def test_the_newest_request_replaces_one_waiting():
    gate = threading.Event()
    seen = []

    def convert(x):
        seen.append(x)
        gate.wait(5.0)
        return x

    worker = LatestWorker(convert, repr, 'test_worker')
    try:
        worker.submit('first')
        assert _wait(lambda: seen == ['first'])
        for name in ('second', 'third', 'newest'):  # all arrive while 'first' converts
            worker.submit(name)
        gate.set()
        assert _wait(lambda: seen == ['first', 'newest'] and worker.idle)
        assert worker.take() == ('newest',)
    finally:
        worker.close()


def test_a_failing_conversion_becomes_the_error_result():
    def convert(_):
        raise ValueError('bad request')

    worker = LatestWorker(convert, lambda exc: f'refused: {exc}', 'test_worker')
    try:
        worker.submit(1)
        assert _wait(lambda: worker.has_result)
        assert worker.take() == ('refused: bad request',) and worker.internal_errors == 1
    finally:
        worker.close()
    assert not worker.thread.is_alive()
