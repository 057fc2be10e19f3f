"""The controller's outputs beside its command: the JTC-compatible interfaces, when
control_msgs is installed (FollowJointTrajectory, see follow_joint_trajectory, and
~/controller_state), and with collision detection ~/external_torque and ~/tool_wrench."""

import numpy as np
from sensor_msgs.msg import JointState

from .node_messages import float_array, to_time

__all__ = ['TrajectoryInterfaces', 'serves_action']

#: Shortest time between two tool wrenches [s] (each is about 1 ms of Python on a worker
#: thread, which takes the interpreter's lock from the control thread meanwhile).
WRENCH_INTERVAL = 0.01


def serves_action(config) -> bool:
    """True when a node configured with ``config`` (a ControllerConfig) serves
    FollowJointTrajectory: ``follow_joint_trajectory`` on and control_msgs installed. The
    bridge here and the input gateway's relay both ask this."""
    import importlib.util
    return bool(config.follow_joint_trajectory) and \
        importlib.util.find_spec('control_msgs') is not None


class TrajectoryInterfaces:
    """FollowJointTrajectory bridge and ~/controller_state publisher of a configured
    controller node; without control_msgs neither (logged once).

    Attributes:
        bridge: the FollowJointTrajectoryBridge serving ``action`` (absolute name), or None
            (no action).
        publisher: the JointTrajectoryControllerState publisher, or None.
    """

    def __init__(self, node, config, core, action):
        self.bridge = self.publisher = self.message = None
        self.every = self.countdown = 0
        self.node, self.core, self.external = node, core, None
        if config.state_publish_rate > 0:
            self.every = max(1, int(round(config.rate / config.state_publish_rate)))
            self.countdown = self.every
            if core.collision is not None:  # the estimate at the same rate
                self.external = node.outlets.wrap(
                    node.create_publisher(JointState, '~/external_torque', 10))
                self.external_msg = JointState(name=list(core.model.joint_names))
                self._tool_wrench_publisher(node, core.model)
        try:
            from control_msgs.msg import JointTrajectoryControllerState

            from .follow_joint_trajectory import (
                ControllerStateMessage,
                FollowJointTrajectoryBridge,
            )
        except ImportError:
            node.get_logger().warning('control_msgs is not installed: no '
                                      'FollowJointTrajectory action, no ~/controller_state')
            return
        if serves_action(config):
            self.bridge = FollowJointTrajectoryBridge(node, config.action_feedback_rate,
                                                      config.goal_defaults(core.model.n), action)
        self.message = ControllerStateMessage(core.model.joint_names)
        if config.state_publish_rate > 0:
            self.publisher = node.outlets.wrap(node.create_publisher(
                JointTrajectoryControllerState, '~/controller_state', 10))

    def _tool_wrench_publisher(self, node, model):
        """~/tool_wrench: the wrench at the tool that explains the estimate, if the contact
        is at the tool (dynamics.contact_wrench: least squares through the tool Jacobian;
        frame base_link, the moment about the tip_link origin). About 1 ms of Python a
        wrench: computed and published on a worker thread, the newest state first, at most
        every WRENCH_INTERVAL, never in the control cycle."""
        from geometry_msgs.msg import WrenchStamped

        from .latest_worker import LatestWorker
        self.wrench = node.outlets.wrap(node.create_publisher(WrenchStamped, '~/tool_wrench',
                                                              10))
        self.wrench_msg = WrenchStamped()
        self.wrench_msg.header.frame_id = model.base_link
        self.wrench_worker = LatestWorker(lambda args: self._send_wrench(*args),
                                          lambda exc: None, 'robodyn_tool_wrench',
                                          WRENCH_INTERVAL)

    def _send_wrench(self, stamp, q, residual):
        from ..dynamics.contact_wrench import tool_wrench
        force_moment = tool_wrench(self.core.model, q, residual).wrench
        if not np.isfinite(force_moment).all():
            return  # nothing non-finite on the wire (a singular pose: no estimate)
        msg = self.wrench_msg
        msg.header.stamp = stamp
        msg.wrench.force.x, msg.wrench.force.y, msg.wrench.force.z = map(
            float, force_moment[:3])
        msg.wrench.torque.x, msg.wrench.torque.y, msg.wrench.torque.z = map(
            float, force_moment[3:])
        self.wrench.send(msg)

    def after_command(self, command, q, qd, effort):
        """Hand a published Command (``effort`` in chain order) and the state it answered
        (q, qd, the core's buffers) to the action and, every ``every`` commands, to
        ~/controller_state and ~/external_torque."""
        self.countdown -= 1
        due = self.countdown <= 0
        if due:
            self.countdown = self.every
        external = getattr(self, 'external', None)  # tests build the object bare
        if due and external is not None:  # stamped with the state it answered
            residual = self.core.collision.observer.residual
            self.external_msg.header.stamp = to_time(command.t_ref)
            self.external_msg.effort = float_array(residual)
            external.send(self.external_msg)
            self.wrench_worker.submit((to_time(command.t_ref), q.copy(), residual.copy()))
        if self.message is None:
            return
        bridge = self.bridge
        if bridge is not None and bridge.active is not None:
            # A goal reads the snapshot from the action thread, later: the core reuses the
            # state's buffers (ControllerCore.q), so the snapshot gets copies.
            q, qd = q.copy(), qd.copy()
        snapshot = (command.t_ref, command.q_ref, command.qd_ref, q, qd, command.state)
        if bridge is not None:
            bridge.snapshot = snapshot
        if self.publisher is not None and due:
            self.publisher.send(self.message(snapshot, effort))

    def close(self):
        """Stop the action's thread (the node destroys ~/controller_state's publisher)."""
        if self.external is not None:
            self.wrench_worker.close()
            self.node.destroy_publisher(self.external.publisher)
            self.node.destroy_publisher(self.wrench.publisher)
            self.external = None
        if self.bridge is not None:
            self.bridge.close()
            self.bridge = None
