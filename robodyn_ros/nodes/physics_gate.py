"""Hold MuJoCo physics inside ros2_control paused until the robodyn controller commands.

The hardware plugin runs its physics from the moment controller_manager activates it; the
arm would drift off its start under the g(q0) hold while the controller is still
configuring (seconds on a cold start: model, compiled kernels, the check against
Pinocchio). This node pauses the physics as soon as its ``set_pause`` service exists and
resumes it at the controller's first command (its reference topic), then exits. A paused
simulation still reports its state, so the controller ramps in from it.
"""

from rclpy.node import Node
from sensor_msgs.msg import JointState

from ..defaults import REFERENCE_TOPIC
from .node_support import declare, run_node

__all__ = ['PhysicsGate', 'main']


class PhysicsGate(Node):
    """Pause now, resume at the first reference message, then finish."""

    def __init__(self, **kwargs):
        super().__init__('robodyn_physics_gate', **kwargs)
        from mujoco_ros2_control_msgs.srv import SetPause
        self.request = SetPause.Request
        service = declare(self, 'service', '/mujoco_ros2_control_node/set_pause',
                          "the hardware plugin's set_pause service")
        self.client = self.create_client(SetPause, service)
        self.state = 'pausing'
        self.finished = False  # run_node ends the process when set
        self.create_subscription(JointState, REFERENCE_TOPIC, self.on_reference, 1)
        self.timer = self.create_timer(0.05, self.on_timer)

    def on_timer(self):
        """Pause as soon as the service exists (once)."""
        if self.state == 'pausing' and self.client.service_is_ready():
            self.client.call_async(self.request(paused=True))
            self.state = 'paused'
            self.get_logger().info('physics paused until the controller commands')

    def on_reference(self, _msg):
        """The controller commands: resume the physics (if paused) and finish."""
        if self.state == 'pausing':  # commanding before the service came up: nothing to do
            self.get_logger().info('the controller commands before the physics was paused')
            self.state = 'done'
            self.finished = True
            return
        if self.state != 'paused':
            return
        self.state = 'resuming'
        future = self.client.call_async(self.request(paused=False))
        future.add_done_callback(self._resumed)

    def _resumed(self, _future):
        self.get_logger().info('physics resumed: the controller commands')
        self.finished = True


def main(args=None):
    """Run until the physics is resumed (or SIGINT / SIGTERM)."""
    return run_node(PhysicsGate, 'robodyn_physics_gate', args)


if __name__ == '__main__':
    raise SystemExit(main())
