"""The input gateway's process: forwards trajectories within bounds byte for byte, reports
the others without forwarding them, and ends on SIGINT and when its parent is gone."""

import os
import signal
import subprocess
import sys
import time

import pytest

rclpy = pytest.importorskip('rclpy')
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.serialization import serialize_message  # noqa: E402
from std_msgs.msg import Empty, String  # noqa: E402
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint  # noqa: E402

pytestmark = pytest.mark.integration

NAMES = [f'joint{i}' for i in range(7)]


def _gateway(parent, prefix='/gateway_test', *extra):
    return subprocess.Popen([
        sys.executable, '-m', 'robodyn_ros.nodes.input_gateway', '--name', 'gateway_test',
        '--trajectory', f'{prefix}/joint_trajectory', '--internal', f'{prefix}/_inputs',
        '--max-points', '10', '--max-names', '7', '--parent', str(parent), *extra])


def _raw(names, points):
    return serialize_message(JointTrajectory(joint_names=list(names), points=[
        JointTrajectoryPoint(positions=[0.1] * len(names)) for _ in range(points)]))


def _spin_until(executor, condition, timeout):
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        executor.spin_once(timeout_sec=0.02)
    return condition()


@pytest.fixture
def probe():
    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node('gateway_probe', context=context)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    yield node, executor
    node.destroy_node()
    rclpy.shutdown(context=context)


def test_within_bounds_forwarded_unchanged_beyond_refused_not_forwarded(probe):
    node, executor = probe
    forwarded, refused = [], []
    node.create_subscription(JointTrajectory, '/gateway_test/_inputs/joint_trajectory',
                             forwarded.append, 10, raw=True)
    node.create_subscription(String, '/gateway_test/_inputs/refused',
                             lambda m: refused.append(m.data), 10)
    # As the controller waits for it (GatewayProcess.wait_ready): announced once the
    # gateway's own writers have matched the readers above.
    ready = node.create_subscription(Empty, '/gateway_test/_inputs/ready', lambda _: None, 1)
    public = node.create_publisher(JointTrajectory, '/gateway_test/joint_trajectory', 10)
    proc = _gateway(os.getpid())
    try:
        assert _spin_until(executor, lambda: ready.get_publisher_count() > 0 and
                           public.get_subscription_count() > 0, 20.0), 'gateway not up'
        good = _raw(NAMES, 3)
        # Our writer may be seen by the gateway's reader after the gateway's reader is seen
        # here (discovery runs per side): send until one arrives, then the refused ones.
        for _ in range(50):
            public.publish(good)
            if _spin_until(executor, lambda: forwarded, 0.2):
                break
        public.publish(_raw(NAMES + ['joint7'], 1))  # one name too many
        public.publish(_raw(NAMES, 11))  # one point too many
        assert _spin_until(executor, lambda: len(refused) == 2 and forwarded, 10.0), \
            (refused, len(forwarded))
        _spin_until(executor, lambda: False, 0.5)  # nothing else comes
        assert len(refused) == 2, refused
        assert {bytes(m) for m in forwarded} == {good}
        assert 'trajectory rejected' in refused[0] and '8 names' in refused[0]
        assert '11 points, more than max_trajectory_points (10)' in refused[1]
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=2.0) == 0
        assert time.monotonic() - t0 < 2.0
    finally:
        if proc.poll() is None:
            proc.kill()


