"""Trajectory feed-forward for a JointTrajectoryController (JTC) on effort interfaces.

A JointTrajectory arriving on ``~/joint_trajectory`` is joined by quintic splines from the
current joint state (the same conversion the controller uses), densified every ``dt``, and
sent to the JTC (``jtc_topic``) with positions, velocities, accelerations and
effort = M qdd + C qd + g [+ friction] (seed 000 eq. 72) at each point: the JTC adds the
effort to its PID as feed-forward (ros2_controllers PR #1200). The JTC, inside
ros2_control's 1 kHz loop, owns safety on the robot; this node rejects trajectories outside
the joint limits (minus ``reference_margin``) or needing more than the effort limits.

Topics (relative): in joint_states, ~/joint_trajectory; out <jtc_topic>.
"""

from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory

from ..control import JointMap
from ..control.reference.trajectory_feedforward import feedforward_trajectory
from ..control.reference.trajectory_message import trajectory_from_message
from ..defaults import GRAVITY, JOINT_STATES
from ..dynamics import RigidBodyDynamics
from ..errors import ConfigError, InputError, RobodynError
from .node_messages import joint_trajectory
from .node_parameters import declare, declare_robot, model_from_parameters
from .node_runner import run_node

__all__ = ['FeedforwardNode', 'main']


class FeedforwardNode(Node):
    """See the module docstring."""

    def __init__(self, **kwargs):
        super().__init__('robodyn_jtc_feedforward', **kwargs)
        declare_robot(self)
        declare(self, 'jtc_topic', 'joint_trajectory_controller/joint_trajectory',
                'the JTC command topic')
        declare(self, 'dt', 0.01, 'spacing of the dense points [s]', dynamic=True)
        declare(self, 'include_gravity', True, 'false on robots compensating gravity')
        declare(self, 'include_friction', False, 'add the friction model')
        declare(self, 'gravity', list(GRAVITY), 'gravity in the base frame [m/s^2]',
                dynamic=True)
        declare(self, 'reference_margin', 0.05, 'limits shrunk by this [rad or m]',
                dynamic=True)
        p = self.get_parameter
        model = model_from_parameters(self)
        if model is None:
            raise ConfigError('jtc_feedforward: set robot_description, urdf_file or robot')
        self.model = model
        self.dyn = RigidBodyDynamics(model, gravity=[float(g) for g in p('gravity').value])
        self.joint_map = JointMap(model.joint_names)
        margin = float(p('reference_margin').value)
        self.lower, self.upper = model.lower + margin, model.upper - margin
        self.state = None
        self.pub = self.create_publisher(JointTrajectory, p('jtc_topic').value, 10)
        self.create_subscription(JointState, JOINT_STATES, self.on_state,
                                 QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT))
        self.create_subscription(JointTrajectory, '~/joint_trajectory', self.on_trajectory, 10)

    def on_state(self, msg):
        """Keep the latest valid joint state (the start of the next trajectory)."""
        try:
            self.state = self.joint_map.extract(msg.name, msg.position, msg.velocity)
        except InputError:
            pass

    def on_trajectory(self, msg):
        """Densify, attach feed-forward torques, send to the JTC (or log why not)."""
        try:
            out = self.feedforward(msg)
        except (RobodynError, TypeError, ValueError) as exc:
            self.get_logger().error(f'trajectory rejected: {exc}')
            return
        self.pub.publish(out)
        self.get_logger().info(f'sent {len(out.points)} points with feed-forward effort')

    def feedforward(self, msg):
        """The JTC JointTrajectory for ``msg`` (InputError if it cannot be followed)."""
        if self.state is None:
            raise InputError('no joint state yet')
        q, _ = self.state
        z = q * 0.0
        p = self.get_parameter
        spline = trajectory_from_message(msg, self.joint_map, (q, z, z), 0.0, 'quintic',
                                         self.lower, self.upper)
        traj = feedforward_trajectory(self.dyn, spline, spline.duration, float(p('dt').value),
                                      p('include_gravity').value, p('include_friction').value,
                                      self.model.effort_limits)
        return joint_trajectory(self.model.joint_names, traj.times, traj.q, traj.qd,
                                traj.qdd, traj.effort)


def main(args=None):
    """Run the feed-forward node until SIGINT/SIGTERM."""
    return run_node(FeedforwardNode, 'jtc_feedforward', args)


if __name__ == '__main__':
    raise SystemExit(main())
