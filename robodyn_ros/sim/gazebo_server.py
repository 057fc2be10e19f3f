"""The headless Gazebo server (Fortress, from the shared wheels) as this package runs it:
where its pieces are, and whether this machine has them. No ROS imports.

gz-ros2-control-server (the wheel's wrapper of ign-gazebo-server) sets the library paths
and the preload gz_ros2_control needs; the DART engine comes from Debian's
libignition-physics5-dartsim-plugin5, which installs it only under its versioned name, so
the world names the file (gazebo_world's ``engine``).
"""

import glob
import os
import shutil
import sys

__all__ = ['SERVER', 'missing', 'physics_engine', 'server_command']

SERVER = 'gz-ros2-control-server'
#: Where Debian's packages put the DART engine of ignition-physics 5.
ENGINE_GLOB = '/usr/lib/*/ign-physics-5/engine-plugins/libignition-physics5-dartsim-plugin.so*'


def _server_path() -> str | None:
    beside = os.path.join(os.path.dirname(sys.executable), SERVER)
    return beside if os.access(beside, os.X_OK) else shutil.which(SERVER)


def physics_engine() -> str | None:
    """The DART engine library's path, or None when it is not installed."""
    found = sorted(glob.glob(ENGINE_GLOB), key=len)
    return found[0] if found else None


def missing() -> str:
    """'' when this machine can run the server; else one line saying what to install."""
    if _server_path() is None:
        return (f'{SERVER} not found: pip install --find-links ../shared/wheels -r '
                '../shared/wheels/requirements-gazebo.txt (scripts/setup.sh does it)')
    if physics_engine() is None:
        return ("Gazebo's DART engine is not installed: apt-get install $(grep -v '^#' "
                '../shared/wheels/apt-gazebo.txt) as root (scripts/setup.sh does it)')
    return ''


def server_command(world: str) -> list[str]:
    """The command that runs ``world`` unpaused, quietly (errors and warnings only), under
    :func:`main` (which stops it at a signal without its plugin's abort)."""
    return [sys.executable, '-m', 'robodyn_ros.sim.gazebo_server', world, '-r', '-v', '2']


def main(argv: list[str] | None = None) -> int:
    """Run the server on ``argv`` (``WORLD.sdf -r ...``) until it ends or this process gets
    SIGINT/SIGTERM; then stop it at once, exit 0. A server that ends by itself (a world it
    cannot load) exits non-zero here, even where the server said 0: the launch tells Ctrl-C
    (0) from a failure by the code alone, since a terminal's Ctrl-C reaches this process
    as soon as it reaches launch.

    Why not pass the signal on: the server's gz_ros2_control plugin initialises rclcpp with
    its signal handlers, which shut the ROS context down at SIGINT while the simulation
    still steps; its next /clock publish throws and the server aborts (``terminate called
    ... failed to publish message``). A simulated arm has nothing to save, so the server is
    killed, and launch sees this process finish cleanly.
    """
    import signal
    import subprocess
    args = sys.argv[1:] if argv is None else argv
    child = subprocess.Popen([_server_path() or SERVER] + args, start_new_session=True)
    stopped = []

    def stop(signum, frame):
        stopped.append(signum)
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)
    code = child.wait()
    return 0 if stopped else (code or 1)


if __name__ == '__main__':
    sys.exit(main())
