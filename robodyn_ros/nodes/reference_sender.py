"""Send the configured reference (``sum_of_sines``, ``one_minus_cos``) to a
JointTrajectoryController once it is active: the motion of a run on the plugin path.

On that path the reference comes from the real JTC chained into the C++ controller
(robodyn_controllers), so the configured reference becomes one JointTrajectory: samples
every ``spacing`` seconds for ``duration`` seconds with positions, velocities and
accelerations (the JTC interpolates them with quintic splines), starting at the first
joint state received and ending at rest back there (trajectories.EndingAtRest over the
last max(ramp, SETTLE) seconds): a JTC left holding a point the arm passed at speed reports
tolerance errors for ever. The node checks the samples against the joint limits shrunk by
``reference_margin`` and the velocity limits, sends, and exits.
"""

from controller_manager_msgs.srv import ListControllers
import numpy as np
from rclpy.client import Client
from rclpy.duration import Duration
from rclpy.node import Node
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory

from ..control.reference.trajectories import EndingAtRest, make_reference
from ..errors import ConfigError
from .node_messages import joint_trajectory
from .node_parameters import declare, declare_robot, model_from_parameters
from .node_runner import run_node

__all__ = ['ReferenceSender', 'SENT_PARAMETERS', 'main']

#: The controller config's parameters this node takes (the launch file passes them on).
SENT_PARAMETERS = ('reference', 'amplitudes', 'periods', 'ramp', 'reference_margin')
#: Seconds to wait for the JTC to acknowledge the trajectory before the node exits.
ACK_TIMEOUT = 10.0
#: Most samples one message carries: measured here, a 15000-point trajectory (2.5 MB)
#: was acknowledged yet never reached the JTC, 2400 points (0.4 MB) always did.
MAX_SAMPLES = 2500
#: Shortest time the reference takes to come back to rest at its start [s]: its extra
#: speed is at most 1.875 x the deviation / SETTLE (0.47 rad/s for 0.5 rad).
SETTLE = 2.0


class ReferenceSender(Node):
    """Wait for a joint state and an active JTC, send the reference once, finish."""

    #: run_node ends the process right after a signal: nothing here to save, and tearing
    #: down its DDS entities has taken past the 2 s exit deadline on a loaded machine.
    exit_after_close = True

    def __init__(self, **kwargs):
        super().__init__('robodyn_reference_sender', **kwargs)
        declare_robot(self)
        self.model = model_from_parameters(self)
        self.kind = declare(self, 'reference', 'sum_of_sines', 'sum_of_sines | one_minus_cos')
        self.amplitudes = declare(self, 'amplitudes', [0.0], 'reference amplitudes [rad]',
                                  dynamic=True)
        self.periods = declare(self, 'periods', [0.0], 'reference periods [s]', dynamic=True)
        self.ramp = float(declare(self, 'ramp', 1.0, 'smooth start [s]', dynamic=True))
        self.duration = float(declare(self, 'duration', 120.0, 'length [s]', dynamic=True))
        self.spacing = float(declare(self, 'spacing', 0.05, 'sample spacing [s]',
                                     dynamic=True))
        self.margin = float(declare(self, 'reference_margin', 0.05, 'limits shrunk by this '
                                    '[rad or m]', dynamic=True))
        self.controller = declare(self, 'controller', 'joint_trajectory_controller',
                                  'the JointTrajectoryController to send to')
        if self.model is None or not 0 < self.spacing <= self.duration or \
                self.duration / self.spacing > MAX_SAMPLES:
            raise ConfigError(f'reference_sender: a robot, and 0 < spacing <= duration with '
                             f'at most {MAX_SAMPLES} samples (got {self.spacing}, '
                             f'{self.duration})')
        self.q0 = None
        self.finished = False  # run_node ends the process when set
        self.create_subscription(JointState, '/joint_states', self.on_state, 10)
        self.publisher = self.create_publisher(
            JointTrajectory, f'/{self.controller}/joint_trajectory', 10)
        self.list_client: Client = self.create_client(ListControllers, '/controller_manager/'
                                              'list_controllers')
        self.pending = None
        self.timer = self.create_timer(0.2, self.on_timer)

    def on_state(self, msg):
        """The latest position: the trajectory starts where the arm is when it is sent (a
        simulated arm may settle while the controllers start)."""
        index = {name: i for i, name in enumerate(msg.name)}
        if all(j in index for j in self.model.joint_names) and \
                len(msg.position) == len(msg.name):
            self.q0 = np.array([msg.position[index[j]] for j in self.model.joint_names])

    def on_timer(self):
        if self.q0 is None or self.pending is not None or self.finished:
            return
        # the JTC's subscription must be matched: a message sent before is lost
        if not self.list_client.service_is_ready() or \
                self.publisher.get_subscription_count() == 0:
            return
        self.pending = self.list_client.call_async(ListControllers.Request())
        self.pending.add_done_callback(self.on_list)

    def on_list(self, future):
        self.pending = None
        result = future.result()
        states = {c.name: c.state for c in result.controller} if result else {}
        if states.get(self.controller) != 'active':
            return
        message = self.trajectory()
        if message is not None:
            self.publisher.publish(message)
            # a reliable writer that goes away before the reader has every fragment of a
            # large message loses it: wait for the acknowledgement before exiting
            acked = self.publisher.wait_for_all_acked(Duration(seconds=ACK_TIMEOUT))
            self.get_logger().info(f'sent {len(message.points)} points ({self.duration:g} s '
                                   f'of {self.kind}) to {self.controller}'
                                   + ('' if acked else f', not acknowledged within '
                                      f'{ACK_TIMEOUT:g} s'))
        self.finished = True

    def trajectory(self):
        """The reference as a JointTrajectory from q0, or None (logged) when a sample leaves
        the limits."""
        model, q0 = self.model, self.q0
        if q0 is None:
            return None
        reference = EndingAtRest(
            make_reference(self.kind, q0, self.amplitudes, self.periods, self.ramp), q0,
            self.duration, min(max(self.ramp, SETTLE), self.duration))
        times = np.arange(1, int(round(self.duration / self.spacing)) + 1) * self.spacing
        samples = [reference(t) for t in times]
        q, qd, qdd = (np.array(column) for column in zip(*samples))
        low, high = model.lower + self.margin, model.upper - self.margin
        speed = np.where(model.velocity_limits > 0, model.velocity_limits, np.inf)
        if np.any(q < low) or np.any(q > high) or np.any(np.abs(qd) > speed):
            self.get_logger().error(f'the {self.kind} reference from {q0.round(4)} leaves '
                                    'the joint limits: not sent')
            return None
        return joint_trajectory(model.joint_names, times, q, qd, qdd)


def main(args=None):
    """Run until the reference is sent (or SIGINT / SIGTERM)."""
    return run_node(ReferenceSender, 'robodyn_reference_sender', args)


if __name__ == '__main__':
    raise SystemExit(main())
