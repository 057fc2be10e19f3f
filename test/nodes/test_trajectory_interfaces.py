"""The controller's JTC-compatible interfaces: what the action thread gets to read."""

from types import SimpleNamespace

import numpy as np

from robodyn_ros.nodes.trajectory_interfaces import TrajectoryInterfaces


def _interfaces(active):
    interfaces = TrajectoryInterfaces.__new__(TrajectoryInterfaces)
    interfaces.bridge = SimpleNamespace(active=active, snapshot=None)
    interfaces.publisher, interfaces.message = None, object()
    interfaces.every = interfaces.countdown = 0
    return interfaces


def _command():
    return SimpleNamespace(t_ref=1.0, q_ref=np.zeros(2), qd_ref=np.zeros(2), state='active')


def test_a_running_goal_reads_copies_of_the_state_buffers():
    """The core reuses its state buffers; the action thread reads the snapshot later."""
    interfaces = _interfaces(active=object())
    q, qd = np.array([0.1, 0.2]), np.array([0.3, 0.4])
    interfaces.after_command(_command(), q, qd, np.zeros(2))
    q[:], qd[:] = 9.0, 9.0  # the next cycle writes the buffers
    snapshot = interfaces.bridge.snapshot
    assert snapshot[3].tolist() == [0.1, 0.2] and snapshot[4].tolist() == [0.3, 0.4]


def test_no_copy_while_no_goal_runs():
    interfaces = _interfaces(active=None)
    q, qd = np.zeros(2), np.zeros(2)
    interfaces.after_command(_command(), q, qd, np.zeros(2))
    assert interfaces.bridge.snapshot[3] is q and interfaces.bridge.snapshot[4] is qd
