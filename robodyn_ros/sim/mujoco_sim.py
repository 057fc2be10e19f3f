"""MuJoCo simulation of a RobotModel's chain (meshes and contacts dropped).

Joint position limits of the URDF are hard stops (MuJoCo joint limits), as on a real arm.
With ``brakes`` the joints are held at their initial positions until the first effort
command arrives, as a real arm's brakes hold it until its controller is active; meanwhile
the effort reads the torque the brakes hold, g(q0), as an arm's torque sensors read it (a
controller that starts from the effort it is told was applied then makes no step).

The MJCF is generated from the same RobotModel the controller uses: one body per
moving joint at the joint's origin, the lumped inertial of that body (off-chain
subtrees locked, as in the model), URDF damping as viscous damping and URDF friction
as MuJoCo frictionloss. Torques are applied as generalized forces and held between
steps, as an effort interface does.

The integrator is RK4 (fourth order: the tracking the demo measures is the controller's,
not the integrator's), except when a joint's damping time constant M_jj / b at q0 is
shorter than STIFF_STEPS timesteps: then MuJoCo's ``implicitfast``, which integrates
damping implicitly, so vendors' damping (KUKA: 10 N m s/rad on a 3e-4 kg m^2 joint, a
time constant of 30 us) stays stable at 1 ms, where RK4 diverges; the switch is said in
:attr:`MujocoSim.notes`. An inertia that violates the triangle
inequality (the model warns and uses it) is balanced by MuJoCo (``balanceinertia``) and
said in :attr:`MujocoSim.notes`. A diverged step (non-finite state, or MuJoCo's bad
acceleration warning, after which it resets silently) raises SimulationError.
"""

from dataclasses import dataclass

import numpy as np

from ..defaults import GRAVITY
from ..errors import InputError, SimulationError
from ..model.kinematics import check_vector

__all__ = ['mjcf_from_model', 'plugin_mjcf', 'MujocoSim', 'Obstacle', 'STIFF_STEPS',
           'damping_time_constants']

#: RK4 is kept while every joint's damping time constant is at least this many timesteps
#: (its stability limit on a damped joint is 2.8; its accuracy needs margin).
STIFF_STEPS = 4.0


def _quat(rot):
    import mujoco
    quat = np.zeros(4)
    mujoco.mju_mat2Quat(quat, np.ascontiguousarray(rot).reshape(9))
    return quat


def _fmt(values):
    return ' '.join(repr(float(v)) for v in values)


def damping_time_constants(model, q):
    """Per joint, M_jj(q) / b [s]: how fast its URDF damping b stops the joint alone
    (inf for an undamped joint); the simulator's integrator and the demo's compensation
    are chosen from it."""
    from ..dynamics import dh_chain, mass_matrix_jacobian
    damping = np.array([j.damping for j in model.joints])
    inertia = np.diag(mass_matrix_jacobian(dh_chain(model), np.asarray(q, dtype=float)))
    return np.where(damping > 0, inertia / np.where(damping > 0, damping, 1.0), np.inf)


