"""~/payload_estimate: the adaptive law's estimate as geometry_msgs/InertiaStamped.

Why a topic beside /diagnostics: a recorder, a plot or ``save_payload`` reads a typed
message (mass [kg], centre of mass [m], inertia about it [kg m^2], in the tip link's frame:
the payload parameters every other law loads), not three strings. Both paths publish it at
the diagnostics rate (the C++ controller from its publishing thread, the same conversion).
"""

from geometry_msgs.msg import InertiaStamped
import numpy as np

from ..model.inertial_parameters import from_vector

__all__ = ['estimate_message', 'send_estimate']


def estimate_message(pi, frame: str) -> InertiaStamped | None:
    """The message of ``pi`` = [m, m c, I_O (xx xy xz yy yz zz)] (the law's estimate, tip
    frame), header frame ``frame`` (stamp left to the caller); None while the mass is not
    positive or an entry is not finite (nothing non-finite on the wire)."""
    pi = np.asarray(pi, dtype=float)
    if pi.shape != (10,) or not np.all(np.isfinite(pi)) or not pi[0] > 0.0:
        return None
    body = from_vector(pi)
    msg = InertiaStamped()
    msg.header.frame_id = frame
    inertia = msg.inertia
    inertia.m = float(body.mass)
    inertia.com.x, inertia.com.y, inertia.com.z = (float(v) for v in body.com)
    i = body.inertia
    inertia.ixx, inertia.ixy, inertia.ixz = float(i[0, 0]), float(i[0, 1]), float(i[0, 2])
    inertia.iyy, inertia.iyz, inertia.izz = float(i[1, 1]), float(i[1, 2]), float(i[2, 2])
    return msg


def send_estimate(outlet, core, stamp) -> None:
    """The adaptive law's estimate of ``core`` on ``outlet`` (an Outlet, or None for a law
    without one), stamped ``stamp``; nothing while it has no mass."""
    if outlet is None:
        return
    msg = estimate_message(core.law.law.estimate.pi, core.model.tip_link)
    if msg is not None:
        msg.header.stamp = stamp
        outlet.send(msg)
