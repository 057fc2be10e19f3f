"""A publisher whose failed write is counted and reported, never raised into a cycle.

Why: Fast DDS refuses a write (``RCLError: cannot publish data``) when a reliable reader
lags far enough that the writer's history stays full past its blocking time: a bag
recorder beside three 1 kHz processes on a loaded 2-core machine does it within a minute.
A monitoring topic (``~/reference``, ``~/controller_state``, ``/diagnostics``) that loses
one message must not stop the arm, and the command topic that loses one must not make the
next command step from a torque the arm never got (the caller restores its rate limit's
start, see ControllerNode.publish). Every refusal is counted, and /diagnostics names the
topic, the count and the writer's reason.
"""

from rclpy.publisher import Publisher

from ..control.levels import Level

__all__ = ['Outlet', 'Outlets']


class Outlet:
    """One publisher and the writes it refused.

    Attributes:
        publisher: the rclpy publisher (raw bytes or message objects alike).
        refused: writes refused so far.
        reason: the writer's last refusal, one line.
    """

    def __init__(self, publisher: Publisher):
        self.publisher = publisher
        self.refused = 0
        self.reason = ''

    def send(self, message) -> bool:
        """Publish ``message``; False (counted, reason kept) when the writer refuses it."""
        try:
            self.publisher.publish(message)
        except Exception as exc:  # noqa: BLE001 - rclpy raises RCLError, a RuntimeError kin
            self.refused += 1
            self.reason = f'{type(exc).__name__}: {str(exc).splitlines()[0][:120]}'
            return False
        return True


class Outlets:
    """The node's outlets by topic, and their refusals as /diagnostics values."""

    def __init__(self):
        self.by_topic: dict[str, Outlet] = {}

    def wrap(self, publisher: Publisher) -> Outlet:
        """An outlet for ``publisher``, listed under its resolved topic name."""
        outlet = Outlet(publisher)
        self.by_topic[publisher.topic_name] = outlet
        return outlet

    def status(self, level: Level, message: str, values: dict[str, str], command: Outlet,
               publishing: bool) -> tuple[Level, str]:
        """A configured controller's /diagnostics (level, message), with what the outlets
        know added: nobody listening to ``command`` while the controller publishes, and
        writes refused (``values`` gains 'command_subscribers' and 'refused_writes')."""
        if publishing:
            listeners = command.publisher.get_subscription_count()
            values['command_subscribers'] = str(listeners)
            if listeners == 0:
                level = max(level, Level.WARN)
                message = (f'commands go nowhere: no subscriber on '
                           f'{command.publisher.topic_name} (is the effort controller '
                           f'loaded?); {message}')
        refused = {t: o for t, o in self.by_topic.items() if o.refused}
        values['refused_writes'] = ', '.join(f'{t} {o.refused} ({o.reason})'
                                             for t, o in refused.items()) or '0'
        if refused:
            level = max(level, Level.WARN)
            message = (f"the DDS writer refused messages (a reader lagging?): "
                       f"{values['refused_writes']}; {message}")
        return level, message