def mjcf_from_model(model, gravity=GRAVITY, timestep=0.001, friction=True, dry_friction=True,
                    obstacle=None):
    """MJCF XML of the chain (base fixed to the world); ``friction``: URDF damping and,
    with ``dry_friction``, URDF friction as frictionloss. ``obstacle``: an Obstacle (a box
    fixed in the world, and a sphere at the tool that collides with it: the only contact
    pair; without it contacts are off)."""
    flag = '' if obstacle is not None else '<flag contact="disable"/>'
    lines = [f'<mujoco model="{model.name}">',
             f'  <option timestep="{timestep!r}" gravity="{_fmt(gravity)}" '
             f'integrator="RK4">{flag}</option>',
             '  <compiler angle="radian" autolimits="true" balanceinertia="true"/>',
             '  <worldbody>']
    if obstacle is not None:
        lines.append(f'    <geom name="obstacle" type="box" pos="{_fmt(obstacle.center)}" '
                     f'size="{_fmt(obstacle.half_size)}" contype="0" conaffinity="1"/>')
    indent = '    '
    last = len(model.joints) - 1
    for k, (joint, body) in enumerate(zip(model.joints, model.bodies)):
        pos, quat = joint.origin[:3, 3], _quat(joint.origin[:3, :3])
        lines.append(f'{indent}<body name="{joint.name}_body" pos="{_fmt(pos)}" '
                     f'quat="{_fmt(quat)}">')
        i = body.inertia
        inertia = (i[0, 0], i[1, 1], i[2, 2], i[0, 1], i[0, 2], i[1, 2])
        lines.append(f'{indent}  <inertial pos="{_fmt(body.com)}" mass="{body.mass!r}" '
                     f'fullinertia="{_fmt(inertia)}"/>')
        kind = 'slide' if joint.prismatic else 'hinge'
        damping = joint.damping if friction else 0.0
        loss = joint.friction if friction and dry_friction else 0.0
        limits = f'limited="true" range="{float(joint.lower)!r} {float(joint.upper)!r}"' \
            if np.isfinite(joint.lower) and np.isfinite(joint.upper) else 'limited="false"'
        lines.append(f'{indent}  <joint name="{joint.name}" type="{kind}" '
                     f'axis="{_fmt(joint.axis)}" damping="{damping!r}" '
                     f'frictionloss="{loss!r}" solreffriction="{2 * timestep!r} 1" '
                     f'{limits}/>')
        if obstacle is not None and k == last:
            lines.append(f'{indent}  <geom name="tool" type="sphere" '
                         f'size="{obstacle.tool_radius!r}" pos="{_fmt(model.tool[:3, 3])}" '
                         'density="0" contype="1" conaffinity="0"/>')
        indent += '  '
    for _ in model.joints:
        indent = indent[:-2]
        lines.append(f'{indent}</body>')
    lines += ['  </worldbody>', '</mujoco>']
    return '\n'.join(lines)


@dataclass(frozen=True)
class Obstacle:
    """A box fixed in the world that the tool can strike.

    Attributes:
        center: the box's centre in the base frame [m], (3,).
        half_size: its half extents along the base axes [m], (3,), each > 0.
        tool_radius: the radius of the sphere at the tool point (tip link origin plus the
            model's tool offset) that collides with it [m]; the arm's links do not.
    """

    center: tuple[float, float, float]
    half_size: tuple[float, float, float]
    tool_radius: float = 0.03

    @classmethod
    def from_values(cls, values, tool_radius=0.03):
        """From [cx cy cz hx hy hz] [m]; InputError naming what is wrong."""
        v = np.asarray(values, dtype=float)
        if v.shape != (6,) or not np.all(np.isfinite(v)) or not np.all(v[3:] > 0.0) or \
                not (np.isfinite(tool_radius) and 0.0 < tool_radius <= 1.0):
            raise InputError(f'obstacle: expected [cx cy cz hx hy hz] [m], finite, half sizes '
                             f'> 0, and a tool radius in (0, 1] m; got {v.tolist()}, '
                             f'{tool_radius}')
        return cls(tuple(v[:3]), tuple(v[3:]), float(tool_radius))


