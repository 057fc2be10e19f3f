"""`ros2 launch` of the colcon-installed package, separate processes, as a user runs it."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from ros_helpers import stall
from running_time import Timeout
import yaml

from robodyn_ros.model import load_urdf
from robodyn_ros.model.registry import robot_path

pytestmark = pytest.mark.integration

ROS2 = os.path.join(os.path.dirname(sys.executable), 'ros2')
TRACK_SECONDS = 15.0
STALL = 0.3  # [s] wall time the controller is descheduled once (under command_wait_timeout)


def _launch(env, *args, domain):
    env = dict(env, ROS_DOMAIN_ID=str(domain))
    return subprocess.Popen([ROS2, 'launch', 'robodyn_ros', *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)


def _read_until(proc, word, timeout, lines):
    """True once a line holds ``word``, within ``timeout`` [s] of running time
    (running_time: a pause of the machine is not counted)."""
    wait = Timeout(timeout)
    os.set_blocking(proc.stdout.fileno(), False)
    while not wait.expired():
        line = proc.stdout.readline()
        if line:
            lines.append(line)
            if word in line:
                return True
        elif proc.poll() is not None:
            return False
        else:
            time.sleep(0.05)
    return False


def _stop(proc, lines):
    """Ctrl-C as a terminal sends it: SIGINT to the whole process group."""
    os.killpg(proc.pid, signal.SIGINT)
    try:
        out, _ = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    lines.append(out)
    return ''.join(lines)


def _wait_sim_seconds(domain, seconds, timeout):
    """Wait until the sim's /clock has advanced ``seconds`` (or ``timeout`` wall seconds)."""
    from ros2_control_probe import Probe
    from rosgraph_msgs.msg import Clock
    probe = Probe(domain)
    probe.record('/clock', Clock, depth=10)
    try:
        deadline, first = time.monotonic() + timeout, None
        while time.monotonic() < deadline:
            probe.spin(0.2)
            message = probe.latest('/clock')
            if message is not None:
                now = message.clock.sec + 1e-9 * message.clock.nanosec
                first = now if first is None else first
                if now - first >= seconds:
                    return
    finally:
        probe.close()


def _controller_pid(session):
    """The PID of the launch's controller process (its session is the launch's)."""
    out = subprocess.run(['ps', '-ww', '-o', 'pid=,args=', '--sid', str(session)],
                         capture_output=True, text=True, timeout=10).stdout
    return next(int(line.split()[0]) for line in out.splitlines()
                if 'robodyn_ros/controller' in line)


@pytest.fixture(scope='module')
def sim_run(ros_launch_env, tmp_path_factory):
    """sim.launch.py, cold start, tracked for TRACK_SECONDS after activation, then Ctrl-C.
    Two simulated seconds in, the controller is descheduled for STALL wall seconds: the
    sim waits for it and the controller runs on simulated time, so the result is the
    same as without the stall (a stall witness, not a machine-speed test)."""
    bag = str(tmp_path_factory.mktemp('sim') / 'bag')
    proc = _launch(ros_launch_env, 'sim.launch.py', f'bag_path:={bag}', domain=91)
    lines = []
    try:
        active = _read_until(proc, 'ramp-in complete', 120.0, lines)
        if active:  # the free-running sim may lag the wall clock on a loaded machine
            _wait_sim_seconds(91, 2.0, timeout=40.0)
            stall(_controller_pid(proc.pid), STALL)
            _wait_sim_seconds(91, TRACK_SECONDS - 1.0, timeout=20 * TRACK_SECONDS)
    finally:
        text = _stop(proc, lines)
    assert active, text[-3000:]
    return proc.returncode, text, bag


def test_sim_launch_stops_cleanly_on_ctrl_c(sim_run):
    code, text, _ = sim_run
    assert code == 0, text[-3000:]
    assert 'Traceback' not in text and 'has died' not in text, text[-3000:]
    assert 'Publisher already registered' not in text, text[-3000:]  # one name, one node
    for node in ('sim', 'controller', 'recorder'):
        assert f'[INFO] [{node}-' in text and 'process has finished cleanly' in text
    assert text.count('process has finished cleanly') == 3, text[-3000:]
    assert 'shutdown: safe command published' in text


def _first_seconds_rms(bag, seconds):
    """Worst-joint RMS over the first ``seconds`` of tracking: reference and state matched
    on their stamps (the controller stamps its reference with the state it answers).
    Returns (worst RMS, states in the window, answered states in the window)."""
    from robodyn_ros.io import BagReader, parse_joint_state
    states, refs = {}, {}
    with BagReader(bag) as reader:
        for topic, _, _, raw in reader.messages(['/joint_states',
                                                 '/robodyn_controller/reference']):
            stamp, _, q = parse_joint_state(raw)[:3]
            (states if topic == '/joint_states' else refs)[stamp] = np.array(q)
    common = sorted(set(states) & set(refs))
    assert common, 'no reference stamp matches a state stamp'
    start, end = common[0], common[0] + seconds
    window = [t for t in common if t <= end]
    assert window[-1] - window[0] >= seconds - 0.01, (
        'matched', window[0], window[-1], 'states', min(states), max(states), len(states),
        'references', min(refs), max(refs), len(refs))
    err = np.array([refs[t] - states[t] for t in window])
    in_window = sum(start <= t <= end for t in states)
    return float(np.sqrt((err ** 2).mean(axis=0)).max()), in_window, len(window)


