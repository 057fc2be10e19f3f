"""MuJoCo simulated arm behaving like ros2_control with an effort controller.

Subscribes the command topic (std_msgs/Float64MultiArray, held between steps, as a forward
effort controller holds its last command) and publishes joint_states (position, velocity,
applied effort) and, optionally, /clock. URDF position limits are hard stops; with
``brakes`` the arm is held at q0 until the first command arrives. Free running, it steps on
the wall clock but at most ``wait_for_command`` steps past the last command: a controller
descheduled on a loaded machine pauses simulated time instead of leaving the arm on a stale
torque (sim/command_pacer.py).
"""

import dataclasses
import time

import numpy as np
from rclpy.node import Node
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory

from ..control import JointMap
from ..defaults import COMMAND_TOPIC, GRAVITY, JOINT_STATES
from ..errors import ConfigError, ModelError, RobodynError, SimulationError
from ..sim import MujocoSim
from ..sim.command_pacer import CommandPacer
from ..sim.jtc_emulation import JtcEmulator
from ..sim.mujoco_sim import Obstacle
from .node_messages import to_time
from .node_parameters import declare, declare_robot, model_from_parameters
from .node_runner import run_node

#: Side of the uniform cube a payload's default inertia is [m].
CUBE_SIDE = 0.1

__all__ = ['SimNode', 'main']


def _declare_parameters(node):
    """Every parameter of the simulator node (the one declaration its docs come from)."""
    declare_robot(node)
    declare(node, 'q0', [0.0], 'initial joint positions [rad or m] (default zeros)',
            dynamic=True)
    declare(node, 'effort_limits', [], "override the URDF's effort limits, 1 or n [N m or "
            "N] (empty: the URDF's)", dynamic=True)
    declare(node, 'rate', 1000.0, 'simulation and state publishing rate [Hz]',
            dynamic=True)
    declare(node, 'command_topic', COMMAND_TOPIC, 'effort command topic')
    declare(node, 'brakes', True, 'hold the joints at q0 until the first effort command')
    declare(node, 'damping', [-1.0], 'joint damping override, 1 or n [N m s/rad] '
            "(negative: the URDF's)")
    declare(node, 'dry_friction', True, "simulate the URDF's joint friction (Coulomb, as "
            'frictionloss); false: only its damping')
    declare(node, 'publish_clock', True, 'publish /clock (simulated time)')
    declare(node, 'lockstep', False, 'step only when driven (in-process bringup)')
    declare(node, 'wait_for_command', 3, 'free running: steps the sim may take past the last '
            'effort command before it waits for the next (0: never wait; sim/command_pacer.py)')
    declare(node, 'command_wait_timeout', 0.5, 'free running: longest wait for a command '
            '[s, wall], then the sim runs free until a command arrives (a controller that '
            'stopped)')
    declare(node, 'payload.mass', 0.0, 'a payload at the tip that the simulated arm carries '
            '[kg] (0: none; the controller knows only its own payload parameters)')
    declare(node, 'payload.com', [0.0, 0.0, 0.0], 'its centre of mass in the tip frame [m]')
    declare(node, 'payload.inertia', [0.0] * 6, 'its inertia about the com, xx xy xz yy yz '
            'zz [kg m^2] (zeros: a uniform 0.1 m cube of its mass)')
    declare(node, 'position_noise', 0.0, 'std of position noise [rad or m]', dynamic=True)
    declare(node, 'velocity_noise', 0.0, 'std of velocity noise [rad/s or m/s]', dynamic=True)
    declare(node, 'gravity', list(GRAVITY), 'gravity in the base frame [m/s^2]',
            dynamic=True)
    declare(node, 'command_interface', 'effort',
            "'effort': forward effort controller on command_topic; 'joint_trajectory': "
            'an emulated JTC (PD + effort feed-forward) on jtc_topic')
    declare(node, 'jtc_topic', 'joint_trajectory_controller/joint_trajectory',
            'JTC command topic (command_interface joint_trajectory)')
    declare(node, 'jtc_kp', [100.0], 'JTC PD gains, 1 or n [N m/rad]', dynamic=True)
    declare(node, 'jtc_kd', [10.0], 'JTC PD gains, 1 or n [N m s/rad]', dynamic=True)
    declare(node, 'push_wrench', [0.0] * 6, 'push the tool: [fx fy fz mx my mz] in the base '
            'frame at the tip link origin [N, N m] (zeros: none); its joint torque is '
            'published on ~/external_torque (the ground truth of the collision observer)')
    declare(node, 'push_start', 1.0, 'simulated time the push starts [s]')
    declare(node, 'push_duration', 0.5, 'how long the push lasts [s]')
    declare(node, 'obstacle', [], 'a box fixed in the world: [cx cy cz hx hy hz], '
            'centre and half sizes in the base frame [m] (empty: none); a sphere of '
            "tool_radius at the tool strikes it (the only contact), and the contact's joint "
            'torque is published on ~/external_torque too', dynamic=True)
    declare(node, 'tool_radius', 0.03, 'radius of the tool sphere that strikes the '
            'obstacle [m]')