class MujocoSim:
    """Step a MuJoCo model of the chain with held effort commands.

    Args:
        model: RobotModel.
        q0: initial joint positions (default zeros).
        gravity: base-frame gravity [m/s^2].
        timestep: integration step [s].
        noise_std: standard deviation of position/velocity noise on the reported state.
        seed: noise generator seed.
        friction: URDF damping and friction in the simulated joints.
        dry_friction: with ``friction``, the URDF friction too (frictionloss); off, only
            the damping (what a controller compensates exactly: it is linear in qd).
        brakes: hold the joints until the first command (:meth:`set_command`).
        obstacle: an Obstacle the tool can strike (None: no contacts at all).
    """

    def __init__(self, model, q0=None, gravity=GRAVITY, timestep=0.001,
                 noise_std=(0.0, 0.0), seed=0, friction=True, brakes=False,
                 dry_friction=True, obstacle=None):
        import mujoco
        self.mujoco = mujoco
        self.robot = model
        self.obstacle = obstacle
        self.mj_model = mujoco.MjModel.from_xml_string(
            mjcf_from_model(model, gravity, timestep, friction, dry_friction, obstacle))
        self.data = mujoco.MjData(self.mj_model)
        n = model.n
        if q0 is not None:
            self.data.qpos[:] = check_vector(q0, n, 'q0')
        mujoco.mj_forward(self.mj_model, self.data)
        self.command = np.zeros(n)
        self.noise_std = noise_std
        self.rng = np.random.default_rng(seed)
        self.timestep = timestep
        self.braked = bool(brakes)
        if self.braked:  # the brakes hold the arm: its effort reads the torque they hold
            self.command = self.data.qfrc_bias.copy()  # g(q0): at rest, C(q, 0) 0 = 0
        #: What the simulation changed from the model (balanced inertias), one line each.
        self.notes = [f'simulator: {text.split(": inertia")[0]} balanced by MuJoCo '
                      '(balanceinertia); the controller uses it as given'
                      for text in model.warnings if 'triangle inequality' in text]
        self._bad = mujoco.mjtWarning.mjWARN_BADQACC
        self._choose_integrator(model, timestep, friction)
        self.push_wrench = np.zeros(6)
        self.push_window = (np.inf, np.inf)
        self._tip_body = self.mj_model.nbody - 1  # the chain's last body
        self._external = np.zeros(n)

    def _choose_integrator(self, model, timestep, friction):
        """implicitfast instead of RK4 when damping is stiff at this timestep (see the
        module docstring)."""
        if not friction or not any(j.damping > 0 for j in model.joints):
            return
        constant = damping_time_constants(model, self.data.qpos.copy())
        k = int(np.argmin(constant))
        if constant[k] < STIFF_STEPS * timestep:
            self.mj_model.opt.integrator = self.mujoco.mjtIntegrator.mjINT_IMPLICITFAST
            self.notes.append(
                f'simulator: joint {model.joints[k].name!r} damping time constant '
                f'{constant[k] * 1e6:.0f} us < {STIFF_STEPS:g} timesteps; integrator '
                'implicitfast instead of RK4')

    @property
    def time(self):
        """Simulated time [s]."""
        return float(self.data.time)

    def set_command(self, tau):
        """Hold ``tau`` (n,) [N m or N] until the next command; non-finite is rejected."""
        tau = np.asarray(tau, dtype=float)
        if tau.shape != self.command.shape or not np.all(np.isfinite(tau)):
            raise InputError(f'command: expected ({len(self.command)},) finite values')
        self.command = tau.copy()
        self.braked = False

    def set_push(self, wrench, start, duration):
        """Push the tool: the wrench [fx fy fz mx my mz] [N, N m] in the base_link frame at
        the tip_link origin, for sim times [start, start + duration) [s]."""
        wrench = np.asarray(wrench, dtype=float)
        if wrench.shape != (6,) or not np.all(np.isfinite(wrench)) or \
                not (np.isfinite(start) and np.isfinite(duration) and duration >= 0.0):
            raise InputError(f'push: expected 6 finite wrench values and a finite start and '
                             f'duration >= 0, got {wrench.tolist()}, {start}, {duration}')
        self.push_wrench = wrench
        self.push_window = (float(start), float(start) + float(duration))

    def external_torque(self):
        """The push's joint torque at the current state [N m or N], mapped by MuJoCo itself
        (mj_applyFT at the tool point): the ground truth of an external torque estimate;
        zeros outside the push."""
        self._external[:] = 0.0
        start, end = self.push_window
        if not start <= self.data.time < end or not self.push_wrench.any():
            return self._external.copy()
        self.mujoco.mj_kinematics(self.mj_model, self.data)  # poses at the current qpos
        self.mujoco.mj_comPos(self.mj_model, self.data)
        body = self._tip_body
        rot = self.data.xmat[body].reshape(3, 3)
        point = self.data.xpos[body] + rot @ self.robot.tool[:3, 3]
        self.mujoco.mj_applyFT(self.mj_model, self.data, self.push_wrench[:3].copy(),
                               self.push_wrench[3:].copy(), point, body, self._external)
        return self._external.copy()

    def contact(self):
        """(joint torque [N m or N], normal force [N]) of the tool's contact with the
        obstacle in the last step: MuJoCo's contact forces mapped through its own
        constraint Jacobian (the ground truth of a collision observer); zeros without."""
        torque = np.zeros(self.robot.n)
        if self.obstacle is None or self.data.ncon == 0:
            return torque, 0.0
        m, d = self.mj_model, self.data
        contact_rows = np.isin(d.efc_type, (
            self.mujoco.mjtConstraint.mjCNSTR_CONTACT_FRICTIONLESS,
            self.mujoco.mjtConstraint.mjCNSTR_CONTACT_PYRAMIDAL,
            self.mujoco.mjtConstraint.mjCNSTR_CONTACT_ELLIPTIC))
        force = np.where(contact_rows, d.efc_force, 0.0)
        self.mujoco.mj_mulJacTVec(m, d, torque, force)
        normal, frame = 0.0, np.zeros(6)
        for i in range(d.ncon):
            self.mujoco.mj_contactForce(m, d, i, frame)
            normal += frame[0]
        return torque, normal

    def step(self):
        """Advance one timestep with the held command (braked: time only) and the push."""
        if self.braked:
            self.data.time += self.timestep
            return
        self.data.qfrc_applied[:] = self.command + self.external_torque()
        before = self.data.warning[self._bad].number
        self.mujoco.mj_step(self.mj_model, self.data)
        if self.data.warning[self._bad].number != before or \
                not (np.all(np.isfinite(self.data.qpos)) and np.all(np.isfinite(self.data.qvel))):
            raise SimulationError(
                f'simulation diverged at t = {self.data.time:.4f} s (timestep '
                f'{self.timestep:g} s, |qd| up to {np.abs(self.data.qvel).max():.3g}); '
                'the result would not be a measurement')

    def state(self):
        """(q, qd, applied effort), with the configured noise on q and qd."""
        q = self.data.qpos.copy()
        qd = self.data.qvel.copy()
        if self.noise_std[0] > 0:
            q += self.rng.normal(0.0, self.noise_std[0], q.shape)
        if self.noise_std[1] > 0:
            qd += self.rng.normal(0.0, self.noise_std[1], qd.shape)
        return q, qd, self.command.copy()


