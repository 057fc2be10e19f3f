"""Helpers shared by the nodes: parameters, model loading, messages, the main loop."""

import array
import faulthandler
import os
import re
import signal
import sys
import threading
import time

from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rcl_interfaces.msg import ParameterDescriptor
import rclpy
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.signals import SignalHandlerOptions
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from ..control.levels import Level
from ..control.parameters import ROBOT_PARAMETERS
from ..errors import ConfigError, RobodynError
from ..io.cdr import stamp_parts
from ..model import load_robot

__all__ = ['declare', 'declare_robot', 'model_from_parameters', 'ROBOT_DESCRIPTION_QOS',
           'run_node', 'to_time', 'float_array', 'joint_trajectory', 'guarded',
           'robot_named', 'diagnostic_array', 'log_events', 'EventGate', 'EXIT_DEADLINE',
           'stop_helper']

#: A process exits at most this long [s] after SIGINT/SIGTERM, whatever it is doing.
EXIT_DEADLINE = 1.8
#: After EXIT_DEADLINE, this long [s] for os._exit from Python before the C watchdog ends
#: the process (exit 1, with every thread's traceback on stderr).
HARD_EXIT_MARGIN = 0.15

ROBOT_DESCRIPTION_QOS = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                                   reliability=ReliabilityPolicy.RELIABLE)


def declare(node, name, default, description, dynamic=False, read_only=True):
    """Declare a parameter (read-only unless said) with a description; return its value.

    ``dynamic``: accept any type (numbers: an integer where a float is meant; the caller
    validates the value).
    """
    node.declare_parameter(name, default, ParameterDescriptor(
        description=description, read_only=read_only, dynamic_typing=dynamic))
    return node.get_parameter(name).value


def declare_robot(node):
    """Declare where the robot's description comes from (ROBOT_PARAMETERS:
    robot_description, urdf_file, robot, base_link, tip_link, xacro_args)."""
    for parameter in ROBOT_PARAMETERS:
        declare(node, parameter.name, parameter.default, parameter.description, True)


def model_from_parameters(node, xml=None):
    """RobotModel from robot_description (or ``xml``), urdf_file or robot (URDF or xacro,
    with ``xacro_args``; ``effort_limits`` when the node declares it); None if none set."""
    get = _string_parameter(node)
    source = xml or get('robot_description') or get('urdf_file') or get('robot')
    if not source:
        return None
    mappings = node.get_parameter('xacro_args').value or []
    if isinstance(mappings, str):
        mappings = mappings.split()
    if not isinstance(mappings, (list, tuple)) or \
            not all(isinstance(m, str) and ':=' in m for m in mappings):
        raise ConfigError(f"xacro_args: expected 'name:=value' strings, got {mappings!r}")
    # The controller checked effort_limits (ControllerConfig) before loading the model.
    effort = node.get_parameter('effort_limits').value \
        if node.has_parameter('effort_limits') else None
    return load_robot(source, get('base_link') or None, get('tip_link') or None,
                      mappings=list(mappings), effort_limits=list(effort) if effort else None)


def _string_parameter(node):
    """get(name) -> the string parameter's value; ConfigError naming a non-string."""
    def get(name):
        value = node.get_parameter(name).value
        if value is None:
            return ''
        if not isinstance(value, str):
            raise ConfigError(f'{name}: expected a string, got {value!r}')
        return value
    return get


def robot_named(node):
    """True when a parameter names the robot (no robot_description topic needed)."""
    return any(isinstance(node.get_parameter(k).value, str) and node.get_parameter(k).value
               for k in ('robot_description', 'urdf_file', 'robot'))


def guarded(method):
    """Callback wrapper: an exception is handed to ``self.on_internal_error`` (logged,
    and the controller latches safe mode); nothing escapes the callback."""
    def wrapper(self, *args):
        try:
            return method(self, *args)
        except Exception as exc:  # noqa: BLE001 - nothing may escape a callback
            self.on_internal_error(exc)
    wrapper.__name__ = method.__name__
    wrapper.__doc__ = method.__doc__
    return wrapper


