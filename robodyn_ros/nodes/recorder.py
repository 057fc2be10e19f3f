"""Record chosen topics to a rosbag2 directory (rosbags; mcap by default, sqlite3 on request).

Topics are subscribed as raw CDR (no deserialization) once their type is known: given in
the ``types`` parameter or discovered from the ROS graph. The bag is closed cleanly on
SIGINT/SIGTERM; everything older than ``flush_period`` is on disk even if the recorder is
killed (SIGKILL, power loss), and ``robodyn validate`` recovers such a bag.
"""

import importlib
import os

from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile

from ..defaults import (
    COMMAND_TOPIC,
    CONTROLLER_STATE_TOPIC,
    DIAGNOSTICS_TOPIC,
    JOINT_STATES,
    REFERENCE_TOPIC,
)
from ..errors import BagError, ConfigError
from ..io.bag_writer import BagWriter
from .node_support import declare, run_node

__all__ = ['RecorderNode', 'main']

#: What validation needs, plus the clock, the robot description and the transforms.
DEFAULT_TOPICS = ['/' + JOINT_STATES, '/' + COMMAND_TOPIC, REFERENCE_TOPIC,
                  CONTROLLER_STATE_TOPIC, DIAGNOSTICS_TOPIC, '/clock',
                  '/robot_description', '/tf', '/tf_static']
#: Topics published transient local (latched): recorded with a matching subscription.
LATCHED = ('/robot_description', '/tf_static')


def _msg_class(msgtype):
    pkg, _, name = msgtype.split('/')
    return getattr(importlib.import_module(f'{pkg}.msg'), name)


class RecorderNode(Node):
    """Subscribe raw to each topic and append to the bag (receive time on the node clock)."""

    def __init__(self, **kwargs):
        super().__init__('robodyn_recorder', **kwargs)
        self.topics = declare(self, 'topics', DEFAULT_TOPICS, 'topics to record')
        types = declare(self, 'types', [''], "'topic=pkg/msg/Type' entries (else discovered)")
        path = declare(self, 'bag_path', 'robodyn_bag', 'output rosbag2 directory')
        storage = declare(self, 'storage', 'mcap', 'mcap | sqlite3')
        self.known = dict(t.split('=', 1) for t in types if '=' in t)
        niceness = declare(self, 'nice', 10, 'raise the process niceness by this much '
                           '(0-19): recording yields the CPU to control (the queues hold '
                           '10 s)', dynamic=True)
        if type(niceness) is not int or not 0 <= niceness <= 19:
            raise ConfigError(f'nice: expected an integer 0-19, got {niceness!r}')
        if niceness:
            os.nice(niceness)
        flush = declare(self, 'flush_period', 0.1, 'make the bag durable at least this often '
                        '[s] (a killed recorder loses at most that much)')
        self.bag = BagWriter(path, storage, flush_period=flush)
        self.subs = {}
        self.qos = QoSProfile(depth=10000)
        self.latched_qos = QoSProfile(depth=100, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.discover()
        self.create_timer(0.5, self.discover)

    def discover(self):
        """Subscribe to every wanted topic whose type is known or visible in the graph."""
        graph = dict(self.get_topic_names_and_types())
        for topic in self.topics:
            if topic in self.subs:
                continue
            offered = graph.get(topic)
            msgtype = self.known.get(topic) or (offered[0] if offered else None)
            if msgtype is None:
                continue
            try:
                cls = _msg_class(msgtype)
                self.bag.add_topic(topic, msgtype)
            except (ImportError, AttributeError, ValueError, BagError) as exc:
                self.get_logger().warning(f'not recording {topic} ({msgtype}): {exc}')
                self.subs[topic] = None
                continue
            self.subs[topic] = self.create_subscription(
                cls, topic, lambda data, t=topic: self.on_message(t, data),
                self.latched_qos if topic in LATCHED else self.qos, raw=True)

    def on_message(self, topic, data):
        """Append one serialized message."""
        self.bag.write(topic, self.get_clock().now().nanoseconds, data)

    def close(self):
        """Close the bag."""
        self.bag.close()


def main(args=None):
    """Record until SIGINT/SIGTERM, then close the bag."""
    return run_node(RecorderNode, 'recorder', args, events_executor=True)


if __name__ == '__main__':
    raise SystemExit(main())