def test_the_gateway_ends_within_2_s_of_its_parent_killed():
    # A parent (the controller's stand-in) starts the gateway, then is killed with SIGKILL:
    # no close(), no signal reaches the gateway.
    parent = subprocess.Popen([sys.executable, '-c', (
        'import os, subprocess, sys, time\n'
        "p = subprocess.Popen([sys.executable, '-m', 'robodyn_ros.nodes.input_gateway', "
        "'--name', 'gateway_orphan', '--trajectory', '/gateway_orphan/joint_trajectory', "
        "'--internal', '/gateway_orphan/_inputs', '--max-points', '10', '--max-names', '7', "
        "'--parent', str(os.getpid())])\n"
        'print(p.pid, flush=True)\n'
        'time.sleep(60)\n')], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    try:
        time.sleep(3.0)  # the gateway up (imports done)
        assert _alive(child), 'the gateway ended before its parent'
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 2.0
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not _alive(child), 'the gateway outlived its parent by 2 s'
    finally:
        if _alive(child):
            os.kill(child, signal.SIGKILL)
        if parent.poll() is None:
            parent.kill()


def _alive(pid):
    """True while ``pid`` runs (an orphan is reaped by init: no zombie left here)."""
    try:
        with open(f'/proc/{pid}/stat') as stat:
            return stat.read().split(')')[-1].split()[0] != 'Z'
    except FileNotFoundError:
        return False


def _in_graph(probe, spare, timeout):
    """True once the spare's placeholder node (how it joins DDS: input_gateway._join_dds)
    is in the probe's graph, within ``timeout`` [s]."""
    node, executor = probe
    name = f'_robodyn_spare_{spare.proc.pid if spare.proc is not None else -1}'
    return _spin_until(executor, lambda: name in node.get_node_names(), timeout)


def test_a_spare_gateway_ends_when_its_node_gives_it_nothing(probe):
    """A spare that is never used (the node's input_gateway turned off before configure,
    or the node destroyed) ends at close(), through its stdin, well within 2 s."""
    from robodyn_ros.nodes.gateway_process import SpareGateway
    assert SpareGateway(False).take() is None
    spare = SpareGateway(True)
    proc = spare.proc
    spare.join()
    assert _in_graph(probe, spare, 20.0), 'the spare never joined DDS'
    assert proc is not None and proc.poll() is None
    t0 = time.monotonic()
    spare.close()
    assert proc.poll() == 0 and time.monotonic() - t0 < 2.0


def test_a_spare_gateway_joins_dds_only_when_told(probe):
    """The spare imports meanwhile but joins DDS when the controller's node exists (join()),
    so that both send their first announcements together (gateway_process.SpareGateway).
    Joined means in the graph: its placeholder node (rclpy.init alone does not join)."""
    from robodyn_ros.nodes.gateway_process import SpareGateway
    spare = SpareGateway(True)
    try:
        assert not _in_graph(probe, spare, 3.0), \
            'the spare joined DDS before it was told to'  # rclpy imported well before 3 s
        spare.join()
        assert _in_graph(probe, spare, 20.0), \
            f'the spare never joined DDS: {probe[0].get_node_names()}'
    finally:
        spare.close()


def test_a_spare_gateway_given_its_arguments_forwards(probe):
    """The spare (started before the node configures) serves as a gateway started with its
    arguments does: announced, and a trajectory within bounds forwarded."""
    from robodyn_ros.nodes.gateway_process import GatewayProcess, SpareGateway
    node, executor = probe
    spare = SpareGateway(True)
    forwarded = []
    node.create_subscription(JointTrajectory, '/spare_probe/_inputs/joint_trajectory',
                             forwarded.append, 10, raw=True)
    node.create_subscription(String, '/spare_probe/_inputs/refused', lambda _: None, 10)
    public = node.create_publisher(JointTrajectory, '/spare_probe_inputs/joint_trajectory', 10)
    ready = node.create_subscription(Empty, '/spare_probe/_inputs/ready', lambda _: None, 1)
    fake = type('Node', (), {'get_fully_qualified_name': lambda self: '/spare_probe',
                             'get_name': lambda self: 'spare_probe',
                             'get_namespace': lambda self: '/',
                             'resolve_topic_name': lambda self, n: '/spare_probe_inputs/' +
                             n.split('/')[-1]})()
    gateway = GatewayProcess(fake, 10, 7, False, spare)
    try:
        assert gateway.proc.args[-1] == '--spare' and spare.take() is None
        assert _spin_until(executor, lambda: ready.get_publisher_count() > 0 and
                           public.get_subscription_count() > 0, 20.0), 'gateway not up'
        for _ in range(50):
            public.publish(_raw(NAMES, 3))
            if _spin_until(executor, lambda: forwarded, 0.2):
                break
        assert forwarded
    finally:
        gateway.close()


def test_a_spare_whose_controller_ended_ends_quietly():
    """Told to join, then stdin closed before any arguments came (the controller ended
    before configure): the spare exits 0 without a traceback."""
    proc = subprocess.Popen([sys.executable, '-m', 'robodyn_ros.nodes.input_gateway',
                             '--spare'], stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    _, err = proc.communicate(b'join\n', timeout=30)  # then stdin closed: no arguments
    assert proc.returncode == 0 and b'Traceback' not in err, err.decode()[-2000:]


def test_a_target_wrench_is_forwarded_and_a_huge_one_refused(probe):
    """~/target_wrench as ~/target_pose: a WrenchStamped within MAX_TARGET_BYTES forwarded
    unchanged to _inputs/target_wrench, one with a 5000-character frame name refused
    with its size (the controller never decodes it)."""
    from geometry_msgs.msg import WrenchStamped
    node, executor = probe
    forwarded, refused = [], []
    node.create_subscription(WrenchStamped, '/gateway_test/_inputs/target_wrench',
                             forwarded.append, 10, raw=True)
    node.create_subscription(String, '/gateway_test/_inputs/refused',
                             lambda m: refused.append(m.data), 10)
    public = node.create_publisher(WrenchStamped, '/gateway_test/target_wrench', 10)
    proc = _gateway(os.getpid(), '/gateway_test', '--wrench', '/gateway_test/target_wrench')
    try:
        assert _spin_until(executor, lambda: public.get_subscription_count() > 0, 20.0)
        good = WrenchStamped()
        good.header.frame_id = 'base'
        good.wrench.force.y = 5.0
        for _ in range(50):
            public.publish(good)
            if _spin_until(executor, lambda: forwarded, 0.2):
                break
        huge = WrenchStamped()
        huge.header.frame_id = 'x' * 5000
        public.publish(huge)
        assert _spin_until(executor, lambda: refused, 10.0), refused
        from rclpy.serialization import deserialize_message
        got = deserialize_message(bytes(forwarded[0]), WrenchStamped)  # padding may differ
        assert got.header.frame_id == 'base' and got.wrench.force.y == 5.0
        assert refused[0].startswith('target wrench refused: ') and 'bytes' in refused[0]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=5.0)
