"""A simulated Panda pushed at its tool: the ground truth of the observer's tests."""

import numpy as np

from robodyn_ros.dynamics.contact_wrench import tool_jacobian

DT = 1e-3  # sample period [s]
SUB = 5  # RK4 substeps per sample
PUSH = np.array([20.0, 0.0, -10.0, 0.0, 0.0, 0.0])  # [N, N m] at the tool, base frame


def _accel(dyn, q, qd, tau):
    m, c, g = dyn.terms(q, qd)
    return np.linalg.solve(m, tau - c @ qd - g - dyn.friction_torque(qd))


def simulate(model, dyn, seconds, push=(0.5, 1.0), wrench=PUSH):
    """RK4 on the model's own equation of motion (seed 000 eq. 29 + friction), the applied
    torque held over each sample (zero-order hold, as a drive applies it): a sum of sines
    around gravity compensation. Yields (t, q, qd, the torque applied since the previous
    sample, tau_ext)."""
    q, qd, applied = model.mid_range.copy(), np.zeros(7), np.zeros(7)
    amp = np.array([3.0, 2.0, 2.0, 1.5, 1.0, 0.5, 0.3])
    for k in range(int(round(seconds / DT))):
        t = k * DT
        tau = dyn.gravity_vector(q) + amp * np.sin(2 * np.pi * 0.7 * t + np.arange(7)) \
            - 5.0 * qd
        ext = tool_jacobian(model, q).T @ wrench if push[0] <= t < push[1] else np.zeros(7)
        yield t, q.copy(), qd.copy(), applied, ext
        applied = tau
        q, qd = step(dyn, q, qd, tau + ext)


def step(dyn, q, qd, tau, dt=DT, sub=SUB):
    """(q, qd) after ``dt`` [s] under the constant joint torque ``tau`` (RK4, ``sub``
    substeps) on the model's equation of motion."""
    h = dt / sub
    for _ in range(sub):
        def f(x, v):
            return v, _accel(dyn, x, v, tau)
        k1 = f(q, qd)
        k2 = f(q + h / 2 * k1[0], qd + h / 2 * k1[1])
        k3 = f(q + h / 2 * k2[0], qd + h / 2 * k2[1])
        k4 = f(q + h * k3[0], qd + h * k3[1])
        q = q + h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        qd = qd + h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
    return q, qd
