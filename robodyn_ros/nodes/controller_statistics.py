"""Execution time of a controller in controller_manager's loop, from controller_manager's
own statistics (pal_statistics: ``/controller_manager/statistics/{names,values}``, one
``current_value`` per cycle): median, p99 and max over ``seconds``.

  ros2 run robodyn_ros controller_statistics --ros-args -p controller:=robodyn_controller \\
      -p seconds:=30.0
"""

import json
import time

import numpy as np
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from ..defaults import CONTROLLER_NAME
from .node_parameters import declare
from .node_runner import run_node

__all__ = ['ControllerStatistics', 'main']


class ControllerStatistics(Node):
    """Collect ``<controller>.stats/execution_time/current_value`` and print the figures."""

    def __init__(self, **kwargs):
        from pal_statistics_msgs.msg import StatisticsNames, StatisticsValues
        super().__init__('robodyn_controller_statistics', **kwargs)
        controller = declare(self, 'controller', CONTROLLER_NAME, 'controller name')
        self.seconds = float(declare(self, 'seconds', 30.0, 'collection time [s]',
                                     dynamic=True))
        self.key = f'{controller}.stats/execution_time/current_value'
        self.names, self.index, self.samples = None, None, []
        self.create_subscription(StatisticsNames, '/controller_manager/statistics/names',
                                 self.on_names, QoSProfile(
                                     depth=10, durability=DurabilityPolicy.TRANSIENT_LOCAL))
        self.create_subscription(StatisticsValues, '/controller_manager/statistics/values',
                                 self.on_values, QoSProfile(
                                     depth=1000, reliability=ReliabilityPolicy.BEST_EFFORT))
        self.start = None
        self.finished = False  # run_node ends the process when set

    def on_names(self, msg):
        self.names = msg
        self.index = msg.names.index(self.key) if self.key in msg.names else None

    def on_values(self, msg):
        if self.index is None or self.names is None or \
                self.names.names_version != msg.names_version:
            return
        self.start = self.start or time.monotonic()
        self.samples.append(msg.values[self.index])
        if time.monotonic() - self.start >= self.seconds and not self.finished:
            us = np.asarray(self.samples)
            print(json.dumps({'samples': len(us), 'median_us': float(np.median(us)),
                              'p99_us': float(np.percentile(us, 99)),
                              'max_us': float(us.max())}), flush=True)
            self.finished = True


def main(args=None):
    """Collect for ``seconds`` once the statistics flow, print one JSON line, exit."""
    return run_node(ControllerStatistics, 'robodyn_controller_statistics', args)


if __name__ == '__main__':
    raise SystemExit(main())