def _log_time(text, words):
    """The time stamp [s] of the controller's first log line containing ``words``."""
    from robodyn_ros.io.console_log import logged
    return logged(text, words, 'robodyn_controller')[0].stamp


def test_sim_launch_bag_tracks_within_limits(sim_run, tmp_path):
    from robodyn_ros.io import BagReader, parse_joint_state
    from robodyn_ros.validation.validate import validate_bag
    _, text, bag = sim_run
    worst, states, answered = _first_seconds_rms(bag, TRACK_SECONDS)
    said = [line for line in text.splitlines() if '->' in line or 'ERROR' in line]
    assert worst <= 1e-3, (worst, said[:20])
    # Every simulated 1 ms state is in the bag (the sim steps on; the recorder keeps up:
    # the sim keeps 0.1 s of states for a reader that lags).
    assert states >= 0.99 * TRACK_SECONDS * 1000, states
    # Three 1 kHz Python processes share 2 cores here: the controller answers ~96 % of the
    # states (the sim applies the last command in between, as ros2_control would). The
    # 99.5 % target belongs to the loop benchmark; this bound catches a stalled or
    # fallen-behind controller (the 65 % under load, or a first-cycle stall).
    assert answered >= 0.85 * states, (answered, states)
    report = validate_bag(bag, out_dir=str(tmp_path), plots=False,
                          max_rms=1e-3, max_abs=5e-3)
    assert report['passed'], report['failures']
    # Every pair of consecutive published commands within max_torque_rate x one period
    # (config/panda.yaml: 1000 N m/s at 1 kHz); pairs the recorder lost messages between
    # are not published pairs (the report counts them and says so).
    torque = report['torque']
    assert torque['largest_step'] <= 1.0 + 1e-9, (torque, report['warnings'])
    model = load_urdf(robot_path('panda')[0], tip_link='panda_hand')
    lower, upper = model.lower, model.upper
    first_command = first_active = first_state = None
    with BagReader(bag) as reader:
        for topic, _, t, raw in reader.messages(['/joint_states', '/diagnostics',
                                                 '/effort_controller/commands']):
            if topic == '/joint_states':
                q = np.array(parse_joint_state(raw)[2])
                assert np.all(q >= lower - 1e-9) and np.all(q <= upper + 1e-9), q
                if first_active is not None and first_state is None:
                    first_state = t
            elif topic == '/effort_controller/commands' and first_command is None:
                first_command = t
            elif topic == '/diagnostics' and first_active is None:
                msg = reader.deserialize(raw, 'diagnostic_msgs/msg/DiagnosticArray')
                values = {kv.key: kv.value for s in msg.status for kv in s.values}
                if values.get('state') in ('waiting', 'ramp_in', 'active'):
                    first_active = t
    # The controller answers its first state within 0.9 s of being active, by its own log:
    # from "inactive -> waiting" to "waiting -> ramp_in: valid joint state", when its first
    # command goes out (the sim publishes from its start; a command before a state is never
    # sent: no command in the bag before the first state). The bag's receive times are not
    # the measure: a recorder sees the command topic only once it has matched it.
    assert first_command is not None and first_active is not None and first_state is not None
    waiting, answered = (_log_time(text, words) for words in ('inactive -> waiting',
                                                              'waiting -> ramp_in'))
    assert answered - waiting <= 0.9, (waiting, answered)
    jtc_state = validate_bag(bag, out_dir=str(tmp_path / 'jtc'), plots=False,
                             reference_topic='/robodyn_controller/controller_state')
    assert jtc_state['topics']['reference'] == '/robodyn_controller/controller_state'
    assert max(j['rms'] for j in jtc_state['joints'].values()) <= 1e-3


CONFIG = {'robodyn_controller': {'ros__parameters': {
    'robot': 'panda', 'tip_link': 'panda_hand', 'rate': 500, 'kp': [100, 100, 100, 100, 100,
                                                                     100, 100],
    'kd': [20.0] * 7, 'include_gravity': False, 'include_friction': False,
    'mode': 'feedforward', 'state_timeout': 0.03, 'max_torque_rate': 800.0,
    'safe_command': 'zero', 'reference': 'hold', 'command_topic': 'yaml/commands',
    'damping': [3.5], 'cross_check_every': 7}}}


