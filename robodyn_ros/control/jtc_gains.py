"""Default PD gains of the JointTrajectoryController on the node path, derived from the
model.

On ``controller:=node`` the JTC is loaded inactive on the same effort interfaces as the
forward controller: an operator who switches to it drives the arm with its PD alone
(no model, no gravity). Uniform gains do not fit an arm whose inertias span two orders of
magnitude: 100 N m/rad and 10 N m s/rad made the Panda's wrist (M_77 about 0.01 kg m^2)
ring at 2000 N m under the JTC alone, its damping sampled at 1 kHz past the stability of
a discrete loop (kd dt / m >= 1 for a joint of inertia m). Here each joint is a critically
damped loop of bandwidth ``bandwidth`` on the lightest diagonal inertia it has over the
spread configurations, and its damping stays at half the discrete bound for the lightest
inertia it can feel with the other joints free (1 / (M^-1)_jj: where axes align, the Panda's
joints 1 and 3, it is 40 times below M_jj).
"""

from collections.abc import Callable

import numpy as np

from .controller_config import spread_configurations

__all__ = ['JTC_BANDWIDTH', 'jtc_gains']

#: The JTC-alone loop's bandwidth [rad/s]: 2 pi x 5 Hz, the position hold's.
JTC_BANDWIDTH = 2.0 * np.pi * 5.0
#: kd dt / m at most this (a discrete damped loop is unstable from 1 on).
DAMPING_MARGIN = 0.5


def jtc_gains(model, mass_matrix: Callable[[np.ndarray], np.ndarray], period: float,
              bandwidth: float = JTC_BANDWIDTH) -> tuple[np.ndarray, np.ndarray]:
    """(kp [N m/rad or N/m], kd [N m s/rad or N s/m]) per joint of ``model`` for a PD
    sampled every ``period`` [s]; ``mass_matrix``: q -> M(q) [kg m^2, kg]."""
    diagonal = np.full(model.n, np.inf)
    free = np.full(model.n, np.inf)
    for q in spread_configurations(model.lower, model.upper):
        m = np.asarray(mass_matrix(q), dtype=float)
        diagonal = np.minimum(diagonal, np.diag(m))
        free = np.minimum(free, 1.0 / np.diag(np.linalg.inv(m)))
    kp = bandwidth * bandwidth * diagonal
    kd = np.minimum(2.0 * bandwidth * diagonal, DAMPING_MARGIN * free / period)
    return kp, kd