class EventGate:
    """At most one log line per kind of event per ``period`` [s] (monotonic), so
    alternating faults or clocks cannot flood the log. A kind is the event's EventKind
    (control/events.py), level and the shape of its text (numbers blanked): two different
    transitions in a row are both logged, the same rejection at 1 kHz once a second. The
    line after a quiet spell says how many of its kind were held back."""

    _NUMBER = re.compile(r'[-+]?\d[\d.e+-]*')

    def __init__(self, period=1.0):
        self.period = period
        self.last = {}  # (kind, level, shape) -> (time logged, held back since)

    def __call__(self, event, now=None):
        """The line to log for ``event`` (an Event), or None (held back)."""
        now = time.monotonic() if now is None else now
        text = event.text
        kind = (event.kind, event.level, self._NUMBER.sub('#', text))
        logged, held = self.last.get(kind, (None, 0))
        if logged is not None and now - logged < self.period:
            self.last[kind] = (logged, held + 1)
            return None
        if len(self.last) > 1000:  # bounded memory whatever the texts
            self.last.clear()
        self.last[kind] = (now, 0)
        return text if not held else f'{text} ({held} more like it in the last ' \
                                      f'{now - logged:.1f} s)'


def log_events(logger, events, gate=None):
    """Log Events: OK at info, WARN at warning, ERROR at error (separate call sites: rclpy
    refuses one site logging at several severities); ``gate`` (an EventGate) thins them."""
    for event in events:
        level, text = event.level, event.text
        if gate is not None:
            text = gate(event)
            if text is None:
                continue
        if level == Level.ERROR:
            logger.error(text)
        elif level == Level.WARN:
            logger.warning(text)
        else:
            logger.info(text)


def diagnostic_array(name, hardware_id, level, message, values):
    """DiagnosticArray with one status (``level`` a Level; values: str -> str)."""
    status = DiagnosticStatus(name=name, hardware_id=hardware_id, level=bytes([level]),
                              message=message)
    status.values = [KeyValue(key=k, value=v) for k, v in values.items()]
    return DiagnosticArray(status=[status])


def to_time(seconds):
    """builtin_interfaces/Time from seconds."""
    sec, nanosec = stamp_parts(seconds)
    return Time(sec=sec, nanosec=nanosec)


def float_array(values):
    """array('d') of a float64 numpy array: message fields take it without a per-item
    Python check."""
    out = array.array('d')
    out.frombytes(values.astype(float, copy=False).tobytes())
    return out


def joint_trajectory(names, times, q, qd, qdd, effort=None):
    """trajectory_msgs/JointTrajectory: one point per time [s from start] with the rows of
    the (m, n) arrays ``q``, ``qd``, ``qdd`` (and ``effort``, when given)."""
    out = JointTrajectory(joint_names=list(names))
    for k, t in enumerate(times):
        point = JointTrajectoryPoint()
        point.positions = float_array(q[k])
        point.velocities = float_array(qd[k])
        point.accelerations = float_array(qdd[k])
        if effort is not None:
            point.effort = float_array(effort[k])
        point.time_from_start.sec, point.time_from_start.nanosec = stamp_parts(t)
        out.points.append(point)
    return out


class _Stop:
    """SIGINT/SIGTERM handler: remember the signal; the main loop ends at its next turn.

    rclpy's own handlers are off, so the context stays valid for the node's ``close()``
    (the controller publishes its safe command there) and a second signal (launch
    forwards one after a terminal's Ctrl-C) cannot interrupt it.
    """

    def __init__(self):
        self.signal = None

    def __call__(self, signum, frame):
        first = self.signal is None
        self.signal = self.signal or signum
        if not first:
            return
        # Whatever the process is doing, it is gone EXIT_DEADLINE after the signal, also
        # when the thread below never gets the interpreter lock again (a C call holding it,
        # or finalisation, where daemon threads no longer run): faulthandler's watchdog is
        # a C thread; it prints where every thread is, then _exit(1). Armed first: starting
        # a thread takes threading's own locks, and a handler that runs while the main
        # thread holds one of them (starting a thread itself) would wait for ever.
        faulthandler.dump_traceback_later(EXIT_DEADLINE + HARD_EXIT_MARGIN, exit=True)
        threading.Thread(target=_exit_later, daemon=True).start()  # exit 0 at the deadline
        # The main loop ends at its next turn; the daemon thread above bounds whatever runs
        # until then. (While the node is still being built, run_node leaves the signals'
        # default action: the process ends at once, nothing commanded.)


def _exit_later():
    time.sleep(EXIT_DEADLINE)
    os._exit(0)


def _ignore_signals():
    """Ignore SIGINT/SIGTERM for the rest of the exit.

    Python's finalisation resets a signal with a Python handler to SIG_DFL; launch forwards
    a second SIGINT after a terminal's Ctrl-C, and arriving then it would kill the process
    (exit -2, 'process has died') after a clean shutdown. SIG_IGN survives finalisation.
    """
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)