def _parameters(env, names, domain):
    from rcl_interfaces.srv import GetParameters
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=domain)
    node = rclpy.create_node('param_probe', context=context)
    client = node.create_client(GetParameters, '/robodyn_controller/get_parameters')
    try:
        assert client.wait_for_service(timeout_sec=60.0)
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        # A request sent before the server has matched this client's response reader gets
        # its answer lost (DDS discovery is per endpoint): ask again, up to 6 times.
        for _ in range(6):
            future = client.call_async(GetParameters.Request(names=names))
            executor.spin_until_future_complete(future, timeout_sec=5.0)
            if future.done():
                break
            client.remove_pending_request(future)
        assert future.done(), 'no answer from get_parameters in 30 s'
        from rclpy.parameter import parameter_value_to_python
        return {n: parameter_value_to_python(v) for n, v in zip(names, future.result().values)}
    finally:
        node.destroy_node()
        rclpy.shutdown(context=context)


def test_controller_launch_yaml_values_reach_the_node_and_only_given_arguments_override(
        ros_launch_env, tmp_path):
    path = tmp_path / 'arm.yaml'
    path.write_text(yaml.safe_dump(CONFIG))
    proc = _launch(ros_launch_env, 'controller.launch.py', f'config:={path}',
                   'command_topic:=/given/commands', domain=84)
    lines = []
    try:
        params = CONFIG['robodyn_controller']['ros__parameters']
        got = _parameters(ros_launch_env, list(params) + ['autostart'], domain=84)
    finally:
        _stop(proc, lines)
    for name, value in params.items():
        expected = '/given/commands' if name == 'command_topic' else value
        assert got[name] == expected and type(got[name]) is type(expected), (name, got[name])
    assert got['autostart'] is True  # not given: the launch file's default (configure + activate)


def test_show_args_lists_every_documented_argument(ros_launch_env):
    env = dict(ros_launch_env, ROS_DOMAIN_ID='83')
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    readme = ''.join(open(os.path.join(root, page), encoding='utf-8').read() for page in (
        'README.md', 'docs/real_arm.md', 'docs/ros2_control.md', 'docs/descriptions.md'))
    for launch_file, documented in (
            ('sim.launch.py', ('config', 'bag_path', 'storage')),
            ('controller.launch.py', ('config', 'urdf_file', 'xacro_args', 'command_topic', 'mode',
                                      'include_gravity', 'include_friction', 'reference',
                                      'autostart', 'use_sim_time')),
            ('record.launch.py', ('bag_path', 'storage', 'topics', 'use_sim_time')),
            ('ros2_control.launch.py', ('robot', 'xacro_args', 'config', 'hardware',
                                        'bag_path'))):
        out = subprocess.run([ROS2, 'launch', 'robodyn_ros', launch_file, '--show-args'],
                             env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr[-2000:]
        for arg in documented:
            assert f"'{arg}'" in out.stdout, (launch_file, arg, out.stdout)
            assert f'{arg}:=' in readme, (launch_file, arg)  # documented for users


def test_installed_executables_use_the_installed_data(ros_launch_env, colcon_install,
                                                      tmp_path):
    prefix = colcon_install / 'install' / 'robodyn_ros'
    share = prefix / 'share' / 'robodyn_ros'
    env = dict(ros_launch_env, ROS_DOMAIN_ID='82', ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST')
    out = subprocess.run([str(prefix / 'lib' / 'robodyn_ros' / 'robodyn'), 'demo', '--robot',
                          'three_link', '--duration', '0.3', '--out', str(tmp_path)],
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert f'URDF {share}/urdf/three_link.urdf' in out.stdout, out.stdout
    assert f'config {share}/config/three_link.yaml' in out.stdout, out.stdout
    sim = subprocess.Popen([str(prefix / 'lib' / 'robodyn_ros' / 'sim'), '--ros-args',
                            '-p', 'robot:=three_link', '-p', 'publish_clock:=false'],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
    with pytest.raises(subprocess.TimeoutExpired):  # still running: it found its URDF
        sim.wait(timeout=3.0)
    sim.send_signal(signal.SIGINT)
    text = sim.communicate(timeout=30)[0]
    assert sim.returncode == 0 and 'not found' not in text, text[-2000:]


def test_the_install_carries_no_test_tooling(colcon_install):
    """colcon's install of robodyn_ros holds no fault script, probe or stall witness:
    robodyn_testing stays in the checkout (setup.py)."""
    prefix = colcon_install / 'install' / 'robodyn_ros'
    files = [p.relative_to(prefix).as_posix() for p in prefix.rglob('*.py')]
    assert any(f.endswith('robodyn_ros/nodes/controller.py') for f in files), files[:5]
    tooling = [f for f in files if 'robodyn_testing' in f or '/faults/' in f
               or f.endswith(('stall_witness.py', 'probe.py', 'first_start.py'))]
    assert not tooling, tooling
