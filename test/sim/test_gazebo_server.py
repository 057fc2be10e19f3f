"""The Gazebo server's wrapper: exit 0 only when stopped by a signal (Ctrl-C), so the
launch tells a Ctrl-C from a server that ended by itself by the exit code alone."""

import os
import signal
import threading

import pytest

from robodyn_ros.sim import gazebo_server


@pytest.mark.parametrize('server, code', [('/bin/true', 1), ('/bin/false', 1)])
def test_a_server_that_ends_by_itself_is_a_failure_even_with_0(monkeypatch, server, code):
    monkeypatch.setattr(gazebo_server, '_server_path', lambda: server)
    assert gazebo_server.main([]) == code


def test_a_signal_stops_the_server_and_the_wrapper_exits_0(monkeypatch):
    monkeypatch.setattr(gazebo_server, '_server_path', lambda: '/bin/sleep')
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM))
    timer.start()
    try:
        assert gazebo_server.main(['30']) == 0
    finally:
        timer.cancel()
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
