"""Feed-forward torques along a trajectory, for a JointTrajectoryController (JTC).

A JTC on effort interfaces adds a trajectory point's ``effort`` as feed-forward to its
PID (ros2_controllers PR #1200). This module densifies a reference and attaches
tau_ff = M(q_r) qdd_r + C(q_r, qd_r) qd_r + g(q_r) [+ tau_f(qd_r)] (seed 000 eq. 72) to
every point, so a Python node can drive a real arm without sitting in its 1 kHz loop.
"""

from typing import NamedTuple

import numpy as np

from ...errors import InputError

__all__ = ['FeedforwardTrajectory', 'feedforward_trajectory']


class FeedforwardTrajectory(NamedTuple):
    """Dense samples, chain order: times (m,) [s from start]; q, qd, qdd, effort (m, n)."""

    times: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    effort: np.ndarray


def feedforward_trajectory(dynamics, reference, duration, dt=0.01, include_gravity=True,
                           include_friction=False, effort_limits=None):
    """Sample ``reference(t)`` every ``dt`` over [dt, duration] and attach tau_ff.

    Args:
        dynamics: RigidBodyDynamics.
        reference: callable t -> (q_r, qd_r, qdd_r), t [s] from the trajectory's start.
        duration: last time [s] (included).
        dt: sample spacing [s] (> 0).
        include_gravity: add g(q_r) (false on robots that compensate gravity).
        include_friction: add the friction model at qd_r.
        effort_limits: (n,) limits; a sample above them is an InputError (a JTC would
            saturate silently).

    Returns:
        FeedforwardTrajectory.
    """
    if not dt > 0 or not duration > 0:
        raise InputError(f'dt and duration must be > 0, got dt={dt}, duration={duration}')
    times = np.arange(1, int(np.ceil(duration / dt - 1e-9)) + 1) * dt
    times[-1] = duration
    n = dynamics.n
    q, qd, qdd, effort = (np.empty((len(times), n)) for _ in range(4))
    for k, t in enumerate(times):
        q[k], qd[k], qdd[k] = reference(t)
        tau = dynamics.inverse_dynamics(q[k], qd[k], qdd[k])
        if not include_gravity:
            tau = tau - dynamics.gravity_vector(q[k])
        if include_friction:
            tau = tau + dynamics.friction_torque(qd[k])
        effort[k] = tau
    if effort_limits is not None:
        over = np.abs(effort) > np.asarray(effort_limits)
        if over.any():
            k, j = (int(i) for i in np.argwhere(over)[0])
            raise InputError(f'feed-forward torque {effort[k, j]:.4g} on joint {j + 1} at '
                             f't = {times[k]:.3f} s exceeds its limit {effort_limits[j]:.4g}')
    return FeedforwardTrajectory(times, q, qd, qdd, effort)
