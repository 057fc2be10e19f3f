"""The controller's process (``ros2 run robodyn_ros controller``, ``python -m
robodyn_ros.nodes.controller_main``).

Discovery: with Fast DDS, a participant announces itself 5 times in its first 0.5 s and
then every 3 s; a process that joins after the burst of one it must talk to finds it only
at that one's next announcement. The controller's configure waits for its input gateway
in both directions, and a burst that ended a moment too early cost 2.5-3 s in 6 of 10
starts (measured with `robodyn bench --first-start`). So, unless the user gives Fast DDS
a profiles file of their own, this process and its gateway announce themselves 30 times
in their first 3 s (config/fast_dds_discovery.xml): 6 of 6 starts without the wait.

The input gateway's spare process is started before anything heavy is imported: it joins
DDS (it imports rclpy only: about 0.6 s on a loaded 2-core machine) while this process
imports the controller's modules (numba, numpy, rclpy: about 1 s), so that the spare is
in DDS before the controller joins (gateway_process.SpareGateway: why that order) and the
controller does not wait for it. This module imports nothing heavy itself.
"""

import os

__all__ = ['main']

#: The environment variables by which Fast DDS takes a profiles file (the user's wins).
PROFILE_VARIABLES = ('FASTDDS_DEFAULT_PROFILES_FILE', 'FASTRTPS_DEFAULT_PROFILES_FILE')


def _discovery_profile() -> None:
    """Point Fast DDS at config/fast_dds_discovery.xml (module docstring) when the
    middleware is Fast DDS and no profiles file is set; before rclpy creates the
    participant, inherited by the gateway's process."""
    if any(os.environ.get(name) for name in PROFILE_VARIABLES) or \
            os.environ.get('RMW_IMPLEMENTATION', 'rmw_fastrtps_cpp') != 'rmw_fastrtps_cpp':
        return
    from ..package_share import share_dir
    path = os.path.join(share_dir(), 'config', 'fast_dds_discovery.xml')
    if os.path.isfile(path):
        os.environ[PROFILE_VARIABLES[0]] = path


def main(args=None):
    """Run the controller node until SIGINT/SIGTERM (the safe command goes out last)."""
    _discovery_profile()
    from .gateway_process import SpareGateway
    spare = SpareGateway(True)
    from .controller import ControllerNode
    from .node_support import run_node
    spare.wait_joined()
    return run_node(lambda: ControllerNode(spare=spare), 'controller', args,
                    events_executor=True)


if __name__ == '__main__':
    raise SystemExit(main())
