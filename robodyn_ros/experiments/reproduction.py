"""Seed 000's validation (Section 5) reproduced with this package.

The feed-forward law tau = M(q_r) qdd_r + C(q_r, qd_r) qd_r + g(q_r) (seed 000 eq. 72)
along q_r = A (1 - cos 2 pi t), A = (1, 0.75, 0.5) rad (eq. 73), on the three-link arm of
Section 5 (the bundled ``three_link`` URDF, g = 9.807 m/s^2), from q(0) = q_r(0) and
qd(0) = qd_r(0). With an exact model the arm follows the reference exactly; what remains is
the integrator's error. The torques come from each of this package's methods; the motion
from an independent forward dynamics, Pinocchio's ABA, integrated by scipy's DOP853 with
tight tolerances (the paper: Simscape, errors <= 1e-12). The same torques, held for 1 ms,
also drive the MuJoCo model at 1 kHz: its discretisation error, which is dominated by
where in the period the held torque is sampled.
"""

import numpy as np

__all__ = ['AMPLITUDES', 'SEED_GRAVITY', 'reference', 'ode_run', 'mujoco_run', 'reproduce']

AMPLITUDES = np.array([1.0, 0.75, 0.5])  # [rad], seed 000 eq. (73)
SEED_GRAVITY = (0.0, 0.0, -9.807)  # [m/s^2], seed 000 Section 3
OMEGA = 2.0 * np.pi  # [rad/s]


def reference(t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q_r, qd_r, qdd_r) at t [s] (seed 000 eq. 73 and its derivatives)."""
    return (AMPLITUDES * (1.0 - np.cos(OMEGA * t)), AMPLITUDES * OMEGA * np.sin(OMEGA * t),
            AMPLITUDES * OMEGA ** 2 * np.cos(OMEGA * t))


def feedforward(dyn, t: float) -> np.ndarray:
    """tau(t) = M(q_r) qdd_r + C(q_r, qd_r) qd_r + g(q_r) (seed 000 eq. 72) [N m]."""
    return dyn.inverse_dynamics(*reference(t))


def ode_run(model, method: str, duration: float = 2.0, tol: float = 1e-13,
            samples: int = 2001) -> dict:
    """Integrate Pinocchio's ABA under the feed-forward torques of ``method``; the error
    q - q_r at ``samples`` evenly spaced times [rad]."""
    from scipy.integrate import solve_ivp

    from ..dynamics import RigidBodyDynamics
    from ..dynamics.verification.pinocchio_chain import PinocchioChain
    dyn = RigidBodyDynamics(model, method, gravity=SEED_GRAVITY)
    plant = PinocchioChain(model, SEED_GRAVITY)
    n = model.n

    def rhs(t, y):
        return np.concatenate([y[n:], plant.aba(y[:n], y[n:], feedforward(dyn, t))])

    q0, qd0, _ = reference(0.0)
    times = np.linspace(0.0, duration, samples)
    sol = solve_ivp(rhs, (0.0, duration), np.concatenate([q0, qd0]), method='DOP853',
                    t_eval=times, rtol=tol, atol=tol)
    q_ref = np.array([reference(t)[0] for t in times])
    return dict(t=times, q=sol.y[:n].T, q_ref=q_ref, error=sol.y[:n].T - q_ref,
                tau=np.array([feedforward(dyn, t) for t in times]), evaluations=sol.nfev)


def mujoco_run(model, duration: float = 2.0, rate: float = 1000.0,
               sample: float = 0.0) -> dict:
    """The recursive method's torques, held for one period, on MuJoCo at ``rate`` [Hz];
    each held torque is tau(t_k + sample / rate): 0 = at the start of the period (what a
    controller publishes; open loop, the half-period lag accumulates), 0.5 = mid-period
    (second-order accurate)."""
    from ..dynamics import RigidBodyDynamics
    from ..sim.mujoco_sim import MujocoSim
    dyn = RigidBodyDynamics(model, gravity=SEED_GRAVITY)
    dt = 1.0 / rate
    sim = MujocoSim(model, reference(0.0)[0], SEED_GRAVITY, dt, friction=False)
    steps = int(round(duration * rate))
    times = np.arange(1, steps + 1) * dt
    q = np.empty((steps, model.n))
    for k in range(steps):
        sim.set_command(feedforward(dyn, (k + sample) * dt))
        sim.step()
        q[k] = sim.state()[0]
    q_ref = np.array([reference(t)[0] for t in times])
    return dict(t=times, q=q, q_ref=q_ref, error=q - q_ref)


def reproduce(duration: float = 2.0, out: str | None = None) -> dict:
    """Every method through the ODE route, the recursive one in MuJoCo; the max |q - q_r|
    per joint [rad] of each, and plots in the style of the seed's Figs. 5 and 6 in
    ``out`` (if given)."""
    from ..model import load_robot
    model = load_robot('three_link')
    runs = {f'{m} + ABA/DOP853': ode_run(model, m, duration)
            for m in ('recursive', 'kronecker', 'christoffel')}
    runs['MuJoCo 1 kHz, tau(t_k)'] = mujoco_run(model, duration)
    runs['MuJoCo 1 kHz, tau(t_k + dt/2)'] = mujoco_run(model, duration, sample=0.5)
    table = {name: np.abs(run['error']).max(axis=0).tolist() for name, run in runs.items()}
    result = dict(joints=list(model.joint_names), duration=duration, max_abs_error=table,
                  ode_max=max(max(v) for k, v in table.items() if 'DOP853' in k))
    if out:
        from .reproduction_plots import write_figures
        result['figures'] = write_figures(runs, list(model.joint_names), out)
    return result
