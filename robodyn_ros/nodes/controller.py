"""Computed-torque controller node: /joint_states in, effort commands out.

Subscriptions: /joint_states (sensor_msgs/JointState, mapped by name),
~/joint_trajectory (trajectory_msgs/JointTrajectory), /robot_description (when no
URDF parameter is set; transient local). Publications: the command topic
(std_msgs/Float64MultiArray, or trajectory_msgs/JointTrajectory with efforts),
~/reference (sensor_msgs/JointState: q_r, qd_r, commanded effort), /diagnostics.
"""

import time

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
import numpy as np
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from ..control import ControlLaw, LawConfig, SafetyFilter, SplineTrajectory, make_reference
from ..dynamics import RigidBodyDynamics
from ..errors import RobodynError
from .common import (
    ROBOT_DESCRIPTION_QOS,
    declare,
    declare_robot,
    model_from_parameters,
    run_node,
    to_time,
)

__all__ = ['ControllerNode', 'main']


def _stamp_to_sec(stamp):
    return stamp.sec + stamp.nanosec * 1e-9


class ControllerNode(Node):
    """Dynamics-based effort controller for ros2_control (see module docstring)."""

    def __init__(self, **kwargs):
        super().__init__('robodyn_controller', **kwargs)
        declare_robot(self)
        declare(self, 'joints', [''], 'joint order of the commands (default: chain order)')
        self.rate = declare(self, 'rate', 1000.0, 'control rate [Hz]')
        declare(self, 'trigger', 'timer', "'timer' (fixed rate) or 'state' (each new state)")
        declare(self, 'mode', 'computed_torque', 'computed_torque | feedforward | gravity')
        declare(self, 'reference', 'hold',
                'hold | one_minus_cos | sum_of_sines (JointTrajectory messages override)')
        declare(self, 'amplitudes', [0.0], 'reference amplitudes [rad or m], per joint')
        declare(self, 'periods', [0.0], 'reference periods [s], per joint')
        declare(self, 'ramp', 1.0, 'sum_of_sines smooth-start duration [s]')
        declare(self, 'interpolation', 'quintic', 'JointTrajectory interpolation: quintic|cubic')
        declare(self, 'kp', [0.0], 'proportional gains per joint')
        declare(self, 'kd', [0.0], 'derivative gains per joint')
        declare(self, 'include_gravity', True,
                'add g(q); false for robots that compensate gravity internally')
        declare(self, 'include_friction', True, 'add the viscous + Coulomb friction model')
        declare(self, 'friction_smoothing', 0.01, 'tanh velocity scale [rad/s] for sgn(qd)')
        declare(self, 'feedforward_pd', True, 'feedforward mode: add the PD term')
        declare(self, 'gravity', [0.0, 0.0, -9.81], 'gravity in the base frame [m/s^2]')
        declare(self, 'command_topic', '/effort_controller/commands', 'effort command topic')
        declare(self, 'command_type', 'float64_multi_array',
                'float64_multi_array | joint_trajectory (efforts as feedforward)')
        declare(self, 'state_timeout', 0.05, 'max age of /joint_states before refusing [s]')
        declare(self, 'diagnostics_period', 0.1, 'period of /diagnostics [s]')

        self.dyn = None
        self.law = None
        self.safety = None
        self.ref = None
        self.ref_t0 = None
        self.index = None
        self.names_key = None
        self.state = None
        self.state_time = None
        self.last_error = ''
        self.compute_us = []
        self.cycle_times = []
        self.cycles = 0
        self.last_diag = None
        self.command_count = 0

        p = self.get_parameter
        command_type = p('command_type').value
        self.command_is_trajectory = command_type == 'joint_trajectory'
        self.cmd_pub = self.create_publisher(
            JointTrajectory if command_type == 'joint_trajectory' else Float64MultiArray,
            p('command_topic').value, 10)
        self.ref_pub = self.create_publisher(JointState, '~/reference', 10)
        self.diag_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self.create_subscription(JointState, '/joint_states', self.on_joint_states, 10)
        self.create_subscription(JointTrajectory, '~/joint_trajectory', self.on_trajectory, 10)
        self.load_model()
        if self.dyn is None:
            self.create_subscription(String, '/robot_description', self.on_description,
                                     ROBOT_DESCRIPTION_QOS)
            self.get_logger().info('waiting for /robot_description')
        # Hot-path parameters, read once (restart the node to change them).
        self.trigger = p('trigger').value
        self.state_timeout = p('state_timeout').value
        self.diagnostics_period = p('diagnostics_period').value
        self.mode = p('mode').value
        if self.trigger == 'timer':
            self.create_timer(1.0 / self.rate, self.on_timer)

    # -- model ------------------------------------------------------------------------
    def load_model(self, xml=None):
        """(Re)build model, dynamics, law and safety filter; log and stay idle on error."""
        p = self.get_parameter
        try:
            model = model_from_parameters(self, xml)
            if model is None:
                return
            dyn = RigidBodyDynamics(model, gravity=p('gravity').value,
                                    friction_smoothing=p('friction_smoothing').value)
            joints = [j for j in p('joints').value if j]
            if joints and sorted(joints) != sorted(model.joint_names):
                raise RobodynError(f'joints parameter {joints} does not match the chain '
                                   f'{list(model.joint_names)}')
            self.out_order = np.array([model.joint_names.index(j) for j in joints]) \
                if joints else np.arange(model.n)
            self.out_names = [model.joint_names[i] for i in self.out_order]
            kp = self._per_joint(p('kp').value, model.n, 'kp')
            kd = self._per_joint(p('kd').value, model.n, 'kd')
            law = ControlLaw(dyn, LawConfig(p('mode').value, kp, kd, p('include_gravity').value,
                                            p('include_friction').value,
                                            p('feedforward_pd').value))
        except RobodynError as exc:
            self.get_logger().error(f'cannot load the robot model: {exc}')
            return
        self.dyn, self.law = dyn, law
        self.safety = SafetyFilter(model.effort_limits)
        self.get_logger().info(f'model {model.name}: {model.n} joints {model.joint_names}, '
                               f'mode {p("mode").value}')

    @staticmethod
    def _per_joint(values, n, name):
        values = [float(v) for v in values]
        if len(values) == 1:
            return np.full(n, values[0])
        if len(values) != n:
            raise RobodynError(f'{name}: expected 1 or {n} values, got {len(values)}')
        return np.array(values)

    def on_description(self, msg):
        """robot_description topic (transient local)."""
        if self.dyn is None:
            self.load_model(msg.data)

    # -- state ------------------------------------------------------------------------
    def _error(self, text):
        if text != self.last_error:
            self.get_logger().error(text)
            self.last_error = text

    def on_joint_states(self, msg):
        """Map the state by name; reject malformed or incomplete messages."""
        if self.dyn is None:
            return
        names = tuple(msg.name)
        if names != self.names_key:
            lookup = {name: i for i, name in enumerate(names)}
            missing = [j for j in self.dyn.model.joint_names if j not in lookup]
            if missing:
                self._error(f'/joint_states lacks joints {missing}; has {list(names)}')
                self.index = None
                self.names_key = names
                return
            self.index = np.array([lookup[j] for j in self.dyn.model.joint_names])
            self.names_key = names
        if self.index is None:
            return
        if len(msg.position) != len(names) or len(msg.velocity) != len(names):
            self._error('/joint_states: position and velocity must match name '
                        f'({len(names)}), got {len(msg.position)} and {len(msg.velocity)}')
            return
        q = np.asarray(msg.position)[self.index]
        qd = np.asarray(msg.velocity)[self.index]
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(qd))):
            self._error('/joint_states holds non-finite values; no command')
            return
        stamp = _stamp_to_sec(msg.header.stamp)
        if stamp == 0.0:
            stamp = self.get_clock().now().nanoseconds * 1e-9
        self.state = (q, qd)
        self.state_time = stamp
        if self.ref is None:
            self._start_reference(q, stamp)
        if self.trigger == 'state':
            self.control(stamp)

    def _start_reference(self, q0, t0):
        p = self.get_parameter
        amps = [a for a in p('amplitudes').value] or None
        pers = [x for x in p('periods').value] or None
        if amps is not None and all(a == 0.0 for a in amps):
            amps = None
        if pers is not None and all(x == 0.0 for x in pers):
            pers = None
        try:
            self.ref = make_reference(p('reference').value, q0, amps, pers, p('ramp').value)
        except RobodynError as exc:
            self._error(f'reference: {exc}; holding position')
            self.ref = make_reference('hold', q0)
        self.ref_t0 = t0

    def on_trajectory(self, msg):
        """Follow a JointTrajectory from the current reference state."""
        if self.dyn is None or self.state is None:
            self._error('JointTrajectory ignored: no model or state yet')
            return
        names = self.dyn.model.joint_names
        lookup = {name: i for i, name in enumerate(msg.joint_names)}
        unknown = [j for j in msg.joint_names if j not in names]
        if unknown or not msg.points:
            self._error(f'JointTrajectory rejected: unknown joints {unknown} or no points; '
                        f'valid joints {list(names)}')
            return
        now = self.state_time
        q_r, qd_r, qdd_r = self.ref(now - self.ref_t0)
        m, n = len(msg.points), len(names)
        pos = np.tile(q_r, (m, 1))
        vel = np.zeros((m, n))
        acc = np.zeros((m, n))
        times = []
        for k, point in enumerate(msg.points):
            times.append(point.time_from_start.sec + point.time_from_start.nanosec * 1e-9)
            for j, name in enumerate(names):
                if name in lookup:
                    idx = lookup[name]
                    pos[k, j] = point.positions[idx]
                    if len(point.velocities) == len(msg.joint_names):
                        vel[k, j] = point.velocities[idx]
                    if len(point.accelerations) == len(msg.joint_names):
                        acc[k, j] = point.accelerations[idx]
        try:
            self.ref = SplineTrajectory((q_r, qd_r, qdd_r), times, pos, vel, acc, t0=0.0,
                                        kind=self.get_parameter('interpolation').value)
        except RobodynError as exc:
            self._error(f'JointTrajectory rejected: {exc}')
            return
        self.ref_t0 = now
        self.get_logger().info(f'following a {m}-point trajectory over {times[-1]:.3f} s')

    # -- control ----------------------------------------------------------------------
    def on_timer(self):
        """Fixed-rate cycle."""
        self.control(self.get_clock().now().nanoseconds * 1e-9)

    def control(self, now):
        """One control cycle at time ``now`` [s]: law -> safety filter -> publish."""
        if self.dyn is None or self.state is None:
            return
        age = now - self.state_time
        timeout = self.state_timeout
        if age > timeout:
            self._error(f'/joint_states is stale ({age * 1e3:.1f} ms > {timeout * 1e3:.0f} ms);'
                        ' no command')
            return
        t0 = time.perf_counter()
        q, qd = self.state
        q_r, qd_r, qdd_r = self.ref(now - self.ref_t0)
        try:
            tau = self.law(q, qd, q_r, qd_r, qdd_r)
        except RobodynError as exc:
            self._error(f'control law failed: {exc}; holding last command')
            tau = np.full(self.dyn.n, np.nan)
        tau = self.safety(tau)
        self.compute_us.append((time.perf_counter() - t0) * 1e6)
        self.publish(tau, q_r, qd_r, now)
        self.cycle_times.append(now)
        self.cycles += 1
        if self.last_diag is None or now - self.last_diag >= self.diagnostics_period:
            self.publish_diagnostics(now, age)

    def publish(self, tau, q_r, qd_r, now):
        """Send the command (controller joint order) and the reference."""
        order = self.out_order
        if self.command_is_trajectory:
            msg = JointTrajectory()
            msg.joint_names = self.out_names
            point = JointTrajectoryPoint()
            point.positions = q_r[order].tolist()
            point.velocities = qd_r[order].tolist()
            point.effort = tau[order].tolist()
            msg.points = [point]
        else:
            msg = Float64MultiArray()
            msg.data = tau[order].tolist()
        self.cmd_pub.publish(msg)
        self.command_count += 1
        ref = JointState()
        ref.header.stamp = to_time(now)
        ref.name = list(self.dyn.model.joint_names)
        ref.position = q_r.tolist()
        ref.velocity = qd_r.tolist()
        ref.effort = tau.tolist()
        self.ref_pub.publish(ref)

    def publish_diagnostics(self, now, age):
        """Compute time, state age, achieved rate and mode on /diagnostics."""
        window = np.asarray(self.compute_us[-2000:])
        times = np.asarray(self.cycle_times[-2000:])
        del self.compute_us[:-2000], self.cycle_times[:-2000]
        rate = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 and \
            times[-1] > times[0] else 0.0
        status = DiagnosticStatus()
        status.name = 'robodyn_controller'
        status.hardware_id = self.dyn.model.name
        status.level = DiagnosticStatus.OK if self.safety.faults == 0 else DiagnosticStatus.WARN
        status.message = self.mode
        values = dict(mode=self.mode, rate_hz=f'{rate:.3f}',
                      compute_p50_us=f'{np.percentile(window, 50):.2f}',
                      compute_p99_us=f'{np.percentile(window, 99):.2f}',
                      compute_max_us=f'{window.max():.2f}', state_age_ms=f'{age * 1e3:.3f}',
                      cycles=str(self.cycles), faults=str(self.safety.faults),
                      clamped=str(self.safety.clamped))
        status.values = [KeyValue(key=k, value=v) for k, v in values.items()]
        msg = DiagnosticArray()
        msg.header.stamp = to_time(now)
        msg.status = [status]
        self.diag_pub.publish(msg)
        self.last_diag = now


def main(args=None):
    """Run the controller node until shutdown."""
    return run_node(ControllerNode, 'controller', args)


if __name__ == '__main__':
    main()
