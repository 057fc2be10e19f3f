"""robodyn controller: a lifecycle node driving an effort-controlled arm.

Lifecycle (as ros2_control controllers): configure = read and check every parameter, load
the model, warm up the compiled kernels; activate = ramp in from the current output at the
first valid state; deactivate / shutdown / SIGINT / SIGTERM = ramp (within the torque-rate
limit) to the safe command and publish it last. ``autostart: true`` configures and
activates at start-up (launch files, the demo).

Topics (relative names): in joint_states (keep-last 1: the freshest state; CDR bytes read
in place, see io.cdr.JointStateLayout), ~/joint_trajectory and ~/follow_joint_trajectory
(received by the input gateway's process, which forwards what is within bounds:
input_gateway.py), robot_description (transient local, when no URDF parameter is set);
out <command_topic> (Float64MultiArray effort [N m or N], ``joints`` order) and
~/reference (JointState q_r, qd_r, effort, stamped in the states' time base), both written
as CDR bytes without message objects; /diagnostics. All pacing uses the steady clock; the
core (robodyn_ros.control.ControllerCore) does everything else.
"""

from dataclasses import dataclass, field
import gc
import sys
import time

from diagnostic_msgs.msg import DiagnosticArray
from rclpy.clock import Clock, ClockType
from rclpy.duration import Duration
from rclpy.lifecycle import LifecycleNode, TransitionCallbackReturn
from rclpy.publisher import Publisher
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.timer import Timer
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from trajectory_msgs.msg import JointTrajectory

from ..control import ControllerConfig, ControllerCore
from ..control.controller_config import diagnostics_period_or_default
from ..control.cycle_timer import CycleTimer
from ..control.events import EventKind, emit
from ..control.levels import Level
from ..control.options import Trigger
from ..control.parameters import PARAMETERS, RUNTIME
from ..control.safety.supervisor import HELD
from ..defaults import CONTROLLER_NAME, DIAGNOSTICS_TOPIC, JOINT_STATES
from ..errors import ConfigError, RobodynError
from ..io.cdr import Float64MultiArrayWriter, JointStateLayout, JointStateWriter, stamp_parts
from .between_cycles import apply_requests
from .command_consumer import CommandConsumer
from .gateway_process import GatewayProcess, SpareGateway, start_gateway
from .input_gateway import INTERNAL
from .latest_worker import LatestWorker
from .node_support import (
    ROBOT_DESCRIPTION_QOS,
    EventGate,
    declare,
    declare_robot,
    diagnostic_array,
    guarded,
    log_events,
    model_from_parameters,
    robot_named,
    run_node,
)
from .outlet import Outlet, Outlets
from .parameter_host import ParameterHost
from .runtime_parameters import apply_runtime_parameters
from .sim_clock_start import SimClockStart
from .trajectory_interfaces import TrajectoryInterfaces
from .trajectory_worker import TrajectoryWorker

__all__ = ['ControllerNode', 'Configured', 'main']

STATE_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT)
#: The controller's own topics (relative names): command_topic must differ from each.
OWN_TOPICS = (JOINT_STATES, '~/joint_trajectory', '~/reference', '~/controller_state',
              'robot_description', DIAGNOSTICS_TOPIC, '~/follow_joint_trajectory',
              f'~/{INTERNAL}/joint_trajectory', f'~/{INTERNAL}/refused', '~/external_torque',
              '~/tool_wrench')
#: The interpreter's switch interval [s]: a worker thread gives the lock back this often.
SWITCH_INTERVAL = 5e-4
#: Shortest time between two payload preparations [s]: a storm of parameter sets is
#: coalesced to the newest, at most 5 per second (a preparation holds the interpreter
#: about 2.5 ms; a real payload changes at a grasp, not faster).
PAYLOAD_INTERVAL = 0.2
#: The final ramp's wall-time budget [s] (the process exits 2 s after a signal at most).
FINAL_RAMP_BUDGET = 1.0


