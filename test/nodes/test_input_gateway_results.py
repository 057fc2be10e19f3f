"""The input gateway asks the controller again for a relayed goal's result that is late."""

from robodyn_ros.nodes.input_gateway import RESULT_RETRY, _Relayed


class _Future:
    def __init__(self):
        self.value = None

    def done(self):
        return self.value is not None

    def set_result(self, value):
        self.value = value

    def add_done_callback(self, callback):
        pass  # never answered: the middleware dropped the answer


class _Inner:
    """The controller's goal handle: its status, and the result requests it was sent."""

    def __init__(self):
        self.status, self.requests = 2, 0  # executing

    def get_result_async(self):
        self.requests += 1
        return _Future()


def _relayed():
    relayed = _Relayed()
    relayed.inner, relayed.done = _Inner(), _Future()
    relayed.ask(0.0)
    return relayed


def test_a_result_is_asked_again_only_once_the_goal_ended_and_it_is_late():
    relayed = _relayed()
    relayed.ask_if_late(10.0)  # still executing: its result is simply not due
    assert relayed.inner.requests == 1
    relayed.inner.status = 4  # succeeded
    relayed.ask_if_late(10.0)
    assert relayed.inner.requests == 1  # the answer may still be on its way
    relayed.ask_if_late(10.0 + RESULT_RETRY)
    assert relayed.inner.requests == 2
    relayed.ask_if_late(10.0 + 1.5 * RESULT_RETRY)
    assert relayed.inner.requests == 2  # not more often than RESULT_RETRY
    relayed.ask_if_late(10.0 + 2 * RESULT_RETRY)
    assert relayed.inner.requests == 3


def test_a_goal_whose_result_came_is_not_asked_again():
    relayed = _relayed()
    relayed.inner.status = 6  # aborted
    relayed.finish('controller stopped')
    for now in (10.0, 20.0, 30.0):
        relayed.ask_if_late(now)
    assert relayed.inner.requests == 1
