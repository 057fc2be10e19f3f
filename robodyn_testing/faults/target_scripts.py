"""The campaign's target scripts: ~/target_pose and ~/target_wrench as a policy gone wrong
sends them.

Each runs on a probe (probe.py) and checks what must hold beside the common invariants
(checks._check_common: finite, clamped, rate-limited commands without silence) and, with
``references``, the reference inside the limits.
"""

import math
import time

from robodyn_ros.defaults import CONTROLLER_NAME

from .scripts import start

__all__ = ['pose_target_storm', 'target_wrench_storm']

#: What the node must say, for each kind of bad target (its log, once per kind).
SAID = {'not finite': 'not finite', 'another frame': "in frame 'world'",
        'outside the box': 'clamped to the workspace box',
        'too large': 'more than a PoseStamped'}


def _pose(position, frame='', quaternion=(1.0, 0.0, 0.0, 0.0)):
    from geometry_msgs.msg import PoseStamped
    msg = PoseStamped()
    msg.header.frame_id = frame
    p, o = msg.pose.position, msg.pose.orientation
    p.x, p.y, p.z = position
    o.x, o.y, o.z, o.w = quaternion
    return msg


def pose_target_storm(h, result):
    """At 10 Hz for 3 s: NaN, a frame that is not the base, a 1 m jump outside the box, a
    frame name of 5000 characters (the gateway's size bound), then 5 cm jumps; each kind
    named once, commands flowing throughout."""
    from geometry_msgs.msg import PoseStamped
    plan = [_pose((math.nan, 0.0, 0.5)), _pose((0.4, 0.0, 0.5), 'world'),
            _pose((1.5, 0.0, 0.5)), _pose((0.4, 0.0, 0.5), 'x' * 5000)]
    plan += [_pose((0.40 + 0.05 * (k % 2), 0.05 * ((k // 2) % 2), 0.5)) for k in range(26)]
    _storm(h, result, PoseStamped, 'target_pose', plan, SAID, 'a target')


def _wrench(force, frame='', torque=(0.0, 0.0, 0.0)):
    from geometry_msgs.msg import WrenchStamped
    msg = WrenchStamped()
    msg.header.frame_id = frame
    f, m = msg.wrench.force, msg.wrench.torque
    f.x, f.y, f.z = force
    m.x, m.y, m.z = torque
    return msg


#: What the node must say, for each kind of bad wrench (cartesian_impedance's feed-forward).
WRENCH_SAID = {'not finite': 'target wrench refused: target wrench not finite',
               'another frame': "target wrench in frame 'world'",
               'too strong': 'target wrench scaled down to max_force',
               'too large': 'more than a WrenchStamped'}


def target_wrench_storm(h, result):
    """cartesian_impedance's ~/target_wrench at 10 Hz for 3 s: NaN, a frame that is not the
    base, 500 N (scaled down to wrench.max_force), a frame name of 5000 characters, then
    5 N jumping between directions, then nothing (the timeout's ramp to zero); each kind
    named once, commands flowing throughout (the common invariants: no step above the
    rate limit)."""
    from geometry_msgs.msg import WrenchStamped
    plan = [_wrench((math.nan, 0.0, 0.0)), _wrench((1.0, 0.0, 0.0), 'world'),
            _wrench((500.0, 0.0, 0.0)), _wrench((1.0, 0.0, 0.0), 'x' * 5000)]
    plan += [_wrench((5.0 * (k % 2), 5.0 * ((k // 2) % 2), -5.0), torque=(0.0, 0.0, 0.5))
             for k in range(26)]
    _storm(h, result, WrenchStamped, 'target_wrench', plan, WRENCH_SAID, 'a wrench')


def _storm(h, result, kind, topic, plan, said, what):
    """``plan`` (messages of ``kind``) to the controller's ``topic`` at 10 Hz, then a
    second of quiet; each of ``said``'s words in the node's log, and commands flowing at
    0.65 x or more of the node's own rate before."""
    if not start(h, result):
        return
    pub = h.node.create_publisher(kind, f'/{CONTROLLER_NAME}/{topic}', 10)
    n_quiet, t_quiet = len(h.commands), time.monotonic()
    # matched (a target sent before discovery is lost to the volatile topic, not refused),
    # and the node's own answer rate on this machine, loaded as it is
    deadline = time.monotonic() + 10.0
    while pub.get_subscription_count() == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(max(0.5, 1.5 - (time.monotonic() - t_quiet)))
    n0, t0 = len(h.commands), time.monotonic()
    quiet = h.answered(n_quiet, t_quiet, t0)
    for msg in plan:
        pub.publish(msg)
        time.sleep(0.1)
    time.sleep(1.0)
    out = h.output()
    for name, words in said.items():
        result.check(f'{what} {name} is named', words in out, out[-300:])
    busy = h.answered(n0, t0, time.monotonic())
    # against the node's own rate before (the load is the machine's, not the package's)
    rate_quiet, rate_busy = (c / max(s, 1) for c, s in (quiet, busy))
    result.check('commands keep flowing (>= 0.65 x before)', rate_busy >= 0.65 * rate_quiet,
                 f'{busy[0]} commands for {busy[1]} states ({rate_busy:.0%}); {quiet[0]} '
                 f'for {quiet[1]} before ({rate_quiet:.0%})')
    h.mark_stop()
