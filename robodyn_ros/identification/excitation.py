"""Excitation trajectories for identification: finite Fourier series (periodic, smooth,
analytic derivatives) within the joints' position, velocity and acceleration limits,
chosen among random candidates for the lowest condition number of the stacked regressor.

    q_j(t) = q0_j + sum_l a_jl sin(l w t) + b_jl (cos(l w t) - 1),  w = 2 pi / period
"""

from dataclasses import dataclass

import numpy as np

from .regressor import PayloadRegressor, friction_regressor

__all__ = ['FourierTrajectory', 'design_excitation', 'condition_number']


@dataclass(frozen=True)
class FourierTrajectory:
    """q0 (n,), coefficients a, b (n, harmonics) [rad or m], period [s]."""

    q0: np.ndarray
    a: np.ndarray
    b: np.ndarray
    period: float

    def __call__(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(q, qd, qdd) at t [s]."""
        w = 2.0 * np.pi / self.period
        lw = w * np.arange(1, self.a.shape[1] + 1)
        s, c = np.sin(lw * t), np.cos(lw * t)
        q = self.q0 + self.a @ s + self.b @ (c - 1.0)
        qd = self.a @ (lw * c) - self.b @ (lw * s)
        qdd = -self.a @ (lw ** 2 * s) - self.b @ (lw ** 2 * c)
        return q, qd, qdd

    def bounds(self, samples: int = 400) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Max |q - q0|, |qd|, |qdd| per joint over one period."""
        values = [self(t) for t in np.linspace(0.0, self.period, samples)]
        return tuple(np.abs(np.array([v[k] - (self.q0 if k == 0 else 0.0) for v in values]))
                     .max(axis=0) for k in range(3))


def condition_number(regressor: PayloadRegressor, trajectory: FourierTrajectory,
                     samples: int = 60, smoothing: float = 0.01) -> float:
    """Condition number of the stacked [Y_p, diag(qd), diag(sgn qd)] over one period,
    columns scaled to unit norm (the parameters' units do not count)."""
    rows = []
    for t in np.linspace(0.0, trajectory.period, samples, endpoint=False):
        q, qd, qdd = trajectory(t)
        rows.append(np.hstack([regressor.payload(q, qd, qdd), friction_regressor(qd, smoothing)]))
    a = np.vstack(rows)
    a = a / np.maximum(np.linalg.norm(a, axis=0), 1e-12)
    return float(np.linalg.cond(a))


def design_excitation(model, q0, period: float = 8.0, harmonics: int = 4,
                      candidates: int = 30, fraction: float = 0.6, seed: int = 0,
                      acceleration: float = 3.0) -> tuple[FourierTrajectory, float]:
    """The best of ``candidates`` random Fourier trajectories around ``q0``, each scaled
    to stay within ``fraction`` of the position range left around q0, of the velocity
    limits and of ``acceleration`` [rad/s^2]. Returns (trajectory, condition number)."""
    regressor = PayloadRegressor(model)
    q0 = np.asarray(q0, dtype=float)
    room = np.minimum(q0 - model.lower, model.upper - q0)
    room = np.where(np.isfinite(room), room, np.pi) * fraction
    vmax = np.where(np.isfinite(model.velocity_limits), model.velocity_limits, 2.0) * fraction
    rng = np.random.default_rng(seed)
    best: tuple[FourierTrajectory, float] | None = None
    for _ in range(max(candidates, 1)):
        shape = (model.n, harmonics)
        decay = 1.0 / np.arange(1, harmonics + 1)
        traj = FourierTrajectory(q0, rng.normal(size=shape) * decay,
                                 rng.normal(size=shape) * decay, period)
        dq, dqd, dqdd = traj.bounds()
        scale = np.min(np.stack([room / np.maximum(dq, 1e-12), vmax / np.maximum(dqd, 1e-12),
                                 acceleration / np.maximum(dqdd, 1e-12)]), axis=0)
        traj = FourierTrajectory(q0, traj.a * scale[:, None], traj.b * scale[:, None], period)
        cond = condition_number(regressor, traj)
        if best is None or cond < best[1]:
            best = (traj, cond)
    assert best is not None
    return best