def plugin_mjcf(model, q0, gravity=GRAVITY, timestep=0.001, obstacle=None):
    """MJCF for mujoco_ros2_control's hardware plugin: the chain as :class:`MujocoSim` has
    it (same integrator choice, balanced inertias), one ``motor`` actuator per joint named
    as the joint (effort = ctrl, unlimited: ros2_control bounds the commands) and the
    keyframe ``home`` at ``q0``; ``obstacle`` (an :class:`Obstacle`) as MujocoSim has it.
    Returns (xml, notes)."""
    import xml.etree.ElementTree as ET
    sim = MujocoSim(model, q0, gravity, timestep, obstacle=obstacle)
    root = ET.fromstring(mjcf_from_model(model, gravity, timestep, obstacle=obstacle))
    if sim.mj_model.opt.integrator != sim.mujoco.mjtIntegrator.mjINT_RK4:
        option = root.find('option')
        assert option is not None  # mjcf_from_model writes one
        option.set('integrator', 'implicitfast')
    actuators = ET.SubElement(root, 'actuator')
    for joint in model.joints:
        ET.SubElement(actuators, 'motor', name=joint.name, joint=joint.name, gear='1',
                      ctrllimited='false')
    keyframe = ET.SubElement(root, 'keyframe')
    ET.SubElement(keyframe, 'key', name='home', qpos=_fmt(check_vector(q0, model.n, 'q0')))
    return ET.tostring(root, encoding='unicode'), list(sim.notes)
