"""Joint friction: viscous + Coulomb (seed 004, 'Friction')."""

import numpy as np

__all__ = ['friction_torque']


def friction_torque(qd, viscous, coulomb, smoothing=0.0):
    """tau_f = c sgn(qd) + k qd (seed 004), with an optional smooth sign.

    Args:
        qd: (n,) joint velocities [rad/s or m/s].
        viscous: (n,) k [N m s/rad or N s/m] (URDF <dynamics damping>).
        coulomb: (n,) c [N m or N] (URDF <dynamics friction>).
        smoothing: velocity scale [rad/s]; > 0 replaces sgn(qd) by tanh(qd / smoothing)
            so a controller does not chatter around zero velocity.
    """
    sign = np.tanh(qd / smoothing) if smoothing > 0.0 else np.sign(qd)
    return coulomb * sign + viscous * qd
