"""Save the adaptive law's payload estimate as a controller parameter file: the first
``~/payload_estimate`` message (geometry_msgs/InertiaStamped, tip frame) written as the
``payload.mass`` / ``payload.com`` / ``payload.inertia`` that ``robodyn identify`` writes
and every other law loads (``config:=`` of the launches, or ``ros2 param load``).

  ros2 run robodyn_ros save_payload --ros-args -p file:=payload.yaml \\
      [-p topic:=/robodyn_controller/payload_estimate] [-p timeout:=10.0]

Exit 0 with one line naming the file; 2 with one line when the file cannot be written or
no estimate came within ``timeout`` [s] (is the controller in mode adaptive?).
"""

import os
import time

from geometry_msgs.msg import InertiaStamped
from rclpy.node import Node

from ..defaults import CONTROLLER_NAME
from ..errors import ConfigError
from ..io.params_yaml import dump_parameters
from .node_parameters import declare
from .node_runner import run_node

__all__ = ['SavePayload', 'main', 'payload_file_text']


def payload_file_text(msg: InertiaStamped) -> str:
    """The parameter file of ``msg``'s inertia (identified.yaml's payload block)."""
    i = msg.inertia
    params = {'payload': {'mass': float(i.m), 'com': [float(i.com.x), float(i.com.y),
                                                       float(i.com.z)],
                          'inertia': [float(v) for v in (i.ixx, i.ixy, i.ixz, i.iyy, i.iyz,
                                                         i.izz)]}}
    head = (f"# robodyn save_payload: the adaptive law's estimate in {msg.header.frame_id} "
            '(mass [kg], com [m], inertia about the com [kg m^2]: xx xy xz yy yz zz)\n')
    return head + (dump_parameters({CONTROLLER_NAME: {'ros__parameters': params}}) or '')


class SavePayload(Node):
    """Wait for one estimate, write it, finish (run_node ends the process)."""

    def __init__(self, **kwargs):
        super().__init__('robodyn_save_payload', **kwargs)
        self.file = str(declare(self, 'file', '', 'the parameter file to write'))
        topic = declare(self, 'topic', f'/{CONTROLLER_NAME}/payload_estimate',
                        'the estimate (geometry_msgs/InertiaStamped)')
        self.timeout = float(declare(self, 'timeout', 10.0, 'how long to wait [s]'))
        folder = os.path.dirname(os.path.abspath(self.file)) if self.file else ''
        if not self.file or not os.path.isdir(folder):
            raise ConfigError(f'file:={self.file!r}: give a file in an existing folder')
        if not 0.0 < self.timeout <= 3600.0:
            raise ConfigError(f'timeout:={self.timeout!r}; valid: 0 to 3600 s')
        self.topic = self.resolve_topic_name(topic)
        self.create_subscription(InertiaStamped, topic, self.on_estimate, 10)
        self.create_timer(0.1, self.on_tick)
        self.start = time.monotonic()
        self.finished = False
        self.exit_code = 0

    def on_estimate(self, msg: InertiaStamped) -> None:
        if self.finished:
            return
        try:
            with open(self.file, 'w', encoding='utf-8') as handle:
                handle.write(payload_file_text(msg))
        except OSError as exc:
            self._fail(f'cannot write {self.file}: {exc.strerror}')
            return
        c = msg.inertia.com
        print(f'save_payload: {msg.inertia.m:.4f} kg at ({c.x:.4f}, {c.y:.4f}, {c.z:.4f}) m '
              f'in {msg.header.frame_id} -> {self.file}', flush=True)
        self.finished = True

    def on_tick(self) -> None:
        if not self.finished and time.monotonic() - self.start > self.timeout:
            self._fail(f'no estimate on {self.topic} within {self.timeout:g} s (is the '
                       'controller running with mode adaptive?)')

    def _fail(self, text: str) -> None:
        print(f'save_payload: error: {text}', flush=True)
        self.exit_code = 2
        self.finished = True


def main(args=None):
    return run_node(SavePayload, 'save_payload', args)


if __name__ == '__main__':
    raise SystemExit(main())