@dataclass(eq=False)
class Configured:
    """Everything configure builds and cleanup destroys, in one object: the node holds it
    or None (unconfigured), and a callback reads that one reference and finds the core, its
    entities and its workers consistent (the lifecycle_py demo's entities, declared up
    front).

    The command and reference go out on plain publishers, not realtime ones: the final
    ramp publishes during deactivate, from the transition's thread, and must be heard.
    """

    core: ControllerCore
    cmd_pub: Outlet  # <command_topic>: Float64MultiArray bytes (cmd_wire)
    ref_pub: Outlet  # ~/reference: JointState bytes (ref_wire)
    cmd_wire: Float64MultiArrayWriter
    ref_wire: JointStateWriter
    worker: TrajectoryWorker  # JointTrajectory bytes -> spline, off the control thread
    payload_worker: LatestWorker  # payload preparations, newest wins
    cycle_timer: CycleTimer  # when the timer fires (control/cycle_timer.py)
    timer: Timer
    interfaces: TrajectoryInterfaces  # FollowJointTrajectory, ~/controller_state
    gateway: GatewayProcess | None  # receives the trajectories and goals (input_gateway)
    consumer: CommandConsumer  # the forward controller that applies the commands
    entities: list = field(default_factory=list)  # destroyed at cleanup
    layout: JointStateLayout | None = None  # of the last JointState received


