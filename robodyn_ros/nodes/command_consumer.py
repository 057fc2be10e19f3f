"""Whether the node's commands reach the arm: the forward controller that consumes them,
as controller_manager reports it on ``/controller_manager/activity``.

Why: on the node path the torque reaches the arm through a forward effort controller
(``<name>/commands``). When the user switches it out (``switch_controllers --activate
joint_trajectory_controller --deactivate effort_controller``), another controller (or the
hardware's own hold) drives the effort interfaces and the node's messages are dropped;
switched back in, the forward controller applies the node's next message at once, before
the node can hear of the switch. Rate-limited from the node's own stream, that message can
differ from what the arm was given by tens of N m. So, while the consumer is not active,
every cycle's output is the torque the arm is given: the joint state's effort (on the
project's MuJoCo hardware and on drivers that report the commanded effort, the applied
torque); the first message applied after the switch is the arm's torque a cycle or two
earlier (the project's MuJoCo hardware slews a handed-over command at max_torque_rate, as
a drive's slew limit would). A state with no effort, non-finite ones or
all zeros (gz_ros2_control reads 0) leaves the node's own stream, and /diagnostics says
so. While the consumer is not active /diagnostics warns that the commands are not
applied. Without controller_manager (the sim node, a driver of its own) no activity
arrives and nothing changes.
"""

from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from ..control.levels import Level

__all__ = ['ACTIVITY_TOPIC', 'CommandConsumer', 'consumer_name']

#: controller_manager's activity topic (ros2_control 4.20 and later): transient local, the
#: latest controller states on every change.
ACTIVITY_TOPIC = '/controller_manager/activity'
_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                  durability=DurabilityPolicy.TRANSIENT_LOCAL)


def consumer_name(command_topic: str) -> str:
    """The forward controller reading ``command_topic`` (``/ns/effort_controller/commands``
    -> ``effort_controller``): a ForwardCommandController's input is ``~/commands``."""
    parts = [p for p in command_topic.split('/') if p]
    return parts[-2] if len(parts) >= 2 and parts[-1] == 'commands' else ''


class CommandConsumer:
    """The consumer controller's state and the re-seed it asks for.

    Attributes:
        name: the consumer controller ('' when the topic is not a forward controller's).
        state: its lifecycle label as last reported ('not loaded' when absent), or None
            before controller_manager said anything.
        bypassed: the consumer is known not to be active: the control thread starts each
            cycle from the applied torque (:meth:`follow_applied`).
        last_resume: where the rate limit started while it was bypassed, for /diagnostics.
    """

    def __init__(self, node, command_topic: str):
        self.name = consumer_name(command_topic)
        self.state: str | None = None
        self.bypassed = False
        self.last_resume = 'none'
        self.subscription = None
        if not self.name:
            return
        try:
            from controller_manager_msgs.msg import ControllerManagerActivity
        except ImportError:  # no ros2_control installed: nothing to watch
            return
        self.subscription = node.create_subscription(ControllerManagerActivity,
                                                     ACTIVITY_TOPIC, self.on_activity, _QOS)

    def on_activity(self, msg) -> None:
        """controller_manager's states: is the consumer active?"""
        self.state = next((c.state.label for c in msg.controllers if c.name == self.name),
                          'not loaded')
        self.bypassed = self.state != 'active'

    def follow_applied(self, core, layout, raw: bytes, now: float) -> None:
        """Make ``core``'s output the effort of the state ``raw`` (decoded with ``layout``),
        output at ``now``: the cycle's step is 0, so the stream is a copy of the arm's
        torque (no feedback through a consumer that is back before the node hears it);
        keep the node's own stream when the state has no usable effort."""
        applied, why_not = core.joint_map.reported_effort(layout.names, layout.values(raw)[2])
        if applied is None:
            self.last_resume = f'{why_not}: from its own last command'
            return
        core.safety.continue_from(applied, now)  # a zero step: its output is a copy
        self.last_resume = 'from the applied effort'

    def status(self, level: Level, message: str, values: dict[str, str],
               publishing: bool) -> tuple[Level, str]:
        """/diagnostics: the consumer's state, and a warning while the commands the node
        publishes are not applied."""
        if self.state is None:
            return level, message
        values['command_consumer'] = f'{self.name}: {self.state}'
        values['consumer_resume'] = self.last_resume
        if publishing and self.state != 'active':
            level = max(level, Level.WARN)
            message = (f'commands not applied: {self.name} is {self.state} '
                       f'(controller_manager); {message}')
        return level, message
