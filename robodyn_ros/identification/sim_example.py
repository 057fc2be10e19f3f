"""The worked example: the simulated Panda carries a hidden 1.5 kg payload and has joint
damping and friction loss that its URDF does not know. An excitation trajectory is tracked
(computed torque with the plain URDF model) and recorded to a bag; friction and payload are
identified from the bag; then the Panda sum-of-sines is tracked with the plain model and
with the identified one."""

from dataclasses import replace
import os

import numpy as np

from ..defaults import JOINT_STATES
from ..dynamics import RigidBodyDynamics
from ..io import BagWriter, encode_joint_state
from ..model.inertial import Inertial
from ..model.inertial_parameters import from_vector, to_vector
from ..model.registry import PANDA_HOME
from ..sim.mujoco_sim import MujocoSim
from .bag_motion import motion_from_bag
from .excitation import design_excitation
from .identify import identify
from .regressor import with_payload

__all__ = ['TRUE_PAYLOAD', 'TRUE_VISCOUS', 'TRUE_COULOMB', 'run_example']

STATES = '/' + JOINT_STATES

#: The hidden payload in the tip (panda_hand) frame, and the simulator's joint friction.
TRUE_PAYLOAD = Inertial(1.5, np.array([0.01, -0.02, 0.06]), np.diag([0.004, 0.005, 0.003]))
TRUE_VISCOUS = np.array([0.6, 0.6, 0.5, 0.5, 0.3, 0.3, 0.2])  # [N m s/rad]
TRUE_COULOMB = np.array([0.8, 0.8, 0.6, 0.6, 0.4, 0.4, 0.3])  # [N m]
Q0 = np.array(PANDA_HOME)
GAINS = (100.0, 20.0)  # computed-torque kp [1/s^2], kd [1/s]: model errors show


def true_plant(model):
    """The simulated arm: payload lumped into the last body, the true friction."""
    joints = tuple(replace(j, damping=float(k), friction=float(c))
                   for j, k, c in zip(model.joints, TRUE_VISCOUS, TRUE_COULOMB))
    return with_payload(replace(model, joints=joints), to_vector(TRUE_PAYLOAD))


def track(plant, law, reference, duration, writer=None, names=None):
    """Computed torque with ``law`` (RigidBodyDynamics) on ``plant`` in MuJoCo at 1 kHz;
    returns the tracking errors (steps, n) [rad]; ``writer``: record states + torques."""
    sim = MujocoSim(plant, reference(0.0)[0], timestep=1e-3, friction=True)
    kp, kd = np.full(plant.n, GAINS[0]), np.full(plant.n, GAINS[1])
    errors = []
    for k in range(int(round(duration * 1000))):
        t = k * 1e-3
        q, qd, _ = sim.state()
        q_r, qd_r, qdd_r = reference(t)
        tau = np.clip(law.computed_torque(q, qd, q_r, qd_r, qdd_r, kp, kd, friction=True),
                      -plant.effort_limits, plant.effort_limits)
        if writer is not None:
            writer.write(STATES, int((1.0 + t) * 1e9),
                         encode_joint_state(1.0 + t, names, q, qd, tau))
        sim.set_command(tau)
        sim.step()
        errors.append(q_r - q)
    return np.array(errors)


def _sum_of_sines():
    """The Panda config's sum-of-sines from Q0, ramped in over 1 s (control.trajectories)."""
    from ..control.reference.trajectories import make_reference
    return make_reference('sum_of_sines', Q0, [0.5, 0.3, 0.5, 0.4, 0.5, 0.4, 0.5],
                          [4.0, 5.0, 3.0, 4.5, 2.5, 3.5, 2.0], ramp=1.0)


def run_example(model, out, seconds=16.0, track_seconds=10.0):
    """Record, identify, compare. Returns the figures (errors of the estimates, tracking
    RMS with the plain and the identified model)."""
    plant = true_plant(model)
    plain = RigidBodyDynamics(model, friction_smoothing=0.01)
    excitation, cond = design_excitation(model, Q0, candidates=10)
    bag = os.path.join(out, 'excitation_bag')
    writer = BagWriter(bag, 'mcap')
    writer.add_topic(STATES, 'sensor_msgs/msg/JointState')
    track(plant, plain, excitation, seconds, writer, list(model.joint_names))
    writer.close()
    t, q, tau, source = motion_from_bag(bag, model.joint_names)
    result = identify(model, t, q, tau)
    assert result.payload is not None  # identify() fits the payload by default
    estimate = from_vector(result.payload)
    identified = RigidBodyDynamics(with_payload(model, result.payload), viscous=result.viscous,
                                   coulomb=result.coulomb, friction_smoothing=0.01)
    rms = {name: float(np.sqrt(np.mean(track(plant, law, _sum_of_sines(), track_seconds) ** 2,
                                       axis=0)).max())
           for name, law in (('plain URDF', plain), ('identified', identified))}
    return dict(
        effort_source=source, excitation_condition=cond, result=result,
        mass_error_pct=100 * abs(estimate.mass - TRUE_PAYLOAD.mass) / TRUE_PAYLOAD.mass,
        com_error_mm=1e3 * float(np.linalg.norm(estimate.com - TRUE_PAYLOAD.com)),
        viscous_error_pct=(100 * np.abs(result.viscous - TRUE_VISCOUS) / TRUE_VISCOUS).tolist(),
        coulomb_error_pct=(100 * np.abs(result.coulomb - TRUE_COULOMB) / TRUE_COULOMB).tolist(),
        tracking_rms=rms, ratio=rms['identified'] / rms['plain URDF'])
