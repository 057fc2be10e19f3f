"""The controller's process (``ros2 run robodyn_ros controller``, ``python -m
robodyn_ros.nodes.controller_main``).

The input gateway's spare process is started before anything heavy is imported: it
imports rclpy while this process imports the controller's modules (numba, numpy, rclpy:
about 1 s), and it joins DDS when told, right after this process has joined
(gateway_process.SpareGateway: why together, and why in that order). This module imports
nothing heavy itself. Both processes get UDP instead of Fast DDS's shared memory before
either joins DDS (dds_transport.py: a joining participant could stop the commands for up
to 333 ms).
"""

__all__ = ['main']


def main(args=None):
    """Run the controller node until SIGINT/SIGTERM (the safe command goes out last)."""
    from .dds_transport import apply_transport
    apply_transport()  # before the spare starts: it inherits this environment
    from .gateway_process import SpareGateway
    spare = SpareGateway(True)
    from .controller import ControllerNode
    from .node_runner import run_node
    return run_node(lambda: ControllerNode(spare=spare), 'controller', args,
                    events_executor=True)


if __name__ == '__main__':
    raise SystemExit(main())
