"""The controller's process (``ros2 run robodyn_ros controller``, ``python -m
robodyn_ros.nodes.controller_main``).

The input gateway's spare process is started before anything heavy is imported: it
imports rclpy while this process imports the controller's modules (numba, numpy, rclpy:
about 1 s), and it joins DDS when told, right before this process joins
(gateway_process.SpareGateway: why together). This module imports nothing heavy itself.

Discovery: configure waits until the gateway and the controller have matched each other's
endpoints. With Fast DDS's defaults a participant announces itself 5 times in its first
0.5 s and then every 3 s, and in 2 of 20 starts the two found each other only at the next
periodic announcement: configured after 4.5 and 5.0 s instead of 1.3-1.8 s (`robodyn bench
--first-start --runs 20`, 2026-11-28). Announcements from the gateway alone did not remove
the wait (2 of 20 again). So, unless the user gives Fast DDS a profiles file of their own,
this process and its gateway announce themselves 30 times in their first 3 s
(config/fast_dds_discovery.xml, which sets nothing else): 20 of 20 starts configured in
1.26-1.66 s. The profile reaches no other process of a launch.
"""

import os

__all__ = ['main']

#: The environment variables by which Fast DDS takes a profiles file (the user's wins).
PROFILE_VARIABLES = ('FASTDDS_DEFAULT_PROFILES_FILE', 'FASTRTPS_DEFAULT_PROFILES_FILE')


def _discovery_profile() -> None:
    """Point Fast DDS at config/fast_dds_discovery.xml (module docstring) when the
    middleware is Fast DDS and no profiles file is set; before rclpy creates the
    participant, and inherited by the gateway's process."""
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
    from .node_runner import run_node
    spare.wait_joined()
    return run_node(lambda: ControllerNode(spare=spare), 'controller', args,
                    events_executor=True)


if __name__ == '__main__':
    raise SystemExit(main())
