"""robodyn controller: a lifecycle node driving an effort-controlled arm.

Lifecycle (as ros2_control controllers): configure = check every parameter, load the
model, warm up the kernels; activate = ramp in from the current output at the first valid
state; deactivate / shutdown / SIGINT / SIGTERM = ramp (within the torque-rate limit) to the
safe command, published last. ``autostart: true`` configures and activates at start-up.
Topics (relative): in joint_states (keep-last 1, CDR read in place: io.cdr), the
trajectories through the input gateway's process (input_gateway.py), robot_description;
out <command_topic> (Float64MultiArray effort [N m or N], ``joints`` order), ~/reference
(q_r, qd_r in the states' time base), both written as CDR bytes, and /diagnostics. The
core (robodyn_ros.control.ControllerCore) does everything else.
"""

import gc
import sys
import time

from diagnostic_msgs.msg import DiagnosticArray
from rclpy.clock import Clock, ClockType
from rclpy.lifecycle import LifecycleNode, TransitionCallbackReturn
from std_msgs.msg import String

from ..control import ControllerConfig, ControllerCore
from ..control.controller_config import diagnostics_period_or_default
from ..control.levels import Level
from ..control.parameters import PARAMETERS, RUNTIME
from ..control.safety.supervisor import HELD
from ..defaults import CONTROLLER_NAME, DIAGNOSTICS_TOPIC, JOINT_STATES
from ..errors import ConfigError, RobodynError
from ..io.cdr import JointStateLayout, stamp_parts
from .controller_run import (
    ConfiguredResources,
    build_run,
    check_command_topic,
    destroy_entities,
    rearm,
)
from .gateway_process import SpareGateway, start_gateway
from .guarded_publisher import Outlets
from .node_events import EventGate, guarded, log_events
from .node_messages import diagnostic_array
from .node_parameters import (
    ROBOT_DESCRIPTION_QOS,
    declare,
    declare_robot,
    model_from_parameters,
    robot_named,
)
from .parameter_host import ParameterHost
from .payload_estimate import send_estimate
from .pending_requests import apply_requests
from .ramp_to_safe import close_at_exit, publish_final
from .runtime_parameters import apply_runtime_parameters
from .scheduler_latency import WatchdogWakeup
from .sim_clock_start import SimClockStart

__all__ = ['ControllerNode', 'ConfiguredResources']  # the latter: controller_run.py;
# the process's entry point: controller_main.py

