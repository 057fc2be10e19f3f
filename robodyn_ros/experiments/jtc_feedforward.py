"""Measure the trajectory feed-forward mode: a JTC-like PID in the MuJoCo sim tracking the
same dense trajectory with and without robodyn's effort feed-forward."""

import numpy as np

from ..control.reference.trajectories import make_reference
from ..control.reference.trajectory_feedforward import feedforward_trajectory
from ..dynamics import RigidBodyDynamics
from ..sim import MujocoSim
from ..sim.jtc_emulation import JtcEmulator

__all__ = ['jtc_feedforward_experiment', 'PANDA_JTC_KP', 'PANDA_JTC_KD']

#: Joint-space PD gains of a Panda JTC on effort interfaces (as franka_ros2's examples
#: use): stiff shoulder, soft wrist, so each joint's loop is stable at 1 kHz.
PANDA_JTC_KP = (600.0, 600.0, 600.0, 600.0, 250.0, 150.0, 50.0)
PANDA_JTC_KD = (30.0, 30.0, 30.0, 30.0, 10.0, 10.0, 5.0)


def jtc_feedforward_experiment(model, q0, amplitudes, periods, kp, kd, duration=10.0,
                               dt=0.01, rate=1000.0):
    """Worst-joint tracking RMS [rad] with and without feed-forward, same PID.

    Args:
        model: RobotModel; q0: (n,) start [rad]; amplitudes, periods: sum-of-sines.
        kp, kd: JTC PD gains, scalar or (n,) [N m/rad], [N m s/rad].
        duration: seconds tracked.
        dt: trajectory point spacing [s]; rate: sim and JTC rate [Hz].

    Returns:
        {'with_feedforward': rms, 'without_feedforward': rms, 'ratio': with / without,
         'per_joint': {...}}.
    """
    dyn = RigidBodyDynamics(model)
    reference = make_reference('sum_of_sines', q0, amplitudes, periods, 1.0)
    traj = feedforward_trajectory(dyn, reference, duration, dt,
                                  effort_limits=model.effort_limits)
    n = model.n
    results = {}
    for name, effort in (('with_feedforward', traj.effort), ('without_feedforward', None)):
        sim = MujocoSim(model, q0, timestep=1.0 / rate)
        jtc = JtcEmulator(np.broadcast_to(kp, n), np.broadcast_to(kd, n), q0)
        jtc.set_trajectory(0.0, traj.times, traj.q, traj.qd, traj.qdd, effort)
        steps = int(round(duration * rate))
        err = np.empty((steps, n))
        for k in range(steps):
            t = k / rate
            q, qd, _ = sim.state()
            err[k] = reference(t)[0] - q
            sim.set_command(np.clip(jtc.command(t, q, qd), -model.effort_limits,
                                    model.effort_limits))
            sim.step()
        results[name] = np.sqrt((err ** 2).mean(axis=0))
    worst = {k: float(v.max()) for k, v in results.items()}
    return {**worst, 'ratio': worst['with_feedforward'] / worst['without_feedforward'],
            'per_joint': {k: v.tolist() for k, v in results.items()}}
