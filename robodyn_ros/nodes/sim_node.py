"""MuJoCo simulated arm behaving like ros2_control with an effort controller.

Subscribes the command topic (std_msgs/Float64MultiArray, held between steps, as a forward
effort controller holds its last command) and publishes joint_states (position, velocity,
applied effort) and, optionally, /clock. URDF position limits are hard stops; with
``brakes`` the arm is held at q0 until the first command arrives.
"""

import numpy as np
from rclpy.node import Node
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

from ..errors import RobodynError
from ..sim import MujocoSim
from .common import declare, declare_robot, model_from_parameters, run_node, to_time

__all__ = ['SimNode', 'main']


class SimNode(Node):
    """Simulated arm; in ``lockstep`` mode a driver calls :meth:`publish_state` / :meth:`step`."""

    def __init__(self, **kwargs):
        super().__init__('robodyn_sim', **kwargs)
        declare_robot(self)
        declare(self, 'q0', [0.0], 'initial joint positions [rad or m] (default zeros)',
                dynamic=True)
        declare(self, 'rate', 1000.0, 'simulation and state publishing rate [Hz]',
                dynamic=True)
        declare(self, 'command_topic', 'effort_controller/commands', 'effort command topic')
        declare(self, 'brakes', True, 'hold the joints at q0 until the first effort command')
        declare(self, 'publish_clock', True, 'publish /clock (simulated time)')
        declare(self, 'lockstep', False, 'step only when driven (in-process bringup)')
        declare(self, 'position_noise', 0.0, 'std of position noise [rad or m]', dynamic=True)
        declare(self, 'velocity_noise', 0.0, 'std of velocity noise [rad/s or m/s]', dynamic=True)
        declare(self, 'gravity', [0.0, 0.0, -9.81], 'gravity in the base frame [m/s^2]',
                dynamic=True)
        p = self.get_parameter
        model = model_from_parameters(self)
        if model is None:
            raise RobodynError('sim: set robot_description, urdf_file or robot')
        q0 = [float(v) for v in p('q0').value]
        self.model = model
        self.sim = MujocoSim(model, q0 if len(q0) == model.n else None, p('gravity').value,
                             1.0 / p('rate').value,
                             (p('position_noise').value, p('velocity_noise').value),
                             brakes=p('brakes').value)
        self.commands = 0
        self.state_pub = self.create_publisher(JointState, 'joint_states', 10)
        self.clock_pub = self.create_publisher(Clock, '/clock', 10) \
            if p('publish_clock').value else None
        self.create_subscription(Float64MultiArray, p('command_topic').value, self.on_command,
                                 10)
        if not p('lockstep').value:
            self.create_timer(1.0 / p('rate').value, self.on_timer)

    def on_command(self, msg):
        """Hold a new effort command; wrong length or non-finite values are ignored."""
        try:
            self.sim.set_command(np.asarray(msg.data))
        except RobodynError as exc:
            self.get_logger().error(f'command ignored: {exc}', throttle_duration_sec=1.0)
            return
        self.commands += 1

    def publish_state(self):
        """Publish /clock and /joint_states at the current simulated time."""
        stamp = to_time(self.sim.time)
        if self.clock_pub is not None:
            self.clock_pub.publish(Clock(clock=stamp))
        q, qd, tau = self.sim.state()
        msg = JointState()
        msg.header.stamp = stamp
        msg.name = list(self.model.joint_names)
        msg.position, msg.velocity, msg.effort = q.tolist(), qd.tolist(), tau.tolist()
        self.state_pub.publish(msg)

    def step(self):
        """Advance the simulation one step with the held command."""
        self.sim.step()

    def on_timer(self):
        """Free-running mode: step and publish."""
        self.step()
        self.publish_state()


def main(args=None):
    """Run the simulator node until shutdown."""
    return run_node(SimNode, 'sim', args)


if __name__ == '__main__':
    main()
