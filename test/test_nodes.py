"""Integration tests of the rclpy nodes (in-process, own ROS_DOMAIN_ID, localhost)."""

import time

import numpy as np
import pytest

rclpy = pytest.importorskip('rclpy')
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Float64MultiArray  # noqa: E402
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint  # noqa: E402

from robodyn_ros.control import SafetyFilter  # noqa: E402
from robodyn_ros.dynamics import RigidBodyDynamics  # noqa: E402
from robodyn_ros.model import load_urdf  # noqa: E402
from robodyn_ros.nodes.bringup import closed_loop  # noqa: E402
from robodyn_ros.nodes.controller import ControllerNode  # noqa: E402
from robodyn_ros.robots import robot_path  # noqa: E402
from robodyn_ros.validation.bag_reader import BagReader, parse_joint_state  # noqa: E402

PANDA = robot_path('panda')[0]


@pytest.fixture
def ros():
    context = rclpy.Context()
    rclpy.init(context=context)
    yield context
    rclpy.shutdown(context=context)


def _controller(context, **overrides):
    params = dict(urdf_file=PANDA, tip_link='panda_hand', trigger='state', reference='hold',
                  mode='computed_torque', kp=[400.0], kd=[40.0], friction_smoothing=0.01,
                  state_timeout=1e9)
    params.update(overrides)
    return ControllerNode(context=context, parameter_overrides=[
        Parameter(k, value=v) for k, v in params.items()])


class _Probe:
    """A node publishing JointState and collecting commands."""

    def __init__(self, context):
        self.node = rclpy.create_node('probe', context=context)
        self.pub = self.node.create_publisher(JointState, '/joint_states', 10)
        self.traj_pub = self.node.create_publisher(
            JointTrajectory, '/robodyn_controller/joint_trajectory', 10)
        self.commands = []
        self.node.create_subscription(Float64MultiArray, '/effort_controller/commands',
                                      lambda m: self.commands.append(np.array(m.data)), 10)

    def send(self, names, q, qd, stamp=1.0):
        msg = JointState()
        msg.header.stamp.sec = int(stamp)
        msg.header.stamp.nanosec = int((stamp - int(stamp)) * 1e9)
        msg.name, msg.position, msg.velocity = list(names), list(q), list(qd)
        self.pub.publish(msg)


def _spin_until(executor, predicate, timeout=10.0):
    deadline = time.perf_counter() + timeout
    while not predicate() and time.perf_counter() < deadline:
        executor.spin_once(timeout_sec=0.02)
    return predicate()


def _setup(context, **overrides):
    controller = _controller(context, **overrides)
    probe = _Probe(context)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(controller)
    executor.add_node(probe.node)
    _spin_until(executor, lambda: probe.pub.get_subscription_count() > 0
                and controller.cmd_pub.get_subscription_count() > 0)
    return controller, probe, executor


def test_torque_equals_core_with_reordered_and_extra_joints(ros):
    controller, probe, executor = _setup(ros)
    model = load_urdf(PANDA, tip_link='panda_hand')
    names = list(model.joint_names)
    rng = np.random.default_rng(0)
    q0 = np.array([0.1, -0.7, 0.2, -2.0, 0.1, 1.5, 0.7])
    order = rng.permutation(7)
    shuffled = [names[i] for i in order] + ['panda_finger_joint1', 'some_other_joint']
    probe.send(shuffled, list(q0[order]) + [0.01, 5.0], [0.0] * 9, stamp=1.0)
    assert _spin_until(executor, lambda: len(probe.commands) >= 1)
    q = q0 + rng.uniform(-0.05, 0.05, 7)
    qd = rng.uniform(-0.5, 0.5, 7)
    order = rng.permutation(7)
    probe.send(['extra'] + [names[i] for i in order], [9.0] + list(q[order]),
               [0.0] + list(qd[order]), stamp=1.001)
    assert _spin_until(executor, lambda: len(probe.commands) >= 2)
    dyn = RigidBodyDynamics(model, friction_smoothing=0.01)
    expected = SafetyFilter(model.effort_limits)(dyn.computed_torque(
        q, qd, q0, np.zeros(7), np.zeros(7), np.full(7, 400.0), np.full(7, 40.0)))
    np.testing.assert_allclose(probe.commands[1], expected, rtol=0, atol=1e-9)
    assert np.all(np.abs(probe.commands[1]) <= model.effort_limits)
    executor.shutdown()
    controller.destroy_node()
    probe.node.destroy_node()