class SimNode(Node):
    """Simulated arm; in ``lockstep`` mode a driver calls :meth:`publish_state` / :meth:`step`."""

    def __init__(self, **kwargs):
        super().__init__('robodyn_sim', **kwargs)
        _declare_parameters(self)
        p = self.get_parameter
        model = model_from_parameters(self)
        if model is None:
            raise ConfigError('sim: set robot_description, urdf_file or robot')
        q0 = [float(v) for v in p('q0').value]
        model = _with_damping(model, p('damping').value)
        model = _with_payload(model, p('payload.mass').value, p('payload.com').value,
                              p('payload.inertia').value)
        self.model = model
        self.sim = MujocoSim(model, q0 if len(q0) == model.n else None, p('gravity').value,
                             1.0 / p('rate').value,
                             (p('position_noise').value, p('velocity_noise').value),
                             brakes=p('brakes').value, dry_friction=p('dry_friction').value,
                             obstacle=_obstacle(p('obstacle').value, p('tool_radius').value))
        for text in (*model.warnings, *self.sim.notes):
            self.get_logger().warning(text)
        self.commands = 0
        self.finished = False  # run_node ends the process when set
        # 100 states of history (0.1 s at 1 kHz): a reliable reader that falls behind for a
        # few ms (a recorder beside two 1 kHz processes on 2 cores) still gets every one
        self.state_pub = self.create_publisher(JointState, JOINT_STATES, 100)
        self.clock_pub = self.create_publisher(Clock, '/clock', 10) \
            if p('publish_clock').value else None
        self.truth_pub = self._push(p('push_wrench').value, p('push_start').value,
                                    p('push_duration').value)
        self.jtc = None
        self.joint_map = JointMap(model.joint_names)
        if p('command_interface').value == 'joint_trajectory':
            n = model.n
            gains = [np.resize(np.asarray(p(k).value, dtype=float), n)
                     for k in ('jtc_kp', 'jtc_kd')]
            self.jtc = JtcEmulator(gains[0], gains[1], self.sim.state()[0])
            self.create_subscription(JointTrajectory, p('jtc_topic').value,
                                     self.on_jtc_trajectory, 10)
        elif p('command_interface').value == 'effort':
            self.create_subscription(Float64MultiArray, p('command_topic').value,
                                     self.on_command, 10)
        else:
            raise ConfigError(f"command_interface: unknown value "
                               f"{p('command_interface').value!r}; valid: effort, "
                               'joint_trajectory')
        try:
            self.pacer = CommandPacer(p('wait_for_command').value,
                                      p('command_wait_timeout').value)
        except (TypeError, ValueError) as exc:
            raise ConfigError(str(exc)) from None
        if not p('lockstep').value:
            self.create_timer(1.0 / p('rate').value, self.on_timer)

    def _push(self, wrench, start, duration):
        """Configure the push; the ground-truth publisher, or None without a push or an
        obstacle."""
        if not any(float(v) for v in wrench):
            return None if self.sim.obstacle is None else \
                self.create_publisher(JointState, '~/external_torque', 10)
        try:
            self.sim.set_push([float(v) for v in wrench], float(start), float(duration))
        except (RobodynError, TypeError, ValueError) as exc:
            raise ConfigError(f'push_wrench / push_start / push_duration: {exc}') from None
        return self.create_publisher(JointState, '~/external_torque', 10)

    def on_command(self, msg):
        """Hold a new effort command; wrong length or non-finite values are ignored."""
        try:
            self.sim.set_command(np.asarray(msg.data))
        except RobodynError as exc:
            self.get_logger().error(f'command ignored: {exc}', throttle_duration_sec=1.0)
            return
        self.commands += 1
        self.pacer.on_command(time.monotonic())

    def on_jtc_trajectory(self, msg):
        """Emulated JTC: follow the points (chain joint order) from now."""
        jtc = self.jtc
        if jtc is None:  # the subscription exists only with the emulated JTC
            return
        try:
            index = self.joint_map.index(msg.joint_names)
            arrays = [np.array([np.asarray(getattr(pt, f), dtype=float)[index]
                                if len(getattr(pt, f)) else np.zeros(self.model.n)
                                for pt in msg.points])
                      for f in ('positions', 'velocities', 'accelerations', 'effort')]
            times = [pt.time_from_start.sec + pt.time_from_start.nanosec * 1e-9
                     for pt in msg.points]
            has_effort = all(len(pt.effort) for pt in msg.points)
            q, qd, qdd, effort = arrays
            jtc.set_trajectory(self.sim.time, times, q, qd, qdd, effort if has_effort else None)
        except (RobodynError, IndexError, ValueError) as exc:
            self.get_logger().error(f'JTC trajectory rejected: {exc}')
            return
        self.sim.braked = False
        self.commands += 1

    def publish_state(self):
        """Publish /clock and /joint_states at the current simulated time."""
        stamp = to_time(self.sim.time)
        if self.clock_pub is not None:
            self.clock_pub.publish(Clock(clock=stamp))
        q, qd, tau = self.sim.state()
        msg = JointState()
        msg.header.stamp = stamp
        msg.name = list(self.model.joint_names)
        msg.position, msg.velocity, msg.effort = q.tolist(), qd.tolist(), tau.tolist()
        self.state_pub.publish(msg)
        if self.truth_pub is not None:
            truth = JointState()
            truth.header.stamp, truth.name = stamp, msg.name
            truth.effort = (self.sim.external_torque() + self.sim.contact()[0]).tolist()
            self.truth_pub.publish(truth)

    def step(self):
        """Advance the simulation one step with the held command (or the emulated JTC's)."""
        if self.jtc is not None and not self.sim.braked:
            q, qd, _ = self.sim.state()
            effort = self.model.effort_limits
            self.sim.command = np.clip(self.jtc.command(self.sim.time, q, qd), -effort, effort)
        self.sim.step()

    def on_timer(self):
        """Free-running mode: step and publish. A diverged simulation is said once and
        ends the node (no state after it: the controller's watchdog goes safe)."""
        if self.finished or not self.pacer.may_step(time.monotonic()):
            return
        try:
            self.step()
        except SimulationError as exc:
            self.get_logger().error(str(exc))
            self.finished = True
            return
        self.publish_state()

    def destroy_node(self):
        """Say how often the free-running sim waited for its controller, then go (no
        pacer: the constructor refused a parameter before making it)."""
        pacer = getattr(self, 'pacer', None)
        if pacer is not None and (pacer.waits or pacer.timeouts):
            self.get_logger().info(pacer.summary())
        super().destroy_node()


