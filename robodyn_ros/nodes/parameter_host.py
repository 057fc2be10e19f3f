"""The controller's parameter services, served by a thread of their own.

rclpy serves a node's parameter services (``~/set_parameters`` and the five others) on
the executor that spins the node: for the controller, the control thread. A client that
sets parameters 100 times a second then takes about a millisecond of that thread each
time, and the controller misses states. Here the same services (rclpy's own
ParameterService, the same names and behaviour) are created on a helper node in the
controller's namespace, spun by a daemon thread; the controller is created with
``start_parameter_services=False``. Its parameter callbacks then run on that thread, and
they only check a value and hand it to a worker (nodes/controller.py).
"""

from typing import cast

from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter_service import ParameterService

from .node_runner import spin_in_thread, stop_helper

__all__ = ['ParameterHost']


class _Delegate:
    """The controller as ParameterService sees it, its services created on ``host``."""

    def __init__(self, controller, host):
        self._controller, self._host = controller, host

    def create_service(self, *args, **kwargs):
        return self._host.create_service(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._controller, name)


class ParameterHost:
    """Serve ``controller``'s parameter services from a helper node and thread."""

    def __init__(self, controller):
        self.node = Node(controller.get_name() + '_parameters',
                         namespace=controller.get_namespace(), context=controller.context,
                         use_global_arguments=False, start_parameter_services=False)
        self._delegate = _Delegate(controller, self.node)  # ParameterService keeps a weakref
        # ParameterService takes a Node; the delegate is the controller node with its
        # services made on the helper node (duck-typed: cast for the type checker)
        self.service = ParameterService(cast(Node, self._delegate))
        self.executor = SingleThreadedExecutor(context=controller.context)
        self.executor.add_node(self.node)
        self.thread = spin_in_thread(self.executor, 'robodyn_parameters')

    def close(self):
        """Stop serving (bounded: 1 s; node_runner.stop_helper)."""
        stop_helper(self.executor, self.thread, self.node.destroy_node)
