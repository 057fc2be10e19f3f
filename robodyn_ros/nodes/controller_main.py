"""The controller's process entry point (``ros2 run robodyn_ros controller``).

The input gateway's spare (gateway_process.SpareGateway) starts here, before the
controller's own imports (about 1 s: rclpy, numba and the compiled kernels), so that it
joins DDS while they run and the controller joins right after it; started after them, the
controller waited for it.
"""

__all__ = ['main']


def main(args=None) -> int:
    """Start the spare, then run the controller node (controller.main)."""
    from .gateway_process import SpareGateway
    spare = SpareGateway(True)
    from .controller import main as run_controller
    return run_controller(args, spare)


if __name__ == '__main__':
    raise SystemExit(main())
