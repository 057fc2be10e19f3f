"""A second DDS participant in the controller's process, for inputs that may be large.

A 10 MB message (a trajectory naming a million joints) is received and reassembled by the
participant it is addressed to; while it does, that participant's publishers wait, and
the control thread's next ``publish`` with them (measured: 50-200 ms without a command).
Inputs that can be large are therefore received by a participant of their own, spun by
its own thread: the control thread's participant only ever carries the 1 kHz traffic.
"""

import threading

import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node

__all__ = ['SideParticipant']


class SideParticipant:
    """An rclpy context (one DDS participant) with one node, spun by a daemon thread.

    Args:
        name: the node's name (``<controller>_inputs``).
        namespace: the controller's namespace.
    """

    def __init__(self, name, namespace):
        self.context = rclpy.Context()
        rclpy.init(args=[], context=self.context)  # no --ros-args: the controller's own
        self.node = Node(name, namespace=namespace, context=self.context,
                         use_global_arguments=False, start_parameter_services=False)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.thread = threading.Thread(target=self._spin, name=name, daemon=True)
        self.thread.start()

    def _spin(self):
        try:
            self.executor.spin()
        except Exception:  # noqa: BLE001 - context shut down: the thread ends
            pass

    def close(self):
        """Stop the thread and release the participant (bounded: 0.5 s)."""
        self.executor.shutdown(timeout_sec=0.5)
        self.thread.join(timeout=0.5)
        try:
            self.node.destroy_node()
        finally:
            rclpy.try_shutdown(context=self.context)
