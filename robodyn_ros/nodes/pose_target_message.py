"""~/target_pose and ~/target_wrench messages into a controller core, and the input
gateway's refusals into its events.

Why apart from the node: the message's fields become plain values here, so the core
(control/reference/pose_target.py) stays free of ROS types.
"""

from ..control.events import EventKind, emit
from ..control.levels import Level

__all__ = ['follow_target', 'refused_input', 'take_wrench']


def follow_target(core, now: float, msg) -> tuple[bool, str]:
    """A geometry_msgs/PoseStamped to ``core`` (a ControllerCore) at monotonic ``now`` [s]:
    (taken, what it did)."""
    p, o = msg.pose.position, msg.pose.orientation
    return core.follow_pose(now, (p.x, p.y, p.z), (o.x, o.y, o.z, o.w), msg.header.frame_id)


def take_wrench(core, now: float, msg) -> tuple[bool, str]:
    """A geometry_msgs/WrenchStamped to ``core`` at ``now`` [s] (the cycle's clock): (taken,
    what it did)."""
    f, m = msg.wrench.force, msg.wrench.torque
    return core.take_wrench(now, (f.x, f.y, f.z), (m.x, m.y, m.z), msg.header.frame_id)


def refused_input(core, _now: float, msg) -> None:
    """The input gateway's refusal (a std_msgs/String) as the core's event: a pose
    target's, a wrench's or a trajectory's (the gateway's texts begin with what was
    refused)."""
    text = msg.data
    kind = EventKind.TARGET if text.startswith(('pose target', 'target wrench')) else \
        EventKind.TRAJECTORY_REFUSED
    emit(core.events, kind, Level.WARN, text[:500])
