"""Safety filter between the control law and the publisher."""

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
        if tau.shape != self.last_good.shape or not np.all(np.isfinite(tau)):
            self.faults += 1
            return self.last_good.copy()
        out = np.clip(tau, -self.limits, self.limits)
        if np.any(out != tau):
            self.clamped += 1
        self.last_good = out
        return out
