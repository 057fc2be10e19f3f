"""Effort limits for simulating a description that gives none (exporters write
``effort="0"``): the simulator's motors need a range."""

import numpy as np

from ..dynamics import RigidBodyDynamics

__all__ = ['simulation_effort_limits']


def simulation_effort_limits(model, samples=256, seed=0):
    """Effort limits [N m or N] for simulating a description that has none: per
    joint 3 x the largest |g_j(q)| over ``samples`` positions in the joint ranges, + 1
    (room for the law's inertial and PD terms; a real arm's come from its maker)."""
    rng = np.random.default_rng(seed)
    dyn = RigidBodyDynamics(model)
    lower = np.where(np.isfinite(model.lower), model.lower, -np.pi)
    upper = np.where(np.isfinite(model.upper), model.upper, np.pi)
    worst = np.zeros(model.n)
    for q in rng.uniform(lower, upper, (samples, model.n)):
        worst = np.maximum(worst, np.abs(dyn.gravity_vector(q)))
    return np.round(3.0 * worst + 1.0, 1)
