"""ramp_to_safe.close_at_exit: once per process, the exit deadline armed before anything."""

import pytest

pytest.importorskip('rclpy')

from robodyn_ros.nodes.ramp_to_safe import close_at_exit  # noqa: E402


class _Unconfigured:
    """A controller node with nothing configured: nothing to ramp, no goals."""

    configured = None

    def __init__(self):
        self.armed = 0
        self.exit_deadline = self.arm

    def arm(self):
        self.armed += 1


def test_the_exit_deadline_is_armed_once_whatever_closes_first():
    """The shutdown transition and then run_node's exit both call close_at_exit: the
    deadline (node_runner.arm_exit_deadline in the node's process) is armed by the first."""
    node = _Unconfigured()
    close_at_exit(node)
    close_at_exit(node)
    assert node.armed == 1 and node.exit_after_close is True
