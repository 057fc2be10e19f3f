"""A figure's joint trajectory (control/reference/figures.py) as a JointTrajectory message,
and the lock-step demo's hook that sends it to the controller's ``~/joint_trajectory``."""

from collections.abc import Callable, Sequence

from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from ..control.reference.figures import FigureTrajectory
from ..defaults import CONTROLLER_NAME

__all__ = ['circle_hook', 'figure_hook', 'figure_message']


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


def circle_hook(model, q0, radius: float, frequency: float, turns: float, plane: str,
                at_step: int, rate: float) -> tuple[Callable, float, list[float]]:
    """(figure_hook of the circle through the tool at ``q0``, the circle's duration [s],
    its start point [m, base link frame]) (control/reference/figures.py)."""
    import numpy as np

    from ..control.reference.figures import circle_through, circle_trajectory
    from ..dynamics import RigidBodyDynamics
    from ..dynamics.recursive.tip_frame import TipFrame
    q0 = np.asarray(q0, dtype=float)
    dh = model.dh_table('standard').base
    start = dh[:3, :3] @ TipFrame(RigidBodyDynamics(model)).at(q0)[2] + dh[:3, 3]
    circle = circle_through(start, radius, frequency, turns, plane)
    figure = circle_trajectory(model, q0, circle, rate)
    return figure_hook(model.joint_names, figure, at_step), circle.duration, start.tolist()


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
