"""What a configured controller node runs on: the core with its publishers, subscriptions,
workers and timer, built together by configure and destroyed together by cleanup.

Why one object: the node holds it or None (unconfigured), and a callback reads that one
reference and finds the core, its entities and its workers consistent (the lifecycle_py
demo's entities, declared up front). A build that fails partway destroys what it created
before the exception goes on: a failed configure leaves nothing behind.
"""

from dataclasses import dataclass, field
from functools import partial

from geometry_msgs.msg import InertiaStamped, PoseStamped, WrenchStamped
from rclpy.publisher import Publisher
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.timer import Timer
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from trajectory_msgs.msg import JointTrajectory

from ..control import ControllerCore
from ..control.cycle_timer import CycleTimer
from ..control.options import Trigger
from ..defaults import DIAGNOSTICS_TOPIC, JOINT_STATES
from ..errors import ConfigError
from ..io.cdr import Float64MultiArrayWriter, JointStateLayout, JointStateWriter
from .command_consumer import CommandConsumer
from .gateway_process import GatewayProcess
from .guarded_publisher import Outlet
from .input_gateway import INTERNAL
from .latest_worker import LatestWorker
from .pose_target_message import follow_target, refused_input, take_wrench
from .trajectory_interfaces import TrajectoryInterfaces
from .trajectory_worker import TrajectoryWorker

__all__ = ['ConfiguredResources', 'build_run', 'destroy_entities', 'check_command_topic',
           'rearm', 'OWN_TOPICS', 'STATE_QOS', 'PAYLOAD_INTERVAL']

#: The controller's own topics (relative names): command_topic must differ from each.
OWN_TOPICS = (JOINT_STATES, '~/joint_trajectory', '~/reference', '~/controller_state',
              'robot_description', DIAGNOSTICS_TOPIC, '~/follow_joint_trajectory',
              f'~/{INTERNAL}/joint_trajectory', f'~/{INTERNAL}/refused', '~/external_torque',
              '~/target_pose', f'~/{INTERNAL}/target_pose',
              '~/target_wrench', f'~/{INTERNAL}/target_wrench',
              '~/tool_wrench', '~/payload_estimate')
#: The joint states: keep-last 1, best effort (the freshest state, never a queue).
STATE_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT)
#: Shortest time between two payload preparations [s]: a storm of parameter sets is
#: coalesced to the newest, at most 5 per second (a preparation holds the interpreter
#: about 2.5 ms; a real payload changes at a grasp, not faster).
PAYLOAD_INTERVAL = 0.2


@dataclass(eq=False)
class ConfiguredResources:
    """The controller node's resources while it is configured: everything configure builds
    and cleanup destroys (module docstring).

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
    estimate_pub: Outlet | None = None  # ~/payload_estimate, for a law with an estimate


def check_command_topic(node, topic: str) -> None:
    """ConfigError when ``topic`` resolves, for ``node``, to one of the controller's own
    topics (OWN_TOPICS): its commands would go nowhere an effort controller reads."""
    resolved = node.resolve_topic_name(topic)
    for own in OWN_TOPICS:
        if resolved == node.resolve_topic_name(own):
            raise ConfigError(f'command_topic: {topic!r} resolves to {resolved}, one of '
                              "the controller's own topics; give the effort "
                              "controller's, e.g. /effort_controller/commands")


def build_run(node, core, config, gateway) -> ConfiguredResources:
    """Publishers, subscriptions, workers and the timer of ``node`` (a ControllerNode) for a
    new ``core``, and the started ``gateway`` (or None) once it is up; on a failure partway,
    what was created is destroyed before the exception goes on."""
    entities: list = []
    workers: list = []
    try:
        # Keep-last 10: a reliable subscriber that falls behind by a few messages still
        # gets every one (a lost message would look like a torque step); publishing
        # never blocks.
        cmd_pub = node.create_publisher(Float64MultiArray, config.command_topic, 10)
        entities.append(cmd_pub)
        ref_pub = node.create_publisher(JointState, '~/reference', 10)
        entities.append(ref_pub)
        worker = TrajectoryWorker(core)
        payload_worker = LatestWorker(lambda args: core.prepare_payload(*args),
                                      lambda exc: f'payload refused: {exc}',
                                      'robodyn_payload', PAYLOAD_INTERVAL)
        workers += [worker, payload_worker]
        cycle_timer = core.safety.cycle_timer(1.0 / config.rate,
                                              config.trigger == Trigger.STATE)
        timer = node.create_timer(cycle_timer.initial_ns * 1e-9, node.on_timer,
                                  clock=node.steady)
        entities.append(timer)
        inputs = f'~/{INTERNAL}/' if config.input_gateway else '~/'
        interfaces = TrajectoryInterfaces(
            node, config, core, node.resolve_topic_name(inputs + 'follow_joint_trajectory'))
        workers.append(interfaces)
        if interfaces.publisher is not None:
            entities.append(interfaces.publisher.publisher)
        entities.append(node.create_subscription(
            JointState, JOINT_STATES, node.on_joint_states, STATE_QOS, raw=True))
        entities.append(node.create_subscription(
            JointTrajectory, inputs + 'joint_trajectory', node.on_trajectory, 10, raw=True))
        entities.append(node.create_subscription(
            PoseStamped, inputs + 'target_pose', partial(node.on_input, follow_target), 10))
        entities.append(node.create_subscription(
            WrenchStamped, inputs + 'target_wrench', partial(node.on_input, take_wrench), 10))
        consumer = CommandConsumer(node, cmd_pub.topic_name)
        if consumer.subscription is not None:
            entities.append(consumer.subscription)
        if gateway is not None:
            entities.append(node.create_subscription(String, inputs + 'refused',
                                                     partial(node.on_input, refused_input),
                                                     10))
            workers.append(gateway)
            gateway.wait_ready()
        estimate_pub = None
        if getattr(core.law.law, 'estimate', None) is not None:  # the adaptive law's
            estimate_pub = node.create_publisher(InertiaStamped, '~/payload_estimate', 10)
            entities.append(estimate_pub)
    except Exception:
        destroy_entities(node, entities, workers)
        raise
    return ConfiguredResources(core, node.outlets.wrap(cmd_pub), node.outlets.wrap(ref_pub),
                      Float64MultiArrayWriter(core.model.n),
                      JointStateWriter(core.model.joint_names), worker, payload_worker,
                      cycle_timer, timer, interfaces, gateway, consumer, entities,
                      estimate_pub=estimate_pub and node.outlets.wrap(estimate_pub))


def destroy_entities(node, entities, workers) -> None:
    """Stop the ``workers``' threads (each has close()), then destroy ``node``'s timers,
    publishers and subscriptions among ``entities``."""
    for worker in workers:
        worker.close()
    for entity in entities:
        if isinstance(entity, Timer):
            entity.cancel()
            node.destroy_timer(entity)
        elif isinstance(entity, Publisher):
            node.destroy_publisher(entity)
        else:
            node.destroy_subscription(entity)


def rearm(timer, period_ns) -> None:
    """Set the timer's period [ns] and restart it from now (None: leave it)."""
    if period_ns is not None:
        timer.timer_period_ns = period_ns
        timer.reset()
