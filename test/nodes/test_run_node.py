"""run_node: the exit path of every node process."""

import os
import subprocess
import sys
import time

import pytest

pytest.importorskip('rclpy')

pytestmark = pytest.mark.integration

SCRIPT = """
import os, signal, sys
from rclpy.node import Node
from robodyn_ros.errors import RobodynError
from robodyn_ros.nodes.node_runner import run_node

class Stopping(Node):
    def __init__(self):
        super().__init__('run_node_test')
        self.create_timer(0.05, lambda: os.kill(os.getpid(), signal.SIGINT))

def broken():
    raise RobodynError('no robot')

code = run_node(Stopping if sys.argv[1] == 'ok' else broken, 'test')
print(code, signal.getsignal(signal.SIGINT) == signal.SIG_IGN,
      signal.getsignal(signal.SIGTERM) == signal.SIG_IGN)
os.kill(os.getpid(), signal.SIGINT)  # the forwarded second Ctrl-C, after a clean stop
sys.exit(code)
"""


@pytest.mark.parametrize('case, code', [('ok', 0), ('broken', 2)])
def test_signals_after_a_clean_stop_do_not_kill_the_process(case, code):
    """Python resets Python-level handlers to SIG_DFL while finalising; launch's forwarded
    SIGINT arriving then killed the sim ('process has died', exit -2)."""
    env = dict(os.environ, ROS_DOMAIN_ID='88', ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST')
    proc = subprocess.run([sys.executable, '-c', SCRIPT, case], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == code, proc.stderr
    assert proc.stdout.split()[-3:] == [str(code), 'True', 'True'], proc.stdout + proc.stderr


HANGING = """
import os, re, signal, sys, time
from rclpy.node import Node
from robodyn_ros.nodes.node_runner import run_node

class Hanging(Node):
    def __init__(self):
        super().__init__('run_node_hang_test')
        self.timer = self.create_timer(0.5, self.stop)

    def stop(self):
        self.timer.cancel()
        print(time.monotonic(), flush=True)
        os.kill(os.getpid(), signal.SIGINT)

    def close(self):  # holds the interpreter lock for hours: no Python thread runs again
        re.match(r'(a+)+$', 'a' * 64 + 'b')

sys.exit(run_node(Hanging, 'test'))
"""


def test_a_process_stuck_holding_the_interpreter_lock_still_exits_within_2_s():
    """EXIT_DEADLINE's thread cannot run while a C call holds the lock (or during
    finalisation): the C watchdog ends the process, saying where each thread was."""
    env = dict(os.environ, ROS_DOMAIN_ID='88', ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST')
    proc = subprocess.run([sys.executable, '-c', HANGING], env=env, capture_output=True,
                          text=True, timeout=60)
    ended = time.monotonic()
    signalled = float(proc.stdout.split()[0])
    assert proc.returncode == 1, proc.stderr
    assert ended - signalled < 2.0 + 0.3, ended - signalled  # + process teardown
    assert 'in close' in proc.stderr  # the traceback names where it was stuck


SHUTTING_DOWN = """
import re, sys, time
from rclpy.node import Node
from robodyn_ros.nodes.node_runner import run_node

class ShuttingDown(Node):
    def __init__(self):
        super().__init__('run_node_shutdown_test')
        self.exit_deadline = None  # run_node sets it
        self.timer = self.create_timer(0.5, self.on_shutdown)

    def on_shutdown(self):  # the transition's work hangs, holding the interpreter lock
        self.timer.cancel()
        print(time.monotonic(), flush=True)
        if self.exit_deadline is not None:
            self.exit_deadline()
        re.match(r'(a+)+$', 'a' * 64 + 'b')

sys.exit(run_node(ShuttingDown, 'test'))
"""


def test_a_shutdown_transition_that_hangs_still_ends_the_process_within_2_s():
    """A node's shutdown transition ends its process (the controller): the exit deadline is
    armed as by a signal, so a transition stuck in a C call cannot keep the process."""
    env = dict(os.environ, ROS_DOMAIN_ID='88', ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST')
    try:
        proc = subprocess.run([sys.executable, '-c', SHUTTING_DOWN], env=env,
                              capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f'still running 30 s after starting: {exc.stdout!r}')
    ended = time.monotonic()
    started = float(proc.stdout.split()[0])
    assert proc.returncode == 1, proc.stderr
    assert ended - started < 2.0 + 0.3, ended - started  # + process teardown
    assert 'in on_shutdown' in proc.stderr
