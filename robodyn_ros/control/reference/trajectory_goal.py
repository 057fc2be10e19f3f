"""Goal and path tolerances of a FollowJointTrajectory goal, as joint_trajectory_controller
(JTC) defines them, checked on plain arrays.

Per joint a tolerance > 0 is checked, 0 takes the controller's default, < 0 is not checked.
During the trajectory the path tolerance applies to |q_r - q| and |qd_r - qd|; once its
time is over the goal succeeds when the errors are within the goal tolerance, and fails
when they are not within ``goal_time`` after the end (``goal_time`` 0: wait, as JTC does).
"""

from typing import NamedTuple

import numpy as np

from ...errors import InputError, short_list

__all__ = ['GoalTolerances', 'GoalMonitor', 'SUCCESSFUL', 'INVALID_GOAL', 'INVALID_JOINTS',
           'PATH_TOLERANCE_VIOLATED', 'GOAL_TOLERANCE_VIOLATED', 'goal_problem']

# control_msgs/action/FollowJointTrajectory result codes.
SUCCESSFUL, INVALID_GOAL, INVALID_JOINTS = 0, -1, -2
PATH_TOLERANCE_VIOLATED, GOAL_TOLERANCE_VIOLATED = -4, -5


def goal_problem(chain_names, trajectory, max_points=10**9):
    """Why a goal's JointTrajectory must be rejected before it is accepted, or None: what
    JTC's validate_trajectory_msg refuses at goal time (no joint names, unknown or repeated
    joints, no points, a point whose positions, velocities or accelerations do not match
    the joint names, times not strictly increasing, non-finite values). Joints of the chain
    left out are held (JTC's allow_partial_joints_goal)."""
    names = trajectory.joint_names
    if not len(names):
        return 'no joint names'
    if len(names) > len(chain_names):  # before looking at any: a million must cost nothing
        return f'{len(names)} joint names for a chain of {len(chain_names)} joints'
    names = list(names)
    unknown = [name for name in names if name not in chain_names]
    if unknown or len(set(names)) != len(names):
        return (f'unknown joints {short_list(unknown)}' if unknown else
                f'repeated joints in {short_list(names)}') + \
            f'; the controller has {list(chain_names)}'
    if len(trajectory.points) > max_points:
        return f'{len(trajectory.points)} points, more than max_trajectory_points ' \
            f'({max_points})'
    if not trajectory.points:
        return 'no points'
    previous = -np.inf
    for k, point in enumerate(trajectory.points):
        for field in ('positions', 'velocities', 'accelerations'):
            values = getattr(point, field)
            size = len(values)
            if size != len(names) and (field == 'positions' or size):
                return f'point {k}: {size} {field} for {len(names)} joints'
            if size and not np.all(np.isfinite(np.asarray(values, dtype=float))):
                return f'point {k}: non-finite {field}'
        t = point.time_from_start.sec + point.time_from_start.nanosec * 1e-9
        if not t > previous:
            return f"point {k}: time_from_start {t:g} s not after the previous point's"
        previous = t
    return None


class GoalTolerances(NamedTuple):
    """(n,) arrays, inf where not checked; ``goal_time`` [s]."""

    path_position: np.ndarray
    path_velocity: np.ndarray
    goal_position: np.ndarray
    goal_velocity: np.ndarray
    goal_time: float

    @classmethod
    def from_goal(cls, joint_names, path, goal, goal_time, defaults):
        """From the goal's JointTolerance lists (``name``, ``position``, ``velocity``) and
        goal_time_tolerance [s]; ``defaults`` is a GoalTolerances for the zeros."""
        names = list(joint_names)
        out = []
        for entries, pos_default, vel_default in ((path, defaults.path_position,
                                                   defaults.path_velocity),
                                                  (goal, defaults.goal_position,
                                                   defaults.goal_velocity)):
            pos, vel = pos_default.copy(), vel_default.copy()
            for tol in entries:
                if tol.name not in names:
                    raise InputError(f'tolerance for unknown joint {tol.name!r}; valid '
                                     f'joints {names}')
                j = names.index(tol.name)
                pos[j] = _tolerance(tol.position, pos_default[j])
                vel[j] = _tolerance(tol.velocity, vel_default[j])
            out += [pos, vel]
        path_position, path_velocity, goal_position, goal_velocity = out
        return cls(path_position, path_velocity, goal_position, goal_velocity,
                   goal_time if goal_time > 0 else defaults.goal_time)


def _tolerance(value, default):
    if value > 0:
        return float(value)
    return default if value == 0 else np.inf


class GoalMonitor:
    """Verdict on one goal from the reference and the measured state.

    Args:
        tolerances: GoalTolerances.
        end: reference time [s] at which the trajectory ends.
        names: joint names (for messages).
    """

    def __init__(self, tolerances, end, names):
        self.tol = tolerances
        self.end = float(end)
        self.names = list(names)

    def check(self, t, q_r, qd_r, q, qd):
        """(result code or None while running, text) at reference time t [s]."""
        e, ed = np.abs(q_r - q), np.abs(qd_r - qd)
        tol = self.tol
        if t < self.end:
            bad = (e > tol.path_position) | (ed > tol.path_velocity)
            if bad.any():
                j = int(np.flatnonzero(bad)[0])
                return PATH_TOLERANCE_VIOLATED, (
                    f'path tolerance violated on {self.names[j]}: error {e[j]:.4g} rad, '
                    f'{ed[j]:.4g} rad/s')
            return None, 'executing'
        if np.all(e <= tol.goal_position) and np.all(ed <= tol.goal_velocity):
            return SUCCESSFUL, f'goal reached, largest error {e.max():.3g}'
        if tol.goal_time > 0 and t > self.end + tol.goal_time:
            j = int(np.argmax(e - np.minimum(tol.goal_position, 1e300)))
            return GOAL_TOLERANCE_VIOLATED, (
                f'goal tolerance not reached {tol.goal_time:.3g} s after the end: '
                f'{self.names[j]} error {e[j]:.4g} rad')
        return None, 'settling'