def test_missing_joint_or_nan_state_gives_no_command(ros):
    controller, probe, executor = _setup(ros)
    names = list(controller.dyn.model.joint_names)
    probe.send(names[:-1], [0.0] * 6, [0.0] * 6)
    probe.send(names, [0.0] * 6 + [np.nan], [0.0] * 7)
    _spin_until(executor, lambda: False, timeout=1.0)
    assert probe.commands == []
    assert 'non-finite' in controller.last_error
    probe.send(names, [0.0, -0.5, 0.0, -2.0, 0.0, 1.5, 0.7], [0.0] * 7)
    assert _spin_until(executor, lambda: len(probe.commands) == 1)
    assert np.all(np.isfinite(probe.commands[0]))
    executor.shutdown()
    controller.destroy_node()
    probe.node.destroy_node()


def test_stale_state_gives_no_command(ros):
    controller, probe, executor = _setup(ros, trigger='timer', rate=200.0,
                                         state_timeout=0.05)
    names = list(controller.dyn.model.joint_names)
    probe.send(names, [0.0, -0.5, 0.0, -2.0, 0.0, 1.5, 0.7], [0.0] * 7, stamp=1.0)
    _spin_until(executor, lambda: False, timeout=0.5)
    assert probe.commands == []  # stamp 1.0 s is decades older than the wall clock
    assert 'stale' in controller.last_error
    executor.shutdown()
    controller.destroy_node()
    probe.node.destroy_node()


def test_closed_loop_follows_a_joint_trajectory():
    goal = np.array([0.4, -0.3, 0.5])

    pubs = []

    def hook(step, nodes, executor):
        if step == 0:  # a publisher on the sim's node, sent over DDS to ~/joint_trajectory
            pubs.append(nodes['sim'].create_publisher(
                JointTrajectory, '/robodyn_controller/joint_trajectory', 10))
        if step == 100:
            assert pubs[0].get_subscription_count() == 1
            msg = JointTrajectory()
            msg.joint_names = ['joint_3', 'joint_1', 'joint_2']  # any order
            point = JointTrajectoryPoint()
            point.positions = [goal[2], goal[0], goal[1]]
            point.time_from_start.sec = 1
            msg.points = [point]
            pubs[0].publish(msg)

    res = closed_loop('three_link', 'computed_torque', 'hold', duration=1.6, hook=hook,
                      controller_overrides=dict(kp=[400.0], kd=[40.0]))
    assert res['timeouts'] == 0 and res['faults'] == 0
    np.testing.assert_allclose(res['reference'][0], goal, atol=1e-12)
    np.testing.assert_allclose(res['q'], goal, atol=1e-3)


def test_bag_contents_match_what_was_published(tmp_path):
    bag = str(tmp_path / 'bag')
    res = closed_loop('three_link', 'computed_torque', 'one_minus_cos', duration=0.5,
                      bag_path=bag, storage='sqlite3')
    with BagReader(bag) as reader:
        counts = {}
        last_state = None
        for topic, _, _, raw in reader.messages(list(reader.topics)):
            counts[topic] = counts.get(topic, 0) + 1
            if topic == '/joint_states':
                last_state = parse_joint_state(raw)
    assert counts['/effort_controller/commands'] == res['commands']
    assert counts['/robodyn_controller/reference'] == res['commands']
    assert counts['/joint_states'] >= res['steps']
    assert sum(counts.values()) == res['recorded']
    np.testing.assert_allclose(last_state[2], res['q'], atol=1e-12)
    assert last_state[1] == ('joint_1', 'joint_2', 'joint_3')


def test_recorder_executable_closes_bag_on_sigterm(tmp_path):
    """The installed `recorder` entry point writes a readable bag when terminated."""
    import os
    import signal
    import subprocess
    import sys
    bag = str(tmp_path / 'rec')
    env = dict(os.environ, ROS_DOMAIN_ID='58')
    proc = subprocess.Popen(
        [sys.executable, '-m', 'robodyn_ros.nodes.recorder', '--ros-args', '-p',
         f'bag_path:={bag}', '-p', 'topics:=[/chatter]', '-p',
         'types:=[/chatter=std_msgs/msg/Float64MultiArray]'], env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=58)
    node = rclpy.create_node('talker', context=context)
    pub = node.create_publisher(Float64MultiArray, '/chatter', 10)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    matched = _spin_until(executor, lambda: pub.get_subscription_count() > 0, timeout=30.0)
    for k in range(20):
        pub.publish(Float64MultiArray(data=[float(k)]))
        executor.spin_once(timeout_sec=0.01)
    time.sleep(2.0)  # delivery on a loaded machine; messages in flight at SIGTERM are lost
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=30)
    assert matched, out.decode()[-500:]
    node.destroy_node()
    rclpy.shutdown(context=context)
    assert os.path.isfile(os.path.join(bag, 'metadata.yaml')), out.decode()[-500:]
    with BagReader(bag) as reader:
        assert reader.topics == {'/chatter': 'std_msgs/msg/Float64MultiArray'}
        values = [reader.deserialize(raw, m).data[0]
                  for _, m, _, raw in reader.messages(['/chatter'])]
    assert values == [float(k) for k in range(20)]