def _obstacle(values, tool_radius):
    """The Obstacle of the parameters, None for an empty list; ConfigError naming them."""
    if len(values) == 0:
        return None
    try:
        return Obstacle.from_values([float(v) for v in values], float(tool_radius))
    except (RobodynError, TypeError, ValueError) as exc:
        raise ConfigError(f'obstacle / tool_radius: {exc}') from None


def _with_payload(model, mass, com, inertia):
    """``model`` carrying a payload of ``mass`` [kg] at ``com`` (tip frame) [m], inertia
    about the com (6 values; zeros: a uniform 0.1 m cube's); ConfigError naming a bad one."""
    from ..model.payload import payload_inertial, with_payload
    if float(mass) == 0.0:
        return model
    values = [float(v) for v in inertia]
    if not any(values):
        side = CUBE_SIDE ** 2 * float(mass) / 6.0
        values = [side, 0.0, 0.0, side, 0.0, side]
    try:
        return with_payload(model, payload_inertial(float(mass), list(com), values), xml=False)
    except (ModelError, ValueError) as exc:
        raise ConfigError(f'sim payload: {exc}') from None


def _with_damping(model, damping):
    """The model with the damping override applied (negative entries: the URDF's)."""
    values = np.resize(np.asarray(damping, dtype=float), model.n)
    if len(damping) not in (1, model.n) or not np.all(np.isfinite(values)):
        raise ConfigError(f'damping: expected 1 or {model.n} finite values, got '
                           f'{list(damping)}')
    joints = tuple(j if v < 0 else dataclasses.replace(j, damping=float(v))
                   for j, v in zip(model.joints, values))
    return dataclasses.replace(model, joints=joints)


def main(args=None):
    """Run the simulator node until shutdown."""
    return run_node(SimNode, 'sim', args, events_executor=True)


if __name__ == '__main__':
    raise SystemExit(main())
