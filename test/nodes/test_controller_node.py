"""The controller lifecycle node: parameters, DDS round trip, watchdog at rate, shutdown
with the safe command last, and random messages through its callbacks."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

rclpy = pytest.importorskip('rclpy')
from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from rclpy.serialization import serialize_message  # noqa: E402
from ros_helpers import spin_until  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Float64MultiArray  # noqa: E402
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint  # noqa: E402

from robodyn_ros.dynamics import RigidBodyDynamics  # noqa: E402
from robodyn_ros.io import float64_multi_array  # noqa: E402
from robodyn_ros.model import load_urdf  # noqa: E402
from robodyn_ros.model.registry import PANDA_HOME, robot_path  # noqa: E402
from robodyn_ros.nodes.controller import ControllerNode  # noqa: E402
from robodyn_ros.nodes.pending_requests import apply_requests  # noqa: E402

pytestmark = pytest.mark.integration

PANDA = robot_path('panda')[0]
MODEL = load_urdf(PANDA, tip_link='panda_hand')
NAMES = list(MODEL.joint_names)
Q0 = np.array(PANDA_HOME)
BASE = dict(urdf_file=PANDA, tip_link='panda_hand', kp=[400.0], kd=[40.0], autostart=True)


@pytest.fixture
def ros():
    context = rclpy.Context()
    rclpy.init(context=context)
    yield context
    rclpy.shutdown(context=context)


def _node(context, **overrides):
    params = dict(BASE, **overrides)
    return ControllerNode(context=context, parameter_overrides=[
        Parameter(k, value=v) for k, v in params.items()])


XACRO = os.path.join(os.path.dirname(os.path.dirname(__file__)), 'data', 'descriptions',
                     'fr_style.urdf.xacro')


@pytest.mark.parametrize('xacro_args', [['arm_id:=fr3', 'payload:=2.0'], 'arm_id:=fr3 '
                                                                           'payload:=2.0'])
def test_xacro_description_with_arguments_as_parameters(ros, xacro_args):
    node = _node(ros, urdf_file=XACRO, tip_link='fr3_payload', xacro_args=xacro_args)
    try:
        assert node.core is not None, node.status
        assert node.core.model.joint_names == tuple(f'fr3_joint{i}' for i in range(1, 5))
        assert node.core.model.bodies[-1].mass == pytest.approx(3.587 + 2.0)
    finally:
        node.destroy_node()


def _state(q, qd, stamp, names=NAMES):
    msg = JointState()
    msg.header.stamp.sec = int(stamp)
    msg.header.stamp.nanosec = int((stamp - int(stamp)) * 1e9)
    msg.name, msg.position, msg.velocity = list(names), list(q), list(qd)
    return msg


@pytest.mark.parametrize('params, words', [
    (dict(mode='bogus'), "mode: unknown value 'bogus'"),
    (dict(kp=[-1.0]), 'kp: expected values >= 0'),
    (dict(gravity=[0.0, 0.0]), 'gravity: expected 3 values'),
    (dict(trigger='Timer'), "trigger: unknown value 'Timer'"),
    (dict(rate=0.0), 'rate: expected 100 to 20000 Hz'),
    (dict(urdf_file='/nonexistent.urdf'), 'nonexistent.urdf'),
])
def test_bad_parameter_is_one_configure_error_and_diagnostics_say_it(ros, params, words):
    node = _node(ros, **params)
    assert node.core is None and words in node.status and 'configure failed' in node.status
    seen = []
    probe = rclpy.create_node('diag_probe', context=ros)
    probe.create_subscription(DiagnosticArray, '/diagnostics', seen.append, 10)
    executor = SingleThreadedExecutor(context=ros)
    executor.add_node(node)
    executor.add_node(probe)
    assert spin_until(executor, lambda: any(
        s.level == b'\x02' and words in s.message for m in seen for s in m.status), 5.0)
    executor.shutdown()
    node.destroy_node()
    probe.destroy_node()


def test_on_simulated_time_before_the_first_clock_the_node_waits_and_says_so(ros):
    """Activated with use_sim_time and no /clock yet: no command, /diagnostics WARN naming
    the wait (a state stamped seconds ahead of ROS time 0 does not start it either)."""
    node = _node(ros, use_sim_time=True)
    assert node.core is not None and node.clock_start.pending
    seen = []
    probe = rclpy.create_node('diag_probe', context=ros)
    probe.create_subscription(DiagnosticArray, '/diagnostics', seen.append, 10)
    states = probe.create_publisher(JointState, 'joint_states', 10)
    executor = SingleThreadedExecutor(context=ros)
    executor.add_node(node)
    executor.add_node(probe)
    states.publish(_state(Q0, np.zeros(7), 2.0))
    assert spin_until(executor, lambda: any(
        s.level == b'\x01' and 'waiting for /clock' in s.message
        for m in seen for s in m.status), 5.0)
    assert node.command_count == 0 and node.clock_start.pending
    executor.shutdown()
    node.destroy_node()
    probe.destroy_node()


def test_integer_yaml_values_are_accepted(ros):
    node = _node(ros, kp=[400] * 7, kd=[40] * 7, rate=1000, state_timeout=1)
    assert node.core is not None and node.core.config.rate == 1000.0


def test_dds_round_trip_then_safe_command_at_rate_when_states_stop(ros):
    node = _node(ros, reference='hold', state_timeout=0.05, max_torque_rate=1e5, ramp_time=0.0)
    probe = rclpy.create_node('probe', context=ros)
    pub = probe.create_publisher(JointState, 'joint_states', 10)
    commands, diagnostics = [], []
    probe.create_subscription(Float64MultiArray, 'effort_controller/commands',
                              lambda m: commands.append((time.monotonic(), np.array(m.data))),
                              100)
    probe.create_subscription(DiagnosticArray, '/diagnostics', diagnostics.append, 10)
    executor = SingleThreadedExecutor(context=ros)
    executor.add_node(node)
    executor.add_node(probe)
    assert spin_until(executor, lambda: pub.get_subscription_count() > 0 and
                      node.configured.cmd_pub.publisher.get_subscription_count() > 0)
    rng = np.random.default_rng(1)
    q = Q0 + rng.uniform(-0.01, 0.01, 7)
    qd = rng.uniform(-0.1, 0.1, 7)
    order = rng.permutation(7)
    for k in range(30):  # an arm moving at qd (a repeated state would be a frozen stream)
        qk = q + 1e-3 * k * qd
        pub.publish(_state(qk[order], qd[order], 1.0 + 1e-3 * k, [NAMES[i] for i in order]))
        spin_until(executor, lambda: False, 0.003)
    assert commands and node.core.fused_cycle.cycles > 0  # the node's cycles ran fused
    q = qk
    dyn = RigidBodyDynamics(MODEL)
    # the law at the state the last command answered: on a loaded machine the last state
    # may still be on its way when the feed stops, so the command is matched against each
    # state fed, exactly
    fed = [q - 1e-3 * (29 - k) * qd for k in range(30)]  # the states above, in order
    gaps = [float(np.abs(commands[-1][1] - dyn.computed_torque(
        qk, qd, node.core.reference(0.0)[0], np.zeros(7), np.zeros(7), np.full(7, 400.0),
        np.full(7, 40.0), friction=False)).max()) for qk in fed]
    assert min(gaps) < 1e-9, f'the last command is {min(gaps):.3g} N m from the law at ' \
        f'any state fed (nearest: state {int(np.argmin(gaps))} of 30)'
    spin_until(executor, lambda: False, 0.1)  # past the 0.05 s state timeout
    fires = _count_fires(node)
    heard = len(commands)
    spin_until(executor, lambda: False, 1.0)
    # never silent: every cycle the node's timer ran published the safe command (judged
    # by the node's own cycles, not by how many a loaded machine let the executor run)
    assert fires[True] >= 50 and fires[False] == 0, fires
    assert len(commands) - heard >= 0.9 * fires[True], (len(commands) - heard, fires)
    np.testing.assert_allclose(commands[-1][1], dyn.gravity_vector(q), atol=1e-9)
    assert any(s.level == b'\x02' and 'no valid joint state' in s.message
               for m in diagnostics for s in m.status)
    executor.shutdown()
    node.destroy_node()
    probe.destroy_node()


def _count_fires(node):
    """Count the node's timer fires from now on, by whether each ran a cycle:
    {True: n, False: m} (the cycle timer's decision, wrapped in place)."""
    timer = node.configured.cycle_timer
    decide, counts = timer.on_fire, {True: 0, False: 0}

    def counted(now):
        fire, period = decide(now)
        counts[fire] += 1
        return fire, period
    timer.on_fire = counted
    return counts


def test_deactivate_holds_the_arm_and_cleanup_publishes_the_final_hold_last(ros):
    """A forward controller applies the last message for ever: a deactivated node keeps
    publishing the position hold where the arm was released; cleanup ends with g(q)."""
    node = _node(ros, reference='hold')
    now = time.monotonic()
    node.core.on_state(now, NAMES, Q0, np.zeros(7), 5.0)
    sent = []
    node.configured.cmd_pub.publisher.publish = lambda m: sent.append(float64_multi_array(m))
    node.publish(node.core.update(now), now)
    node.trigger_deactivate()
    assert node.core.supervisor.state == 'held'
    moved = Q0 + 0.01  # the arm pushed away from where it was released: pulled back
    node.core.on_state(now + 0.001, NAMES, moved, np.zeros(7), 5.001)
    held = node.core.update(now + 0.002)
    assert held is not None and held.state == 'held'
    gravity = RigidBodyDynamics(MODEL).gravity_vector(moved)
    target = node.core.supervisor.safe_target(now + 0.002)
    # every joint pulled back towards Q0: the hold's acceleration M^-1 (tau - g), each
    # joint's alone (the decoupled hold: safety/hold.py)
    mass = RigidBodyDynamics(MODEL).mass_matrix(moved)
    assert np.all(np.linalg.solve(mass, target - gravity) < 0.0)
    level, message, values = node.core.diagnostics(now + 0.002)
    assert 'position hold at the release position' in message and 'hold_position' in values
    node.trigger_cleanup()
    np.testing.assert_allclose(sent[-1], RigidBodyDynamics(MODEL).gravity_vector(moved),
                               atol=1e-9)


def test_a_refused_write_is_reported_and_the_next_command_steps_from_the_last_sent(ros):
    """Fast DDS refuses a write when a reliable reader lags (RCLError 'cannot publish
    data'): the controller keeps running, the next command is rate-limited from the last
    command the arm got, and /diagnostics names the topic."""
    node = _node(ros, reference='hold', max_torque_rate=1000.0, ramp_time=0.0)
    core, sent, refuse = node.core, [], [False]

    def publish(message):
        if refuse[0]:
            raise RuntimeError('Failed to publish: cannot publish data')
        sent.append(float64_multi_array(message))
    node.configured.cmd_pub.publisher.publish = publish
    t = time.monotonic()
    for k in range(40):  # moving away from the hold at 1 rad/s: the torque climbs at the limit
        if k == 20:
            refuse[0] = True
        elif k == 21:
            refuse[0] = False
        now = t + 1e-3 * k
        core.on_state(now, NAMES, Q0 + 1e-3 * k, np.ones(7), 5.0 + 1e-3 * k)
        node.publish(core.update(now), now)
    steps = np.abs(np.diff(np.array(sent), axis=0)).max(axis=1)
    assert len(sent) == 39 and steps.max() <= 1.0 + 1e-9, steps  # 1000 N m/s x 1 ms
    assert steps[19] > 0.99  # a rate-limited climb, through the refused write
    assert core.supervisor.state != 'safe'
    node.on_diagnostics()
    level, message, _ = core.diagnostics(t)
    warned = node.outlets.by_topic['/effort_controller/commands']
    assert warned.refused == 1 and 'cannot publish data' in warned.reason
    status = {}
    level, text = node.outlets.status(level, message, status, node.configured.cmd_pub, True)
    assert level >= 1 and '/effort_controller/commands 1' in text
    assert 'RuntimeError' in status['refused_writes']


_floats = st.floats(allow_nan=True, allow_infinity=True, width=64)
_names = st.lists(st.sampled_from(NAMES + ['x', '']), max_size=9)


@st.composite
def _joint_states(draw):
    names = draw(_names)
    size = st.integers(0, 9)
    msg = JointState()
    msg.name = names
    msg.position = draw(st.lists(_floats, min_size=draw(size), max_size=9))
    msg.velocity = draw(st.lists(_floats, max_size=9))
    msg.header.stamp.sec = draw(st.integers(0, 2 ** 31 - 1))
    msg.header.stamp.nanosec = draw(st.integers(0, 999_999_999))
    return msg


@st.composite
def _trajectories(draw):
    msg = JointTrajectory()
    msg.joint_names = draw(_names)
    for _ in range(draw(st.integers(0, 4))):
        point = JointTrajectoryPoint()
        point.positions = draw(st.lists(_floats, max_size=9))
        point.velocities = draw(st.lists(_floats, max_size=9))
        point.accelerations = draw(st.lists(_floats, max_size=9))
        point.time_from_start.sec = draw(st.integers(-2, 5))
        point.time_from_start.nanosec = draw(st.integers(0, 999_999_999))
        msg.points.append(point)
    return msg


@st.composite
def _raw_states(draw):
    """CDR bytes as a broken publisher could send them: truncated, overwritten, garbage."""
    raw = bytearray(serialize_message(draw(_joint_states())))
    cut = draw(st.integers(0, len(raw)))
    junk = draw(st.binary(max_size=16))
    return bytes(draw(st.sampled_from([raw[:cut], raw[:cut] + junk + raw[cut + len(junk):],
                                       junk])))


def test_random_messages_never_raise_nor_publish_non_finite(ros):
    node = _node(ros, reference='hold', state_timeout=0.5)
    errors, sent = [], []
    node.on_internal_error = errors.append
    node.configured.cmd_pub.publisher.publish = lambda m: sent.append(float64_multi_array(m))
    good = _state(Q0, np.zeros(7), 1.0)

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(st.lists(st.one_of(_joint_states(), _trajectories(), _raw_states()), min_size=1,
                    max_size=6))
    def run(messages):
        good.header.stamp.sec += 1
        node.on_joint_states(serialize_message(good))
        for msg in messages:
            if isinstance(msg, bytes):
                node.on_joint_states(msg)
            elif isinstance(msg, JointState):
                node.on_joint_states(serialize_message(msg))
            else:
                node.on_trajectory(serialize_message(msg))
                deadline = time.monotonic() + 5.0
                while not node.configured.worker.idle and time.monotonic() < deadline:
                    time.sleep(0.001)
            node.on_timer()
    run()
    assert errors == [] and node.configured.worker.internal_errors == 0
    assert sent and all(np.all(np.isfinite(s)) for s in sent)
    node.destroy_node()


# python -m robodyn_ros.nodes.controller, the module users find, runs the same process
@pytest.mark.parametrize('module, signum', [('controller_main', signal.SIGTERM),
                                            ('controller_main', signal.SIGINT),
                                            ('controller', signal.SIGINT)])
def test_signal_publishes_the_safe_command_last_and_exits_0(ros, module, signum):
    env = dict(os.environ, ROS_DOMAIN_ID=os.environ.get('ROS_DOMAIN_ID', '57'))
    proc = subprocess.Popen(
        [sys.executable, '-m', f'robodyn_ros.nodes.{module}', '--ros-args',
         '-p', f'urdf_file:={PANDA}', '-p', 'tip_link:=panda_hand', '-p', 'kp:=[400.0]',
         '-p', 'kd:=[40.0]', '-p', 'autostart:=true', '-p', 'reference:=hold'],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    probe = rclpy.create_node('sig_probe', context=ros)
    pub = probe.create_publisher(JointState, 'joint_states', 10)
    commands = []
    probe.create_subscription(Float64MultiArray, 'effort_controller/commands',
                              lambda m: commands.append(np.array(m.data)), 1000)
    executor = SingleThreadedExecutor(context=ros)
    executor.add_node(probe)
    try:
        fed = []

        def feed():
            fed.append(Q0 + 0.01 * np.sin(0.01 * len(fed)))
            pub.publish(_state(fed[-1], np.zeros(7), 1.0 + 1e-3 * len(fed)))
            executor.spin_once(timeout_sec=0.001)
            return len(commands) > 200
        deadline = time.monotonic() + 60
        while not feed() and time.monotonic() < deadline:
            pass
        assert len(commands) > 200, proc.stdout.read1().decode()[-800:] if proc.poll() else ''
        proc.send_signal(signum)
        spin_until(executor, lambda: proc.poll() is not None, 10.0)
        spin_until(executor, lambda: False, 0.3)
        out = proc.communicate(timeout=10)[0].decode()
        assert proc.returncode == 0 and 'Traceback' not in out, out[-800:]
        # the hold at the last state the node took: on a loaded machine it can be states behind
        # the last one fed (the feed runs as fast as the node answers, in bursts), so the hold
        # is matched against the recent ones, exactly
        dyn = RigidBodyDynamics(MODEL)
        behind, q = min(enumerate(reversed(fed[-300:])), key=lambda item: float(
            np.abs(commands[-1] - dyn.gravity_vector(item[1])).max()))
        gap = float(np.abs(commands[-1] - dyn.gravity_vector(q)).max())
        assert gap < 1e-6, (f'the last command is {gap:.3g} N m from the hold at any of the last '
                            f'300 states fed (nearest {behind} states before the last)\n'
                            f'{commands[-3:]}\n{out[-800:]}')
        steps = np.abs(np.diff(np.array(commands[-50:]), axis=0))
        assert steps.max() <= 1000.0 * 1e-3 + 1e-9
    finally:  # a controller left running would command the next tests' topics
        if proc.poll() is None:
            proc.kill()
            proc.wait(5.0)
        executor.shutdown()
        probe.destroy_node()


def test_timer_trigger_commands_at_rate_on_the_steady_clock(ros):
    node = _node(ros, reference='hold', trigger='timer', rate=200.0, state_timeout=0.3)
    now = time.monotonic()
    assert node.core.on_state(now, NAMES, Q0, np.zeros(7), 5.0)
    sent = []
    node.configured.cmd_pub.publisher.publish = lambda m: sent.append(time.monotonic())
    fires = _count_fires(node)
    executor = SingleThreadedExecutor(context=ros)
    executor.add_node(node)
    try:
        spin_until(executor, lambda: False, 1.0)
        executor.shutdown()
        # 0.3 s of law commands, then safe commands: a command at every fire (never
        # silent), and never more often than the rate (the fires a loaded machine let
        # the executor run are the node's share; their number is the machine's)
        assert fires[False] == 0 and len(sent) == fires[True] >= 20, (len(sent), fires)
        assert len(sent) <= 1.1 * 200
        assert node.core.supervisor.state == 'safe'
    finally:
        node.destroy_node()


def test_payload_parameters_change_the_running_model_and_bad_ones_are_refused(ros):
    node = _node(ros)
    try:
        q = Q0
        before = node.core.dyn.gravity_vector(q)
        result = node.set_parameters([
            Parameter('payload.mass', value=1.5),
            Parameter('payload.com', value=[0.0, 0.0, 0.05]),
            Parameter('payload.inertia', value=[1e-3, 0.0, 0.0, 1e-3, 0.0, 1e-3])])
        assert all(r.successful for r in result)
        deadline = time.monotonic() + 5.0  # prepared off the control thread, then swapped in
        while not (node.configured.payload_worker.idle and node.core.payload is not None and
                   node.core.payload.mass == 1.5) and time.monotonic() < deadline:
            apply_requests(node.configured, time.monotonic())
            time.sleep(0.01)
        assert node.core.payload is not None and node.core.payload.mass == 1.5
        assert np.abs(node.core.dyn.gravity_vector(q) - before).max() > 0.5
        refused = node.set_parameters([Parameter('payload.inertia',
                                                 value=[1.0, 0.0, 0.0, 0.01, 0.0, 0.01])])
        assert not refused[0].successful and 'payload refused' in refused[0].reason
        assert node.get_parameter('payload.inertia').value == [1e-3, 0.0, 0.0, 1e-3, 0.0, 1e-3]
        read_only = node.set_parameters([Parameter('rate', value=500.0)])
        assert not read_only[0].successful  # what is not runtime stays read-only
        gains = node.set_parameters([Parameter('kp', value=[-1.0])])
        assert not gains[0].successful and 'gains refused' in gains[0].reason
    finally:
        node.destroy_node()


def test_a_payload_set_during_configure_is_refused_not_lost(ros):
    """configure read the parameters before the set and its core is not the node's yet:
    the set is refused, saying to set it again, not accepted and dropped."""
    node = _node(ros)
    try:
        node.configuring = True  # as on_configure sets it around its work
        during = node.set_parameters([Parameter('payload.mass', value=2.0)])
        assert not during[0].successful and 'configuring' in during[0].reason
        node.configuring = False
        assert node.set_parameters([Parameter('payload.mass', value=2.0)])[0].successful
    finally:
        node.destroy_node()


@pytest.mark.parametrize('gateway', [True, False])
def test_input_gateway_receives_the_public_inputs_or_the_node_does(ros, gateway):
    node = _node(ros, input_gateway=gateway)
    try:
        run = node.configured
        assert run is not None, node.status
        served = node.resolve_topic_name('~/_inputs/follow_joint_trajectory' if gateway
                                         else '~/follow_joint_trajectory')
        assert run.interfaces.bridge.action == served
        topics = {sub.topic_name for sub in node.subscriptions}
        assert ('/robodyn_controller/_inputs/joint_trajectory' in topics) is gateway
        assert ('/robodyn_controller/joint_trajectory' in topics) is not gateway
        process = run.gateway.proc if gateway else None
        assert (run.gateway is not None) is gateway
        if gateway:
            assert process.poll() is None
    finally:
        node.destroy_node()
    if gateway:  # destroying the node ends its gateway
        assert process.wait(timeout=2.0) == 0
