"""hardware:=gz: the launch ends, with Gazebo's own reason in one line, when its server
ends by itself.

Why: a description Gazebo cannot load ends the server at once ('Failed to load a world'),
and the spawners would otherwise wait for ever for a controller_manager that never comes.
"""

import re
import time

from launch.actions import EmitEvent, OpaqueFunction, RegisterEventHandler, TimerAction
from launch.event_handlers import OnProcessExit, OnProcessIO, OnShutdown
from launch.events import Shutdown

__all__ = ['server_watch']

#: How long (s) the launch waits for the words of a Gazebo server that ended, at most; how
#: long its output must have been quiet; how often it looks. A server that said nothing
#: is reported by its exit code.
REASON_WAIT, REASON_QUIET, REASON_POLL = 3.0, 0.3, 0.1


def server_watch(server) -> list:
    """Event handlers that end the launch, with one ERROR line naming Gazebo's reason,
    when the server ends by itself (a description it cannot load: 'Failed to load a
    world'), instead of leaving the spawners waiting for a controller_manager that never
    comes. An exit after Ctrl-C is not one: the wrapper exits 0 only when stopped by a
    signal (sim/gazebo_server.py), and a terminal's Ctrl-C reaches it as soon as launch.

    The exit event can overtake the server's last output (launch learns of the exit from
    the process, of the output from its pipes, and a busy machine delivers them in either
    order), and the output comes in chunks that can split a line: the reason is read from
    the whole output once it has been quiet for REASON_QUIET s (at most REASON_WAIT s)."""
    output: dict[str, list[str]] = {'stdout': [], 'stderr': []}
    heard, stopping = [0.0], []  # type: list[float], list[int]

    def note(stream):
        def take(event):
            output[stream].append(event.text.decode(errors='replace'))
            heard[0] = time.monotonic()
        return take

    def reasons():
        found = []
        for chunks in output.values():  # each stream's lines whole: chunks joined first
            text = re.sub(r'\x1b\[[0-9;]*m', '', ''.join(chunks))
            found += [line.split('Msg:', 1)[1].strip() for line in text.splitlines()
                      if 'Msg:' in line]
        return [r for r in dict.fromkeys(found) if r]

    def report(context, returncode, waited):
        if stopping:
            return None
        settling = not any(output.values()) or time.monotonic() - heard[0] < REASON_QUIET
        if settling and waited < REASON_WAIT:
            return [TimerAction(period=REASON_POLL, actions=[OpaqueFunction(
                function=lambda c: report(c, returncode, waited + REASON_POLL))])]
        import launch.logging
        why = '; '.join(reasons()) or f'exit code {returncode}'
        launch.logging.get_logger('launch').error(
            f'hardware:=gz: the Gazebo server ended: {why} (a description Gazebo cannot '
            'load); stopping')
        return [EmitEvent(event=Shutdown(reason='the Gazebo server ended'))]

    def ended(event, context):
        if stopping or event.returncode == 0:
            return None
        return report(context, event.returncode, 0.0)

    return [RegisterEventHandler(OnProcessIO(target_action=server, on_stderr=note('stderr'),
                                             on_stdout=note('stdout'))),
            RegisterEventHandler(OnShutdown(on_shutdown=lambda *_: stopping.append(1))),
            RegisterEventHandler(OnProcessExit(target_action=server, on_exit=ended))]
