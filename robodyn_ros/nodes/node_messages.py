"""Messages the nodes build: diagnostics, stamps, float arrays and joint trajectories."""

import array

from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from ..io.cdr import stamp_parts

__all__ = ['diagnostic_array', 'to_time', 'float_array', 'joint_trajectory']


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
