"""The controller's JTC-compatible interfaces, when control_msgs is installed:
FollowJointTrajectory (see follow_joint_trajectory) and ~/controller_state."""

__all__ = ['create_trajectory_interfaces']


def create_trajectory_interfaces(node, config):
    """(bridge, state publisher, publish every N cycles, message builder) for ``node``;
    (None, None, 0, None) without control_msgs (logged once)."""
    try:
        from control_msgs.msg import JointTrajectoryControllerState

        from .follow_joint_trajectory import ControllerStateMessage, FollowJointTrajectoryBridge
    except ImportError:
        node.get_logger().warning('control_msgs is not installed: no FollowJointTrajectory '
                                  'action, no ~/controller_state')
        return None, None, 0, None
    bridge = FollowJointTrajectoryBridge(node, config.action_feedback_rate,
                                         config.goal_defaults(node.core.model.n)) \
        if config.follow_joint_trajectory else None
    message = ControllerStateMessage(node.core.model.joint_names)
    if config.state_publish_rate <= 0:
        return bridge, None, 0, message
    publisher = node.create_publisher(JointTrajectoryControllerState, '~/controller_state', 10)
    every = max(1, int(round(config.rate / config.state_publish_rate)))
    return bridge, publisher, every, message
