"""Default PD gains of the JointTrajectoryController on the node path, with damping the
discrete loop can take.

On ``controller:=node`` the JTC is loaded inactive on the same effort interfaces as the
forward controller: an operator who switches to it drives the arm with its PD alone (no
model, no gravity). Its default PD, 100 N m/rad and 10 N m s/rad on every joint, rang the
Panda's wrist at 2000 N m (joint 7, whose inertia is about 0.01 kg m^2): a damping kd
sampled every dt on an inertia m is unstable from kd dt / m >= 1. So each joint keeps the
default PD, its damping capped at DAMPING_MARGIN (half) of that bound for the lightest
inertia the joint can feel with the other joints free, 1 / (M^-1)_jj, over the spread
configurations of the joint ranges (where axes align, the Panda's joints 1 and 3, it is
40 times below M_jj). The stiffness is left alone: a PD of 100 N m/rad on that wrist is
a loop of about 120 rad/s, far inside what 1 kHz samples (w dt < 2).
"""

from collections.abc import Callable

import numpy as np

from ..model.ros2_control_urdf import JTC_KD, JTC_KP
from .controller_config import spread_configurations

__all__ = ['JTC_KP', 'JTC_KD', 'DAMPING_MARGIN', 'jtc_gains']

#: kd dt / m at most this (a discrete damped loop is unstable from 1 on).
DAMPING_MARGIN = 0.5


def jtc_gains(model, mass_matrix: Callable[[np.ndarray], np.ndarray], period: float,
              kp: float = JTC_KP, kd: float = JTC_KD) -> tuple[np.ndarray, np.ndarray]:
    """(kp [N m/rad or N/m], kd [N m s/rad or N s/m]) per joint of ``model`` for a PD
    sampled every ``period`` [s]: ``kp`` everywhere, ``kd`` capped per joint (module
    docstring); ``mass_matrix``: q -> M(q) [kg m^2, kg]."""
    free = np.full(model.n, np.inf)
    for q in spread_configurations(model.lower, model.upper):
        m = np.asarray(mass_matrix(q), dtype=float)
        free = np.minimum(free, 1.0 / np.diag(np.linalg.inv(m)))
    return np.full(model.n, float(kp)), np.minimum(float(kd), DAMPING_MARGIN * free / period)