def _executor(events):
    """rclpy's EventsExecutor (C++, a fraction of the Python executor's overhead per
    callback) when ``events`` and available, else the SingleThreadedExecutor.

    The controller and the sim use it: on 2 cores the Python executor's overhead costs
    the controller 5-10 % of the states (the recorder takes its messages in a loop of its
    own, at about the same cost, to get their sequence numbers).
    """
    if events:
        try:
            from rclpy.experimental import EventsExecutor
            return EventsExecutor()
        except ImportError:
            pass
    return SingleThreadedExecutor()


def _default_signals():
    """Until the node exists a signal ends the process at once (the default action):
    nothing was commanded yet, and the node's creation joins DDS, a C call that Fast DDS can
    block for ever on a shared-memory segment a killed process left half made, where a
    Python handler would never run."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)


def run_node(factory, name, args=None, events_executor=False):
    """Standard main(): init, build the node (a RobodynError is one line, exit 2), spin until
    SIGINT / SIGTERM, call the node's ``close_at_exit()`` or else ``close()`` if it has one,
    shut down (not when the node set ``exit_after_close``), exit 0.

    An exception escaping a callback is logged and handed to the node's
    ``on_internal_error(exc)`` if it has one; the loop goes on. A node with a
    ``spin_once(executor, timeout_sec)`` runs its own loop (the recorder takes its messages
    itself) and uses ``executor`` for the rest.
    """
    try:
        rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    except Exception as exc:  # noqa: BLE001 - rcl refuses an argument: one line, exit 2
        text = ' '.join(str(exc).split()) or type(exc).__name__
        print(f'{name}: error: command-line arguments refused by rcl: {text[:300]}',
              flush=True)
        return 2
    _default_signals()
    try:
        node = factory()
    except Exception as exc:  # noqa: BLE001 - also a parameter override rclpy refuses
        text = str(exc) if isinstance(exc, RobodynError) else f'{type(exc).__name__}: {exc}'
        print(f'{name}: error: {text}'.splitlines()[0], flush=True)
        rclpy.try_shutdown()
        _ignore_signals()
        return 2
    stop = _Stop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)
    executor = _executor(events_executor)
    executor.add_node(node)
    own = getattr(node, 'spin_once', None)
    try:
        while stop.signal is None and rclpy.ok() and not getattr(node, 'finished', False):
            try:
                if own is not None:
                    own(executor, 0.1)
                else:
                    executor.spin_once(timeout_sec=0.1)
            except (ExternalShutdownException, KeyboardInterrupt):
                break
            except Exception as exc:  # noqa: BLE001 - never let a callback end the node
                node.get_logger().error(f'callback raised {type(exc).__name__}: {exc}')
                if hasattr(node, 'on_internal_error'):
                    node.on_internal_error(exc)
    finally:
        # from here a signal is only recorded (its first armed the exit): the close finishes
        # a node whose exit differs from its close (the controller: no teardown) says so
        close = getattr(node, 'close_at_exit', None) or getattr(node, 'close', None)
        if close is not None:
            close()
        if getattr(node, 'exit_after_close', False):  # its work is saved: no teardown
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
        executor.remove_node(node)
        node.destroy_node()
        rclpy.try_shutdown()
        _ignore_signals()
    return 0


def stop_helper(executor, thread, destroy) -> None:
    """Stop a helper's ``executor`` and its ``thread`` (:func:`spin_in_thread`; 0.5 s
    each at most), then call ``destroy`` (its node's teardown): at once when the thread
    ended, else on a daemon thread. Destroying a service waits until the executor's wait
    lets go of it, which a loaded machine has delayed for seconds (a lifecycle shutdown
    took 9.7 s once, past the 2 s a process has to exit)."""
    executor.shutdown(timeout_sec=0.5)
    thread.join(timeout=0.5)
    if not thread.is_alive():
        destroy()
        return

    def later():
        try:
            destroy()
        except Exception:  # noqa: BLE001 - the context shut down meanwhile: nothing to free
            pass
    threading.Thread(target=later, name=f'{thread.name}_teardown', daemon=True).start()


def spin_in_thread(executor, name):
    """Spin ``executor`` on a daemon thread named ``name`` until it is shut down (a helper
    node's own thread: the action server, the parameter services); returns the thread."""
    def spin():
        try:
            executor.spin()
        except Exception:  # noqa: BLE001 - context shut down: the thread ends
            pass
    thread = threading.Thread(target=spin, name=name, daemon=True)
    thread.start()
    return thread
