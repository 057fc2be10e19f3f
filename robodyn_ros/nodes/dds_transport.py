"""The DDS transport of the processes that carry torque commands or the states they answer:
UDP instead of Fast DDS's shared memory, when asked (``ROBODYN_DDS_TRANSPORT=udp``).

Why: Fast DDS (rmw_fastrtps, ROS 2's default middleware) sends everything a process
publishes under one lock per participant (``RTPSParticipantImpl::sendSync``), and the first
send to another process's shared-memory port runs that port's health check while holding it.
The check waits for the port's listener to show progress; an idle listener shows it only at
its wait timeout, ``port_wait_timeout_ms`` = 1000 / 3 ms. So when a participant joins (a
spawner, a ``ros2 topic echo``, the controller's own input gateway) every process that
answers it can stop publishing for up to 333 ms (eProsima/Fast-DDS#6535, open; Fast DDS
3.2.2 here): the node path's commands stopped for 0.20 s and the forward controller applied
the last one meanwhile. ``rmw_fastrtps`` adds that transport itself for
``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST``, so it is replaced by an equivalent profile
without it (fastdds_loopback.xml: 127.0.0.1 only, no multicast, 32 initial peers). UDP over
loopback costs a few tens of microseconds a message at 1 kHz (docs/benchmarks.md).

Opt-in: ``ROBODYN_DDS_TRANSPORT=udp`` in the environment of ``ros2 launch`` (every
process it starts, ros2_control_node included: a process's receipt waits on its own send
lock too, so both ends of the commands need it) or of a node. Not the default yet: in the
whole test suite on this 2-core machine, launches on UDP lost messages that the
recorders and the tests' probes needed (UDP on loopback drops what a busy receiver's
socket buffer cannot hold; shared memory does not). The recorder asks for UDP itself
(recorder.main: a shared-memory reader that falls behind stalls its senders), and
``shm`` keeps Fast DDS's default for a process. A profile of the user's own
(``FASTDDS_DEFAULT_PROFILES_FILE``) or another middleware is left as it is.
"""

from collections.abc import Mapping
import glob
import os
import time

__all__ = ['OPT_IN', 'LOOPBACK_PROFILE', 'apply_transport', 'remove_dead_segments',
           'transport_environment']

#: Set to 'udp' to leave Fast DDS's shared-memory transport (see above).
OPT_IN = 'ROBODYN_DDS_TRANSPORT'
#: The LOCALHOST profile without shared memory.
LOOPBACK_PROFILE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'fastdds_loopback.xml')
_FAST_DDS = ('', 'rmw_fastrtps_cpp', 'rmw_fastrtps_dynamic_cpp')
_LOOPBACK = ('DDS transport: UDP on 127.0.0.1, no shared memory (a joining participant can '
             "stall Fast DDS's shared-memory sends up to 333 ms)")


def transport_environment(environ: Mapping[str, str]) -> tuple[dict[str, str], str]:
    """The variables that give a process started with ``environ`` UDP instead of shared
    memory, and one line saying what was chosen and why."""
    if environ.get('RMW_IMPLEMENTATION', '') not in _FAST_DDS:
        return {}, f'DDS transport: {environ["RMW_IMPLEMENTATION"]}\'s own (not Fast DDS)'
    if environ.get(OPT_IN, '') != 'udp':
        return {}, (f'DDS transport: Fast DDS default, shared memory ({OPT_IN}=udp: UDP, no '
                    'pause when a participant joins)')
    profile = environ.get('FASTDDS_DEFAULT_PROFILES_FILE', '')
    if profile == LOOPBACK_PROFILE:  # set by the launch file already
        return {}, _LOOPBACK
    if profile or environ.get('FASTDDS_BUILTIN_TRANSPORTS', ''):
        return {}, ("DDS transport: the environment's (FASTDDS_DEFAULT_PROFILES_FILE="
                    f'{profile!r}, FASTDDS_BUILTIN_TRANSPORTS='
                    f'{environ.get("FASTDDS_BUILTIN_TRANSPORTS", "")!r})')
    scope = environ.get('ROS_AUTOMATIC_DISCOVERY_RANGE', '').upper()
    if scope == 'OFF':
        return {}, 'DDS transport: discovery off (nothing crosses processes)'
    if scope == 'LOCALHOST':
        return ({'ROS_AUTOMATIC_DISCOVERY_RANGE': 'SYSTEM_DEFAULT',
                 'FASTDDS_DEFAULT_PROFILES_FILE': LOOPBACK_PROFILE}, _LOOPBACK)
    return ({'FASTDDS_BUILTIN_TRANSPORTS': 'UDPv4'},
            "DDS transport: UDPv4, no shared memory (a joining participant stalls Fast DDS's "
            'shared-memory sends up to 333 ms)')


#: A shared-memory file this young [s] may belong to a process that has not locked it yet.
SEGMENT_GRACE = 10.0


def remove_dead_segments(folder: str = '/dev/shm', grace: float = SEGMENT_GRACE) -> int:
    """Remove the Fast DDS shared-memory segments and ports no process has mapped (their
    processes died), with their lock files and mutexes; return how many files went.

    Why: a process killed (SIGKILL, a crash) leaves its segments and ports behind, and a
    port left with its mutex taken blocks the next participant that opens it, inside the
    middleware's C code where no signal handler runs: a spawner that joined then never
    said a word and ignored SIGINT and SIGTERM until launch killed it. A live process maps
    its files (``/proc/*/maps``); files younger than ``grace`` [s] are left to a process
    still starting.
    """
    mapped, now = _mapped(folder), time.time()
    removed = 0
    for path in glob.glob(os.path.join(folder, 'fastdds_*')):
        name = os.path.basename(path)
        if name.endswith('_el') or name in mapped:
            continue
        try:
            if now - os.path.getmtime(path) < grace:
                continue
        except OSError:
            continue
        for gone in (path, f'{path}_el', os.path.join(folder, f'sem.{name}_mutex')):
            try:
                os.unlink(gone)
                removed += 1
            except OSError:
                pass
    return removed


def _mapped(folder: str) -> set[str]:
    """The names of the files in ``folder`` some process has mapped."""
    names: set[str] = set()
    prefix = folder.rstrip('/') + '/'
    for maps in glob.glob('/proc/[0-9]*/maps'):
        try:
            with open(maps, encoding='utf-8', errors='replace') as handle:
                for line in handle:
                    at = line.find(prefix)
                    if at >= 0:
                        names.add(line[at + len(prefix):].split()[0])
        except OSError:  # the process ended meanwhile, or is not ours to read
            continue
    return names


def apply_transport(environ=os.environ) -> str:
    """Set the variables in this process's ``environ`` (before rclpy's first init: the
    participant reads them once) and return the line of transport_environment."""
    changes, line = transport_environment(environ)
    environ.update(changes)
    return line
