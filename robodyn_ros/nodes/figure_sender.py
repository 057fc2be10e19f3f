"""A figure's joint trajectory (control/reference/figures.py) as a JointTrajectory message,
and the lock-step demo's hook that sends it to the controller's ``~/joint_trajectory``."""

from collections.abc import Callable, Sequence

from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from ..control.reference.figures import FigureTrajectory
from ..defaults import CONTROLLER_NAME

__all__ = ['figure_hook', 'figure_message']


def figure_message(joint_names: Sequence[str], figure: FigureTrajectory) -> JointTrajectory:
    """Every point with its positions, velocities and accelerations (a quintic spline
    through them, as JointTrajectoryController and the node interpolate)."""
    msg = JointTrajectory()
    msg.joint_names = list(joint_names)
    for t, q, qd, qdd in zip(figure.times, figure.positions, figure.velocities,
                             figure.accelerations):
        point = JointTrajectoryPoint(positions=q.tolist(), velocities=qd.tolist(),
                                     accelerations=qdd.tolist())
        nanoseconds = int(round(float(t) * 1e9))
        point.time_from_start.sec, point.time_from_start.nanosec = divmod(nanoseconds,
                                                                          10 ** 9)
        msg.points.append(point)
    return msg


def figure_hook(joint_names: Sequence[str], figure: FigureTrajectory,
                at_step: int) -> Callable:
    """A run_lock_step hook that publishes the figure on the sim's node at ``at_step``
    (its publisher made at step 0, so discovery has the steps between)."""
    publishers: list = []
    msg = figure_message(joint_names, figure)

    def hook(step, nodes, _executor):
        if step == 0:
            publishers.append(nodes['sim'].create_publisher(
                JointTrajectory, f'/{CONTROLLER_NAME}/joint_trajectory', 1))
        elif step == at_step:
            publishers[0].publish(msg)
    return hook