#: The interpreter's switch interval [s]: a worker thread gives the lock back this often.
SWITCH_INTERVAL = 5e-4


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
        if spare is None:  # a node built without controller_main: its spare starts now
            spare = SpareGateway(self.get_parameter('input_gateway').value is True)
        spare.join()  # this process is in DDS now: the spare joins within its announcements
        self.spare = spare
        self.configuring = False  # during on_configure (read by on_set_parameters)
        self.add_on_set_parameters_callback(self.on_set_parameters)
        self.parameter_host: ParameterHost | None = ParameterHost(self)
        self.configured: ConfiguredResources | None = None  # what configure builds
        self.xml: str | None = None
        self.status = 'unconfigured: not configured yet'
        self.configure_failed = False  # diagnostics ERROR until a configure succeeds
        self.finished = False
        self.exit_deadline = None  # run_node's arm_exit_deadline (ramp_to_safe.close_at_exit)
        self.log_gate = EventGate()
        self.callback_end = 0.0  # the control thread busy until then (node_events.guarded)
        self.command_count = 0
        self.last_output: tuple | None = None  # (joint names, chain-order torque [N m], time)
        self.sim_time = self.get_parameter('use_sim_time').value is True
        self.wakeup = WatchdogWakeup(not self.sim_time)  # how late the last expiry woke
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
        return run is not None and run.core.safety.publishing

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
            check_command_topic(self, config.command_topic)
            core = ControllerCore(model, config)
            gateway = start_gateway(self, config, model.n, self.spare)  # up while kernels warm
            warm = core.warm_up()
            exact = core.verify_model()
            self._continue_output(core)
            self.configured = build_run(self, core, config, gateway)
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
        # collector's reach so a full collection cannot stall a control cycle. No full
        # collection first: over the ~150 000 objects of the imports it took 0.06-0.15 s of
        # every start and found about ten (refcounting frees the rest as ever).
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

    def now(self) -> float:
        """The controller's time [s]: with use_sim_time the node's clock (the states' stamps:
        a ramp or timeout on the wall would depend on the simulation's speed), else monotonic."""
        return self.get_clock().now().nanoseconds * 1e-9 if self.sim_time else time.monotonic()

    def _continue_output(self, core):
        """A reconfigured core's rate limit starts from the last published command (same
        joints), not from a fresh hold torque: no step across cleanup/configure."""
        last = self.last_output
        if last is not None and last[0] == core.model.joint_names:
            core.safety.continue_from(last[1], last[2])

    def on_activate(self, state):
        """Ramp in at the first valid state."""
        if self.core is None:  # the lifecycle activates only a configured node
            return TransitionCallbackReturn.FAILURE
        self.clock_start.activate(self.core, self.now)
        if self.bridge is not None:
            self.bridge.resume()
        self.status = 'active'
        self.log_core_events()
        return TransitionCallbackReturn.SUCCESS

    def on_deactivate(self, state):
        """Stop following and hold the arm where it is, still one command a cycle: a
        forward controller applies its last message for ever, so the node keeps
        supervising it (cleanup or shutdown ends with the final ramp)."""
        run = self.configured
        self.clock_start.cancel()
        if run is not None:
            run.core.release(self.now(), 'deactivated')
            self.log_core_events()
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
        """The shutdown transition: the process ends after it, so as at a signal
        (ramp_to_safe.close_at_exit): the final ramp, the goals ended, and no teardown (a
        helper's teardown has taken seconds on a loaded machine; the exit has 2 s)."""
        close_at_exit(self)
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
            destroy_entities(self, run.entities, [w for w in workers if w is not None])

    def close(self):
        """Shutdown transition and errors: publish the final ramp, destroy the entities."""
        self.publish_final('shutdown')
        self._destroy_entities()

    def close_at_exit(self):
        """SIGINT/SIGTERM (run_node): ramp_to_safe.close_at_exit."""
        close_at_exit(self)

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
        if core.wants_effort:  # the observer, and the first command, start from the arm's
            core.note_effort(layout.names, layout.values(raw)[2])
        if layout.packed:  # the fused cycle reads the bytes: nothing decoded here
            command = core.cycle_packed(now, layout.names, raw, layout.offsets, stamp)
        else:
            position, velocity = layout.values(raw)[:2]
            command = core.cycle(now, layout.names, position, velocity, stamp)
        if command is not None:
            self.publish(command, now)
            rearm(run.timer, run.cycle_timer.after_answer())
        elif run.cycle_timer.unanswered_needs_command(now):
            self.wakeup.note_cycle(now, run.cycle_timer, self.callback_end)
            self.publish(core.update(now), now)
            rearm(run.timer, run.cycle_timer.after_unanswered(now))

    @guarded
    def on_timer(self, _info=None):
        """Fixed-rate cycle (trigger 'timer'); with trigger 'state', the watchdog and the
        safe command at rate while states are missing or the supervisor is in safe mode
        (control/cycle_timer.py decides when)."""
        run = self.configured
        if run is None or not self.clock_start.ready(run.core, self.now):
            return  # fired just before cleanup, or simulated time not started
        now = self.now()
        self.wakeup.note_cycle(now, run.cycle_timer, self.callback_end)
        apply_requests(run, now)
        fire, period_ns = run.cycle_timer.on_fire(now)
        if fire:
            self.publish(run.core.update(now), now)
        rearm(run.timer, period_ns)

    @guarded
    def on_trajectory(self, raw):
        """A JointTrajectory's CDR bytes: handed to the worker thread; the control thread
        swaps the result in (rejected ones are logged, the reference stays)."""
        run = self.configured
        if run is not None:  # None: taken just before cleanup
            run.worker.submit_trajectory(raw, self.now())

    @guarded
    def on_input(self, take, msg):
        """A tool target (take: pose_target_message's follow_target or take_wrench) or the
        input gateway's refusal of an input (refused_input), to the core."""
        if self.configured is not None:
            take(self.configured.core, self.now(), msg)

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
            self.core.safety.fault(self.now(), f'internal error {type(exc).__name__}')

    # -- output -----------------------------------------------------------------------
    def publish(self, command, now):
        """Send a Command (None: nothing may be sent yet)."""
        run = self.configured
        if command is None or run is None:
            return
        core = run.core
        if not run.cmd_pub.send(run.cmd_wire(command.effort)):
            if self.last_output is not None:  # the arm keeps the previous command: the
                core.safety.continue_from(*self.last_output[1:])  # next steps from it
            return
        self.command_count += 1
        effort = core.chain_order(command.effort)
        self.last_output = (core.model.joint_names, effort, now)
        run.ref_pub.send(run.ref_wire(*stamp_parts(command.t_ref), command.q_ref,
                                         command.qd_ref, effort))
        run.interfaces.after_command(command, core.q, core.qd, effort)
        if core.safety.has_events or core.events:
            self.log_core_events()

    def publish_final(self, reason):
        """Ramp to the safe command at the nominal rate and publish it last (ramp_to_safe.py)."""
        publish_final(self, reason)

    def log_core_events(self):
        """Log the core's events since the last call (rate-limited per kind)."""
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
            self.log_core_events()
            level, message, values = core.diagnostics(self.now())
            message = message if self.status == 'active' or core.safety.state == HELD \
                else self.status
            if self.clock_start.pending:  # activated; simulated time has not started yet
                level, message = Level.WARN, 'active: waiting for /clock (use_sim_time)'
            values['state_publishers'] = str(core.state_publishers)
            values.update(self.wakeup.values())
            level, message = self.outlets.status(level, message, values, run.cmd_pub,
                                                 core.safety.publishing)
            level, message = run.consumer.status(level, message, values,
                                                 core.safety.publishing)
            msg = diagnostic_array(CONTROLLER_NAME, core.model.name, level, message,
                                   values)
        msg.header.stamp = self.get_clock().now().to_msg()
        self.diag_pub.send(msg)
        if run is not None:
            send_estimate(run.estimate_pub, run.core, msg.header.stamp)


if __name__ == '__main__':  # python -m robodyn_ros.nodes.controller: the process entry runs
    from .controller_main import main
    raise SystemExit(main())
