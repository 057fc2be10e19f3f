"""Trajectory feed-forward for a JTC: node -> emulated JTC in the sim, over DDS."""

import numpy as np
import pytest

rclpy = pytest.importorskip('rclpy')
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from ros_helpers import spin_until  # noqa: E402
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint  # noqa: E402

from robodyn_ros.nodes.feedforward_node import FeedforwardNode  # noqa: E402
from robodyn_ros.nodes.sim_node import SimNode  # noqa: E402

pytestmark = pytest.mark.integration

GOAL = [0.4, -0.3, 0.5]


def _params(**values):
    return [Parameter(k, value=v) for k, v in values.items()]


def test_trajectory_reaches_the_jtc_with_effort_and_the_arm_follows():
    context = rclpy.Context()
    rclpy.init(context=context)
    sim = SimNode(context=context, parameter_overrides=_params(
        robot='three_link', command_interface='joint_trajectory', jtc_kp=[100.0],
        jtc_kd=[5.0], brakes=True, publish_clock=False))
    ff = FeedforwardNode(context=context, parameter_overrides=_params(robot='three_link'))
    probe = rclpy.create_node('probe', context=context)
    pub = probe.create_publisher(JointTrajectory, '/robodyn_jtc_feedforward/joint_trajectory',
                                 10)
    executor = SingleThreadedExecutor(context=context)
    for node in (sim, ff, probe):
        executor.add_node(node)
    try:
        assert spin_until(executor, lambda: ff.state is not None and
                          pub.get_subscription_count() > 0 and
                          ff.pub.get_subscription_count() > 0)
        msg = JointTrajectory()
        msg.joint_names = ['joint_3', 'joint_1', 'joint_2']
        bad = JointTrajectoryPoint(positions=[0.1, 0.2])  # 2 positions for 3 names
        bad.time_from_start.sec = 1
        msg.points = [bad]
        pub.publish(msg)
        spin_until(executor, lambda: False, 0.3)
        assert sim.jtc.spline is None  # rejected by the feed-forward node
        point = JointTrajectoryPoint(positions=[GOAL[2], GOAL[0], GOAL[1]])
        point.time_from_start.sec = 1
        msg.points = [point]
        pub.publish(msg)
        assert spin_until(executor, lambda: sim.jtc.spline is not None, 5.0)
        assert sim.jtc.effort is not None and np.all(np.isfinite(sim.jtc.effort))
        t_sent = sim.jtc.t0
        assert spin_until(executor, lambda: sim.sim.time > t_sent + 1.5, 30.0)
        np.testing.assert_allclose(sim.sim.state()[0], GOAL, atol=5e-3)
    finally:
        for node in (sim, ff, probe):
            node.destroy_node()
        rclpy.shutdown(context=context)
