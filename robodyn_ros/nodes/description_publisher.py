"""Publish a robot description on /robot_description (transient local), as
robot_state_publisher does for controller_manager, where robot_state_publisher is not
installed. No TF: the description is all controller_manager and the controller read."""

from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

from ..errors import ConfigError
from .node_parameters import declare
from .node_runner import run_node

__all__ = ['DescriptionPublisher', 'main']


class DescriptionPublisher(Node):
    """Latches ``robot_description`` (the parameter: URDF text) on /robot_description."""

    #: run_node ends the process right after a signal: nothing here to save, and tearing
    #: down its DDS entities has taken past the 2 s exit deadline on a loaded machine.
    exit_after_close = True

    def __init__(self, **kwargs):
        super().__init__('robot_description_publisher', **kwargs)
        declare(self, 'robot_description', '', 'URDF XML to latch on /robot_description')
        text = self.get_parameter('robot_description').value
        if not isinstance(text, str) or not text.strip():
            raise ConfigError('robot_description: expected the URDF text, got nothing')
        qos = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                         reliability=ReliabilityPolicy.RELIABLE)
        self.publisher = self.create_publisher(String, '/robot_description', qos)
        self.publisher.publish(String(data=text))


def main(args=None):
    """Latch the description until SIGINT / SIGTERM."""
    return run_node(DescriptionPublisher, 'robot_description_publisher', args)


if __name__ == '__main__':
    raise SystemExit(main())
