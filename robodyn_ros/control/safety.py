"""Safety filter between the control law and the publisher."""

import math

import numpy as np

__all__ = ['SafetyFilter']


class SafetyFilter:
    """Make every command finite and within the URDF effort limits.

    A non-finite torque is replaced by the fallback (the last good command, or zeros),
    and ``faults`` counts such events so the node can report them.
    """

    def __init__(self, effort_limits):
        self.limits = np.where(np.isfinite(effort_limits), effort_limits, np.inf)
        self.last_good = np.zeros(len(effort_limits))
        self.faults = 0
        self.clamped = 0

    def __call__(self, tau):
        """Filtered (n,) torque."""
        tau = np.asarray(tau, dtype=float)
        # NaN and inf propagate into the sum (an overflow to inf is rejected too).
        if tau.shape != self.last_good.shape or not math.isfinite(tau.sum()):
            self.faults += 1
            return self.last_good.copy()
        if (np.abs(tau) > self.limits).any():
            self.clamped += 1
            tau = np.minimum(np.maximum(tau, -self.limits), self.limits)
        self.last_good = tau
        return tau
