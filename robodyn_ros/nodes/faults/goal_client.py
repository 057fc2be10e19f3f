"""Send one FollowJointTrajectory goal to the controller from this process and print
'refused' or 'result CODE TEXT' (used by the fault campaign: a large goal's serialization
holds this process's interpreter lock, not the probe's).

    python -m robodyn_ros.nodes.faults.goal_client POINTS DURATION DELTA [KIND]

KIND: 'plain' (default), 'names' (a million joint names), 'velocities' (every point's
velocities 1e6 rad/s).
"""

import sys
from typing import Any

import rclpy
from rclpy.action import ActionClient

from robodyn_ros.nodes.faults.fixtures import hostile_trajectory, trajectory


def main(points, duration, delta, kind='plain'):
    from control_msgs.action import FollowJointTrajectory
    rclpy.init()
    node = rclpy.create_node('fault_goal_client')
    client: Any = ActionClient(node, FollowJointTrajectory,
                          '/robodyn_controller/follow_joint_trajectory')
    try:
        if not client.wait_for_server(timeout_sec=10.0):
            print('refused no server', flush=True)
            return
        message = trajectory(points, duration, delta) if kind == 'plain' else \
            hostile_trajectory(kind, duration, delta)
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
    main(int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), *sys.argv[4:5])
