"""Drive a running robodyn controller from a Python script (no ROS knowledge needed):

    from robodyn_ros.client import RobodynClient
    with RobodynClient() as arm:
        arm.wait_until_ready()
        position, orientation = arm.tool_pose()
        print(arm.move_to_pose(position + [0.0, 0.05, 0.0], orientation))

The implementation is a node (robodyn_ros.nodes.robodyn_client): rclpy stays in nodes/.
"""

from ..nodes.robodyn_client import MoveResult, RobodynClient

__all__ = ['MoveResult', 'RobodynClient']
