"""What the fault campaign feeds the controller: the Panda the controller loads, plain
trajectories and hostile ones (ROS messages, built in the probe's or a goal client's
process)."""

import numpy as np

from robodyn_ros.model import load_robot
from robodyn_ros.model.registry import PANDA_HOME

__all__ = ['PANDA_Q0', 'NAMES', 'model', 'trajectory', 'hostile_trajectory']

PANDA_Q0 = np.array(PANDA_HOME)
NAMES = [f'panda_joint{i}' for i in range(1, 8)]
_MODEL = None


def model():
    """The Panda chain the controller loads (for the hold torque g(q))."""
    global _MODEL
    if _MODEL is None:
        _MODEL = load_robot('panda', tip_link='panda_hand')
    return _MODEL


def trajectory(points, duration, delta=0.05, lead=0.0):
    """A Panda JointTrajectory of ``points`` points from Q0 to Q0 + ``delta`` on every joint,
    evenly spread over (``lead``, ``duration``] [s]. A lead gives the reference time to
    reach Q0 from where the controller holds the fake arm (up to 0.2 rad away): without
    one, the first of 10 000 points 0.4 ms ahead is refused as too fast (rightly)."""
    from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
    msg = JointTrajectory()
    msg.joint_names = list(NAMES)
    base = PANDA_Q0.tolist()
    for k in range(points):
        t = lead + (duration - lead) * (k + 1) / points
        p = JointTrajectoryPoint()
        p.positions = [v + delta * (k + 1) / points for v in base]
        p.time_from_start.sec = int(t)
        p.time_from_start.nanosec = int(round((t - int(t)) * 1e9)) % 1_000_000_000
        msg.points.append(p)
    return msg


def hostile_trajectory(kind, duration=1.0, delta=0.1):
    """One point at ``duration`` [s], Q0 + ``delta``, made hostile: 'velocities' (1e6
    rad/s at the point: the interpolation leaves the limits), 'velocities_10' (10 rad/s,
    the Panda's limit is 2.175), 'accelerations' (40 rad/s^2 on joint 1 at a point 0.5 s
    away: within the position and velocity limits, beyond joint 1's derived acceleration
    limit of 24.3 rad/s^2), 'names' (a million joint names), 'negative_time'
    (time_from_start -1 s)."""
    from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
    point = JointTrajectoryPoint(positions=(PANDA_Q0 + delta).tolist())
    point.time_from_start.sec = int(duration)
    point.time_from_start.nanosec = int(round((duration % 1) * 1e9))
    names = list(NAMES)
    if kind.startswith('velocities'):
        point.velocities = [10.0 if kind == 'velocities_10' else 1e6] * 7
        point.accelerations = [0.0] * 7
    elif kind == 'accelerations':
        point.velocities = [0.0] * 7
        point.accelerations = [40.0] + [0.0] * 6
        point.time_from_start.sec, point.time_from_start.nanosec = 0, 500_000_000
    elif kind == 'names':
        names = names + [f'joint_{k}' for k in range(1_000_000 - 7)]
        point.positions = [0.0] * len(names)
    elif kind == 'negative_time':
        point.time_from_start.sec, point.time_from_start.nanosec = -1, 0
    return JointTrajectory(joint_names=names, points=[point])
