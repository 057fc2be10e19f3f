"""Send one FollowJointTrajectory goal to the controller from this process and print
'refused' or 'result CODE TEXT', or (``topic``) publish the trajectory on its
~/joint_trajectory and print 'published'. Used by the fault campaign: a large message's
serialization and sending hold this process's interpreter lock, not the probe's, whose
receipt times of the commands would otherwise pause with it and read as the controller's
silence.

    python -m robodyn_testing.faults.goal_client POINTS DURATION DELTA [KIND [topic]]

KIND: 'plain' (default), 'names' (a million joint names), 'velocities' (every point's
velocities 1e6 rad/s), and the other kinds of fixtures.hostile_trajectory.
"""

import sys
import time
from typing import Any

import rclpy
from rclpy.action import ActionClient

from robodyn_ros.defaults import CONTROLLER_NAME
from robodyn_testing.faults.fixtures import hostile_trajectory, trajectory


def publish(message):
    """Publish ``message`` on the controller's ~/joint_trajectory once a subscriber is
    matched, and stay long enough for reliable delivery."""
    from trajectory_msgs.msg import JointTrajectory
    rclpy.init()
    node = rclpy.create_node('fault_trajectory_client')
    try:
        pub = node.create_publisher(JointTrajectory, f'/{CONTROLLER_NAME}/joint_trajectory', 10)
        deadline = time.monotonic() + 10.0
        while pub.get_subscription_count() == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        pub.publish(message)
        print('published', flush=True)
        time.sleep(1.0)
    finally:
        node.destroy_node()
        rclpy.try_shutdown()


def main(points, duration, delta, kind='plain', where='goal'):
    message = trajectory(points, duration, delta) if kind == 'plain' else \
        hostile_trajectory(kind, duration, delta)
    if where == 'topic':
        publish(message)
        return
    from control_msgs.action import FollowJointTrajectory
    rclpy.init()
    node = rclpy.create_node('fault_goal_client')
    client: Any = ActionClient(node, FollowJointTrajectory,
                          f'/{CONTROLLER_NAME}/follow_joint_trajectory')
    try:
        if not client.wait_for_server(timeout_sec=10.0):
            print('refused no server', flush=True)
            return
        goal = FollowJointTrajectory.Goal(trajectory=message)
        future = client.send_goal_async(goal)
        rclpy.spin_until_future_complete(node, future, timeout_sec=30.0)
        handle = future.result()
        if handle is None or not handle.accepted:
            print('refused', flush=True)
            return
        result = handle.get_result_async()
        rclpy.spin_until_future_complete(node, result, timeout_sec=60.0)
        response = result.result()
        if response is None:
            print('result none', flush=True)
        else:
            res = response.result
            print(f'result {res.error_code} {res.error_string}', flush=True)
    finally:
        node.destroy_node()
        rclpy.try_shutdown()


if __name__ == '__main__':
    main(int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), *sys.argv[4:6])
