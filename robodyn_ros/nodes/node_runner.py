"""A node's process: main() around a node (rclpy init, the spin loop, SIGINT/SIGTERM, an
exit within EXIT_DEADLINE whatever the node is doing) and helper executors on threads of
their own, stopped within a bound."""

import faulthandler
import os
import signal
import sys
import threading
import time

import rclpy
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.signals import SignalHandlerOptions

from ..errors import RobodynError
from .dds_transport import apply_transport

__all__ = ['run_node', 'arm_exit_deadline', 'EXIT_DEADLINE', 'stop_helper', 'spin_in_thread']

#: A process exits at most this long [s] after SIGINT/SIGTERM, whatever it is doing.
EXIT_DEADLINE = 1.8
#: After EXIT_DEADLINE, this long [s] for os._exit from Python before the C watchdog ends
#: the process (exit 1, with every thread's traceback on stderr).
HARD_EXIT_MARGIN = 0.15


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
        arm_exit_deadline()
        # The main loop ends at its next turn; the deadline bounds whatever runs until
        # then. (While the node is still being built, run_node leaves the signals' default
        # action: the process ends at once, nothing commanded.)


#: Non-empty once the deadline is armed: a plain list, no lock that a signal handler
#: arriving inside arm_exit_deadline could wait on for ever.
_ARMED: list[bool] = []


def arm_exit_deadline() -> None:
    """The process is gone EXIT_DEADLINE [s] from now, whatever it is doing: at the first
    SIGINT/SIGTERM, and at a node's shutdown transition (run_node hands this function to
    a node that has an ``exit_deadline`` attribute). Once per process: a later call does
    not move the deadline.

    Also when the exit thread never gets the interpreter lock again (a C call holding it,
    or finalisation, where daemon threads no longer run): faulthandler's watchdog is a C
    thread; it prints where every thread is, then _exit(1). Armed first: starting a thread
    takes threading's own locks, and a signal handler that runs while the main thread
    holds one of them (starting a thread itself) would wait for ever."""
    if _ARMED:
        return
    _ARMED.append(True)
    faulthandler.dump_traceback_later(EXIT_DEADLINE + HARD_EXIT_MARGIN, exit=True)
    threading.Thread(target=_exit_later, daemon=True).start()  # exit 0 at the deadline


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


def _install_stop(node) -> '_Stop':
    """SIGINT/SIGTERM from now recorded by a :class:`_Stop` (the first arms the exit
    deadline); a node with an ``exit_deadline`` attribute gets :func:`arm_exit_deadline`
    for its shutdown transition, which ends the process too."""
    if hasattr(node, 'exit_deadline'):
        node.exit_deadline = arm_exit_deadline
    stop = _Stop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)
    return stop


def run_node(factory, name, args=None, events_executor=False):
    """Standard main(): init, build the node (a RobodynError is one line, exit 2), spin until
    SIGINT / SIGTERM, call the node's ``close_at_exit()`` or else ``close()`` if it has one,
    shut down (not when the node set ``exit_after_close``), exit with the node's
    ``exit_code`` (0 when it has none).

    An exception escaping a callback is logged and handed to the node's
    ``on_internal_error(exc)`` if it has one; the loop goes on. A node with a
    ``spin_once(executor, timeout_sec)`` runs its own loop (the recorder takes its messages
    itself) and uses ``executor`` for the rest.
    """
    apply_transport()  # UDP, not Fast DDS's shared memory (dds_transport.py: why)
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
    stop = _install_stop(node)
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
    return int(getattr(node, 'exit_code', 0))  # a node that failed its one job says so


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