class ControllerNode(LifecycleNode):
    """Computed-torque controller (see the module docstring)."""

    exit_after_close = True  #: run_node exits after close(): DDS teardown took > 2 s loaded

    def __init__(self, spare: SpareGateway | None = None, **kwargs):
        # Parameter services on their own thread (parameter_host.py): a storm must not stall
        super().__init__(CONTROLLER_NAME, start_parameter_services=False, **kwargs)
        sys.setswitchinterval(SWITCH_INTERVAL)
        # Every parameter takes any type at declaration (a wrong one must not end the
        # process with rclpy's traceback); ControllerConfig checks each at configure.
        declare_robot(self)
        for parameter in PARAMETERS.values():
            declare(self, parameter.name, parameter.default, parameter.description, True,
                    not parameter.runtime)
        self.spare = spare or SpareGateway(self.get_parameter('input_gateway').value is True)
        self.configuring = False  # during on_configure (read by on_set_parameters)
        self.add_on_set_parameters_callback(self.on_set_parameters)
        self.parameter_host: ParameterHost | None = ParameterHost(self)
        self.configured: Configured | None = None  # what configure builds
        self.xml: str | None = None
        self.status = 'unconfigured: not configured yet'
        self.configure_failed = False  # diagnostics ERROR until a configure succeeds
        self.finished = False
        self.log_gate = EventGate()
        self.command_count = 0
        self.last_output: tuple | None = None  # (joint names, chain-order torque [N m], time)
        self.sim_time = self.get_parameter('use_sim_time').value is True
        self.steady = Clock(clock_type=ClockType.STEADY_TIME)
        self.clock_start = SimClockStart(self.get_clock(), self.sim_time,
                                         self.get_logger().info)
        self.outlets = Outlets()  # every publisher's refused writes, on /diagnostics
        self.diag_pub = self.outlets.wrap(
            self.create_publisher(DiagnosticArray, DIAGNOSTICS_TOPIC, 10))
        self.create_timer(diagnostics_period_or_default(self.get_parameter(
            'diagnostics_period').value), self.on_diagnostics, clock=self.steady)
        if not robot_named(self):
            self.create_subscription(String, 'robot_description', self.on_description,
                                     ROBOT_DESCRIPTION_QOS)
            self.get_logger().info('waiting for robot_description')
        if self.get_parameter('autostart').value is True:
            self.autostart()
        elif self.core is None:
            self.get_logger().info(
                'autostart is false: waiting to be configured and activated (by a launch '
                "file's physics_gate, or by hand: `ros2 lifecycle set "
                f'{self.get_fully_qualified_name()} configure`, then activate)')

    @property
    def core(self) -> ControllerCore | None:
        """The configured core, or None."""
        return None if self.configured is None else self.configured.core

    @property
    def commanding(self):
        """True while commands go out (a signal must then let the final ramp finish)."""
        run = self.configured
        return run is not None and run.core.supervisor.publishing

    # -- lifecycle --------------------------------------------------------------------
    def autostart(self):
        """configure + activate (logs why if either fails)."""
        self.trigger_configure()
        if self.core is not None:
            self.trigger_activate()

    def on_configure(self, state):
        """Check parameters, load the model, build the core, warm up the kernels."""
        self.configuring = True  # runtime parameter sets wait (on_set_parameters)
        try:
            return self._configure()
        finally:
            self.configuring = False

    def _configure(self):
        gateway = None
        try:
            values = {name: self.get_parameter(name).value for name in PARAMETERS}
            config = ControllerConfig.from_parameters(values)
            model = model_from_parameters(self, self.xml)
            if model is None:
                raise ConfigError('no robot description yet: set robot_description, '
                                   'urdf_file or robot, or publish robot_description')
            self._check_command_topic(config.command_topic)
            core = ControllerCore(model, config)
            gateway = start_gateway(self, config, model.n, self.spare)  # up while kernels warm
            warm = core.warm_up()
            exact = core.verify_model()
            self._continue_output(core)
            self.configured = self._create_entities(core, config, gateway)
        except Exception as exc:  # noqa: BLE001 - one line and a diagnostics ERROR, always
            text = str(exc) if isinstance(exc, RobodynError) else \
                f'{type(exc).__name__}: {exc}'
            text = text.splitlines()[0] if text else type(exc).__name__
            if gateway is not None:
                gateway.close()
            self._destroy_entities()
            self.status = f'unconfigured: configure failed: {text}'
            self.configure_failed = True
            self.get_logger().error(f'configure failed: {text}')
            return TransitionCallbackReturn.FAILURE
        # Everything built so far lives as long as the node: move it out of the garbage
        # collector's reach so a full collection cannot stall a control cycle.
        gc.collect()
        gc.freeze()
        self.status = 'configured'
        self.configure_failed = False
        self.get_logger().info(
            f'configured {model.name}: {model.n} joints {list(model.joint_names)}, mode '
            f'{config.mode}, trigger {config.trigger} at {config.rate:g} Hz, safe command '
            f"{config.safe_command}, kernels warm in {warm:.2f} s, M g ID = Pinocchio's "
            f'within {exact:.1e}')
        for text in model.warnings:
            self.get_logger().warning(text)
        return TransitionCallbackReturn.SUCCESS

    def _check_command_topic(self, topic):
        """RobodynError when ``topic`` resolves to one of the controller's own topics."""
        resolved = self.resolve_topic_name(topic)
        for own in OWN_TOPICS:
            if resolved == self.resolve_topic_name(own):
                raise ConfigError(f'command_topic: {topic!r} resolves to {resolved}, one of '
                                   "the controller's own topics; give the effort "
                                   "controller's, e.g. /effort_controller/commands")

    def now(self) -> float:
        """The controller's time [s]: with use_sim_time the node's clock (the states' stamps:
        a ramp or timeout on the wall would depend on the simulation's speed), else monotonic."""
        return self.get_clock().now().nanoseconds * 1e-9 if self.sim_time else time.monotonic()

    def _continue_output(self, core):
        """A reconfigured core's rate limit starts from the last published command (same
        joints), not from a fresh hold torque: no step across cleanup/configure."""
        last = self.last_output
        if last is not None and last[0] == core.model.joint_names:
            core.supervisor.continue_from(last[1], last[2])

    def _create_entities(self, core, config, gateway) -> Configured:
        """Publishers, subscriptions, workers and the timer of a new core, and the started
        ``gateway`` (or None) once it is up; on a failure partway, what was created is
        destroyed before the exception goes on."""
        entities: list = []
        workers: list = []
        try:
            # Keep-last 10: a reliable subscriber that falls behind by a few messages still
            # gets every one (a lost message would look like a torque step); publishing
            # never blocks.
            cmd_pub = self.create_publisher(Float64MultiArray, config.command_topic, 10)
            entities.append(cmd_pub)
            ref_pub = self.create_publisher(JointState, '~/reference', 10)
            entities.append(ref_pub)
            worker = TrajectoryWorker(core)
            payload_worker = LatestWorker(lambda args: core.prepare_payload(*args),
                                          lambda exc: f'payload refused: {exc}',
                                          'robodyn_payload', PAYLOAD_INTERVAL)
            workers += [worker, payload_worker]
            cycle_timer = CycleTimer(core.supervisor, 1.0 / config.rate,
                                     config.trigger == Trigger.STATE)
            timer = self.create_timer(cycle_timer.initial_ns * 1e-9, self.on_timer,
                                      clock=self.steady)
            entities.append(timer)
            inputs = f'~/{INTERNAL}/' if config.input_gateway else '~/'
            interfaces = TrajectoryInterfaces(
                self, config, core, self.resolve_topic_name(inputs + 'follow_joint_trajectory'))
            workers.append(interfaces)
            if interfaces.publisher is not None:
                entities.append(interfaces.publisher.publisher)
            entities.append(self.create_subscription(
                JointState, JOINT_STATES, self.on_joint_states, STATE_QOS, raw=True))
            entities.append(self.create_subscription(
                JointTrajectory, inputs + 'joint_trajectory', self.on_trajectory, 10, raw=True))
            consumer = CommandConsumer(self, cmd_pub.topic_name)
            if consumer.subscription is not None:
                entities.append(consumer.subscription)
            if gateway is not None:
                entities.append(self.create_subscription(String, inputs + 'refused',
                                                         self.on_refused, 10))
                workers.append(gateway)
                gateway.wait_ready()
        except Exception:
            self._destroy(entities, workers)
            raise
        return Configured(core, self.outlets.wrap(cmd_pub), self.outlets.wrap(ref_pub),
                          Float64MultiArrayWriter(core.model.n),
                          JointStateWriter(core.model.joint_names), worker, payload_worker,
                          cycle_timer, timer, interfaces, gateway, consumer, entities)

    def on_activate(self, state):
        """Ramp in at the first valid state."""
        if self.core is None:  # the lifecycle activates only a configured node
            return TransitionCallbackReturn.FAILURE
        self.clock_start.activate(self.core, self.now)
        if self.bridge is not None:
            self.bridge.resume()
        self.status = 'active'
        self._log_events()
        return TransitionCallbackReturn.SUCCESS

    def on_deactivate(self, state):
        """Stop following and hold the arm where it is, still one command a cycle: a
        forward controller applies its last message for ever, so the node keeps
        supervising it (cleanup or shutdown ends with the final ramp)."""
        run = self.configured
        self.clock_start.cancel()
        if run is not None:
            run.core.release(self.now(), 'deactivated')
            self._log_events()
        if self.bridge is not None:
            self.bridge.end_goals('controller deactivated', timeout=0.0)  # hold meanwhile
        self.status = 'configured'
        return TransitionCallbackReturn.SUCCESS

    def on_cleanup(self, state):
        """The final ramp (if a hold is still published), then drop the core and its
        publishers/subscriptions."""
        self.publish_final('cleaned up')
        self._destroy_entities()
        self.status = 'unconfigured'
        return TransitionCallbackReturn.SUCCESS

    def on_shutdown(self, state):
        """Safe command out, then release everything (also on_error: back to
        unconfigured)."""
        self.close()
        self.status = 'finalized'
        self.finished = True  # run_node ends the process
        return TransitionCallbackReturn.SUCCESS

    def on_error(self, state):
        """Safe command out, release everything, back to unconfigured."""
        self.close()
        self.status = 'unconfigured: after an error'
        return TransitionCallbackReturn.SUCCESS

    def _destroy_entities(self):
        """Unconfigure: the node forgets what configure built, then destroys it."""
        run, self.configured = self.configured, None
        if run is not None:
            # The action first: its goals end, and the gateway relays their results.
            workers = [run.interfaces, run.gateway, run.worker, run.payload_worker]
            self._destroy(run.entities, [w for w in workers if w is not None])

    def _destroy(self, entities, workers):
        """Stop the workers' threads (each has close()), destroy timers, publishers and
        subscriptions."""
        for worker in workers:
            worker.close()
        for entity in entities:
            if isinstance(entity, Timer):
                entity.cancel()
                self.destroy_timer(entity)
            elif isinstance(entity, Publisher):
                self.destroy_publisher(entity)
            else:
                self.destroy_subscription(entity)

    def close(self):
        """Shutdown path (also SIGINT/SIGTERM via run_node): publish the final ramp."""
        self.publish_final('shutdown')
        self._destroy_entities()

    def destroy_node(self):
        """Stop the parameter services' thread and what configure started (the workers, the
        input gateway's process), then destroy the node."""
        if getattr(self, 'configured', None) is not None:
            self._destroy_entities()
        getattr(self, 'spare', SpareGateway(False)).close()  # absent: __init__ failed first
        host = getattr(self, 'parameter_host', None)  # None: __init__ failed before it
        if host is not None:
            host.close()
            self.parameter_host = None
        return super().destroy_node()

    @property
    def bridge(self):
        """The FollowJointTrajectory bridge, or None (not configured, or no action)."""
        return None if self.configured is None else self.configured.interfaces.bridge

    # -- callbacks --------------------------------------------------------------------
    @guarded
    def on_description(self, msg):
        """robot_description (transient local): configure with it if autostart is set."""
        if self.core is None and msg.data:
            self.xml = msg.data
            if self.get_parameter('autostart').value:
                self.autostart()

    @guarded
    def on_joint_states(self, raw):
        """A JointState's CDR bytes: validate and store; answer at once with trigger
        'state'. Read in place while the layout (names, sizes) stays the same."""
        run = self.configured
        if run is None:  # a state taken just before cleanup: nothing to control
            return
        core, now = run.core, self.now()
        apply_requests(run, now)
        layout = run.layout
        if layout is None or not layout.matches(raw):
            try:
                layout = run.layout = JointStateLayout(raw)
            except RobodynError as exc:  # truncated, corrupt or big-endian CDR
                core.reject(now, str(exc))
                return
        stamp = layout.stamp(raw)
        if not self.clock_start.ready(core, self.now, stamp):
            return  # simulated time not started: its first /clock is still on the way
        if run.consumer.bypassed:  # its forward controller is out: from the applied torque
            run.consumer.follow_applied(core, layout, raw, now)
        if not run.cycle_timer.trigger_state:
            position, velocity = layout.values(raw)[:2]
            core.on_state(now, layout.names, position, velocity, stamp)
            return
        if layout.packed:  # the fused cycle reads the bytes: nothing decoded here
            command = core.cycle_packed(now, layout.names, raw, layout.offsets, stamp)
        else:
            position, velocity = layout.values(raw)[:2]
            command = core.cycle(now, layout.names, position, velocity, stamp)
        if command is not None:
            self.publish(command, now)
            _rearm(run.timer, run.cycle_timer.after_answer())
        elif run.cycle_timer.unanswered_needs_command(now):
            self.publish(core.update(now), now)
            _rearm(run.timer, run.cycle_timer.after_unanswered(now))

    @guarded
    def on_timer(self, _info=None):
        """Fixed-rate cycle (trigger 'timer'); with trigger 'state', the watchdog and the
        safe command at rate while states are missing or the supervisor is in safe mode
        (control/cycle_timer.py decides when)."""
        run = self.configured
        if run is None or not self.clock_start.ready(run.core, self.now):
            return  # fired just before cleanup, or simulated time not started
        now = self.now()
        apply_requests(run, now)
        fire, period_ns = run.cycle_timer.on_fire(now)
        if fire:
            self.publish(run.core.update(now), now)
        _rearm(run.timer, period_ns)

    @guarded
    def on_trajectory(self, raw):
        """A JointTrajectory's CDR bytes: handed to the worker thread; the control thread
        swaps the result in (rejected ones are logged, the reference stays)."""
        run = self.configured
        if run is not None:  # None: taken just before cleanup
            run.worker.submit_trajectory(raw, self.now())

    @guarded
    def on_refused(self, msg):
        """The input gateway refused a trajectory or a goal (too many names or points): the
        controller says so, as for one it refuses itself."""
        run = self.configured
        if run is not None:
            emit(run.core.events, EventKind.TRAJECTORY_REFUSED, Level.WARN, msg.data[:500])

    def on_set_parameters(self, params):
        """The payload may change while running (see apply_runtime_parameters): checked
        here, prepared off the control thread, swapped in between two cycles."""
        from rcl_interfaces.msg import SetParametersResult
        if self.configuring and any(p.name in RUNTIME for p in params):
            # read before this set, and the new core not yet there: it would be lost
            return SetParametersResult(successful=False,
                                       reason='controller configuring: set it again')
        run = self.configured  # one read: the core and its worker together
        reason = apply_runtime_parameters(None if run is None else run.core, params,
                                          self.get_parameter,
                                          None if run is None else run.payload_worker.submit)
        return SetParametersResult(successful=not reason, reason=reason)

    def on_internal_error(self, exc):
        """An unexpected exception: log it once, latch safe mode."""
        self.get_logger().error(f'internal error {type(exc).__name__}: {exc}',
                                throttle_duration_sec=1.0)
        if self.core is not None:
            self.core.supervisor.fault(self.now(),
                                       f'internal error {type(exc).__name__}', latch=True)

    # -- output -----------------------------------------------------------------------
    def publish(self, command, now):
        """Send a Command (None: nothing may be sent yet)."""
        run = self.configured
        if command is None or run is None:
            return
        core = run.core
        if not run.cmd_pub.send(run.cmd_wire(command.effort)):
            if self.last_output is not None:  # the arm keeps the previous command: the
                core.supervisor.continue_from(*self.last_output[1:])  # next steps from it
            return
        self.command_count += 1
        effort = core.chain_order(command.effort)
        self.last_output = (core.model.joint_names, effort, now)
        run.ref_pub.send(run.ref_wire(*stamp_parts(command.t_ref), command.q_ref,
                                         command.qd_ref, effort))
        run.interfaces.after_command(command, core.q, core.qd, effort)
        if core.supervisor.events or core.events:
            self._log_events()

    def publish_final(self, reason):
        """Ramp to the safe command at the nominal rate and publish it last."""
        run = self.configured
        if run is None or not run.core.supervisor.publishing:
            if run is not None:
                run.core.supervisor.deactivate(self.now(), reason)
            return
        core, effort = run.core, None
        period = core.supervisor.limits.period
        # One period after the last command at least: two commands within one hardware
        # cycle are applied as one step of both (the forward controller takes the latest).
        time.sleep(min(max((core.supervisor.output_time or 0.0) + period - self.now(), 0.0),
                       period))
        start = time.monotonic()  # the budget is the wall's: exit within 2 s of a signal
        ramp = core.final_commands(self.now(), reason)
        for k, effort in enumerate(ramp):
            # At least one period between messages (two in one hardware cycle would apply
            # two steps at once), within FINAL_RAMP_BUDGET: a publish blocks while a reader
            # that died unannounced is still listed (its controller_manager, stopping too),
            # and the process must be gone 2 s after a signal.
            if time.monotonic() - start > FINAL_RAMP_BUDGET:
                self.get_logger().error(
                    f'{reason}: final ramp cut after {k} of {len(ramp)} commands '
                    f'({FINAL_RAMP_BUDGET} s): the command subscriber does not take them')
                break
            run.cmd_pub.send(run.cmd_wire(effort))
            self.command_count += 1
            time.sleep(period)
        if effort is not None:
            self.last_output = (core.model.joint_names, core.chain_order(effort),
                                self.now())
        # Let reliable delivery finish before the process may exit (bounded: exit within
        # 2 s of a signal, the final ramp included).
        left = FINAL_RAMP_BUDGET + 0.3 - (time.monotonic() - start)
        if left > 0.0:
            run.cmd_pub.publisher.wait_for_all_acked(Duration(seconds=min(0.3, left)))
        self._log_events()
        self.get_logger().info(f'{reason}: safe command published')

    def _log_events(self):
        if self.core is not None:
            log_events(self.get_logger(), self.core.drain_events(), self.log_gate)

    @guarded
    def on_diagnostics(self, _info=None):
        """/diagnostics: state, reason, timing and counters (also when unconfigured)."""
        run = self.configured
        if run is None:
            level = Level.ERROR if self.configure_failed else Level.WARN
            msg = diagnostic_array(CONTROLLER_NAME, '', level, self.status, {})
        else:
            core = run.core
            # Graph facts for the diagnosis (here, at the diagnostics rate: never in a cycle)
            core.state_publishers = self.count_publishers(JOINT_STATES)
            self._log_events()
            level, message, values = core.diagnostics(self.now())
            message = message if self.status == 'active' or core.supervisor.state == HELD \
                else self.status
            if self.clock_start.pending:  # activated; simulated time has not started yet
                level, message = Level.WARN, 'active: waiting for /clock (use_sim_time)'
            values['state_publishers'] = str(core.state_publishers)
            level, message = self.outlets.status(level, message, values, run.cmd_pub,
                                                 core.supervisor.publishing)
            level, message = run.consumer.status(level, message, values,
                                                 core.supervisor.publishing)
            msg = diagnostic_array(CONTROLLER_NAME, core.model.name, level, message,
                                   values)
        msg.header.stamp = self.get_clock().now().to_msg()
        self.diag_pub.send(msg)


def _rearm(timer, period_ns):
    """Set the timer's period [ns] and restart it from now (None: leave it)."""
    if period_ns is not None:
        timer.timer_period_ns = period_ns
        timer.reset()


def main(args=None):
    """Run the controller node until SIGINT/SIGTERM (the safe command goes out last). The
    input gateway's spare joins DDS before this process does (SpareGateway)."""
    spare = SpareGateway(True)
    spare.wait_joined()
    return run_node(lambda: ControllerNode(spare=spare), 'controller', args,
                    events_executor=True)


if __name__ == '__main__':
    raise SystemExit(main())
