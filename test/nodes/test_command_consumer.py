"""The forward controller that applies the node's commands, as controller_manager reports
it: while it is not active /diagnostics says the commands are not applied and the node's
stream follows the torque the arm is given, so that switched back in, the first command
applied is one step from it, not from the node's own stream."""

import time
from types import SimpleNamespace

import numpy as np
import pytest

rclpy = pytest.importorskip('rclpy')
from rclpy.parameter import Parameter  # noqa: E402
from rclpy.serialization import serialize_message  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

from robodyn_ros.io import float64_multi_array  # noqa: E402
from robodyn_ros.model.registry import PANDA_HOME, robot_path  # noqa: E402
from robodyn_ros.nodes.command_consumer import CommandConsumer, consumer_name  # noqa: E402
from robodyn_ros.nodes.controller import ControllerNode  # noqa: E402

pytestmark = pytest.mark.integration
Q0 = np.array(PANDA_HOME)


def _activity(**states):
    return SimpleNamespace(controllers=[SimpleNamespace(name=n, state=SimpleNamespace(label=s))
                                        for n, s in states.items()])


@pytest.mark.parametrize('topic, name', [('/effort_controller/commands', 'effort_controller'),
                                         ('/ns/arm_effort/commands', 'arm_effort'),
                                         ('/effort_commands', ''), ('commands', '')])
def test_the_consumer_is_the_forward_controller_of_the_topic(topic, name):
    assert consumer_name(topic) == name


@pytest.fixture
def node():
    context = rclpy.Context()
    rclpy.init(context=context)
    node = ControllerNode(context=context, parameter_overrides=[
        Parameter(k, value=v) for k, v in dict(
            urdf_file=robot_path('panda')[0], tip_link='panda_hand', kp=[400.0], kd=[40.0],
            autostart=True, reference='hold', max_torque_rate=1000.0, ramp_time=0.0).items()])
    yield node
    node.destroy_node()
    rclpy.shutdown(context=context)


def _state(node, k, effort):
    msg = JointState(name=list(node.core.model.joint_names), position=(Q0 + 1e-3 * k).tolist(),
                     velocity=[1.0] * 7, effort=list(effort))
    msg.header.stamp.sec, msg.header.stamp.nanosec = 5, k * 1_000_000
    return serialize_message(msg)


def test_switched_back_in_the_next_command_steps_from_the_applied_torque(node):
    sent = []
    node.configured.cmd_pub.publisher.publish = \
        lambda m: sent.append(float64_multi_array(m))
    consumer = node.configured.consumer
    assert consumer.name == 'effort_controller' and consumer.state is None
    for k in range(20):
        node.on_joint_states(_state(node, k, sent[-1] if sent else np.zeros(7)))
        time.sleep(1e-3)
    consumer.on_activity(_activity(effort_controller='inactive',
                                   joint_trajectory_controller='active'))
    level, message, values = node.core.diagnostics(node.now())
    level, message = consumer.status(level, message, values, True)
    assert level >= 1 and 'commands not applied: effort_controller is inactive' in message
    applied = np.full(7, 2.0)  # another controller drives the arm, far from the node's
    for k in range(20, 40):
        node.on_joint_states(_state(node, k, applied))
        time.sleep(1e-3)
    own = sent[19]
    consumer.on_activity(_activity(effort_controller='active'))  # heard after the switch:
    assert not consumer.bypassed  # the messages before it were already from the applied
    assert 'applied effort' in consumer.last_resume
    assert np.abs(sent[-1] - applied).max() <= 1.0 + 1e-9  # one step from what the arm had
    assert np.abs(own - applied).max() > 5.0  # (not from the node's own stream)
    assert np.abs(np.diff(np.array(sent[20:]), axis=0)).max() <= 1.0 + 1e-9


def test_a_state_without_usable_effort_keeps_the_own_stream_and_says_so(node):
    consumer = node.configured.consumer
    consumer.on_activity(_activity(joint_trajectory_controller='active'))
    node.on_joint_states(_state(node, 0, np.zeros(7)))
    assert 'all 0' in consumer.last_resume
    values = {}
    consumer.status(0, '', values, True)
    assert values['command_consumer'] == 'effort_controller: not loaded'


def test_without_controller_manager_nothing_changes(node):
    consumer = node.configured.consumer
    values = {}
    assert consumer.status(0, 'ok', values, True) == (0, 'ok') and values == {}
    assert isinstance(consumer, CommandConsumer)
