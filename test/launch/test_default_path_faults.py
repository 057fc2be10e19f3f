"""The default path attacked: `ros2 launch robodyn_ros ros2_control.launch.py` (the real
JointTrajectoryController chained into the C++ robodyn controller, MuJoCo stepped in
controller_manager's loop), judged from the recorded /joint_states, whose effort is the
torque MuJoCo applied (actuator_force), and from the goals' results. Two CPU hogs run
throughout.

Cases, in one launch: a goal whose last point carries an acceleration (the arm must settle
on the point, not a/kp away); goals the arm cannot follow (beyond a limit, 1.5 rad in
10 ms, huge velocities) must not SUCCEED; the controller_manager stopped for 200 ms
(SIGSTOP) must not give a step above the per-cycle limit; the whole chain deactivated
mid-motion must leave the arm within 0.05 rad of where it was released for 10 s; the robodyn
controller unloaded and loaded again, and the JTC deactivated alone mid-motion, must give
no step and leave the arm held; goals with NaN positions, time going backwards or a
million joint names must not SUCCEED; states
the hardware corrupts on request (NaN, 10 rad beyond a limit, frozen, a 0.5 rad jump: the
launch's test-only fault_injection) must be named on /diagnostics and the arm brought to
rest, and a read() 200 ms late must give no step. Every applied torque step over the run
stays within max_torque_rate x period: judged from the hardware's own witness
(`~/applied_step`: each cycle's change of the torque MuJoCo applied and its running
maximum), so states the recorder loses on a busy machine cannot hide a step, and a stall
of the loop cannot be mistaken for lost states.
"""

import os
import subprocess
import time

import numpy as np
import pytest
from ros2_control_probe import Probe
from ros2_control_probe import stamp as _stamp_of
from ros_helpers import stall
from test_ros2_control_launch import JTC_ACTION, NAMES, _Hogs, _Launch, _require

from robodyn_ros.io.console_log import logged
from robodyn_ros.model.ros2_control_urdf import GOAL_TOLERANCE

pytestmark = pytest.mark.integration

DOMAIN = 96
#: The collision observer's settings (docs/collisions.md), reaction 'report': only said.
COLLISION = {'thresholds': [1.0], 'debounce': 3, 'gain': 50.0, 'reaction': 'report'}
MAX_TORQUE_RATE = 1000.0  # config/panda.yaml [N m/s]
PERIOD = 0.001
#: A step of the applied torque within one control cycle [N m]: one cycle's budget,
#: whatever the cycle's length (after a late cycle controller_manager runs one cycle, and
#: the hardware applies one new command).
STEP = MAX_TORQUE_RATE * PERIOD
#: A stall of controller_manager's loop is longer than this [s]; a shorter gap between two
#: recorded states holds cycles whose states the recorder, beside the hogs, lost (20 ms of
#: them in a row measured, once, with a step of 3.7 N m across: 0.18 N m a cycle). The
#: campaign's own late cycles are 200 ms (SIGSTOP, the hardware's `late 0.2`): judged as
#: one cycle each. A natural host stall under 0.1 s is counted as cycles, not judged alone.
STALL = 0.1
DRIFT = 0.05  # [rad] over 10 s after a release
#: The arm moves [rad/s] when an injected fault comes (a frozen stream at rest is no fault).
MOVING = 0.02
ACTIVE = 'Configured and activated joint_trajectory_controller'
RELEASED = 'released: held at'
INJECT = '/robodyneffortsystem/inject_fault'
#: the hardware's applied-step witness (test only: with fault_injection)
WITNESS = '/robodyneffortsystem/applied_step'
#: the middle of each Panda joint's range (its URDF) [rad]
MIDDLE = np.array([0.0, 0.0, 0.0, -1.5708, 0.0, 1.8675, 0.0])
#: (request, words the controller's /diagnostics must name); None: no fault expected
INJECTED = (('nan 0.3', 'not finite'), ('out_of_range 0.3', "were not the arm's"),
            ('frozen 0.3', 'repeated themselves'), ('jump 0.3 2', "were not the arm's"),
            ('late 0.2', None))


def _goal(names, positions, times, velocities=None, accelerations=None):
    from control_msgs.action import FollowJointTrajectory
    from trajectory_msgs.msg import JointTrajectoryPoint
    goal = FollowJointTrajectory.Goal()
    goal.trajectory.joint_names = list(names)
    for k, t in enumerate(times):
        point = JointTrajectoryPoint()
        point.positions = [float(v) for v in positions[k]]
        if velocities is not None:
            point.velocities = [float(v) for v in velocities[k]]
        if accelerations is not None:
            point.accelerations = [float(v) for v in accelerations[k]]
        point.time_from_start.sec = int(t)
        point.time_from_start.nanosec = int(round(t % 1 * 1e9))
        goal.trajectory.points.append(point)
    return goal


def _q(probe):
    state = probe.newest('/joint_states')
    index = {n: i for i, n in enumerate(state.name)}
    return np.array([state.position[index[n]] for n in NAMES])


def _series(probe, since=0.0):
    """(stamps [s], q (m, n), effort (m, n)) of /joint_states received after ``since``."""
    rows = [(msg.header.stamp.sec + 1e-9 * msg.header.stamp.nanosec, msg)
            for t, msg in probe.log['/joint_states'] if t >= since]
    if not rows:  # none heard: the case that asked fails on it, not the whole module
        return np.zeros(0), np.zeros((0, len(NAMES))), np.zeros((0, len(NAMES)))
    index = {n: i for i, n in enumerate(rows[0][1].name)}
    order = [index[n] for n in NAMES]
    stamps = np.array([s for s, _ in rows])
    q = np.array([[m.position[i] for i in order] for _, m in rows])
    effort = np.array([[m.effort[i] for i in order] for _, m in rows])
    return stamps, q, effort


def _worst_step(stamps, effort):
    """Largest applied-torque step between consecutive recorded states, per cycle's budget
    [N m]: the controller steps at most max_torque_rate x min(elapsed, period) a cycle.
    The states come one per cycle, so two recorded states round(gap / period) cycles apart
    hold that many steps (the recorder lost the states between; counted in cycles, not in
    time: a state's effort is the command of the cycle before, so a time budget would be
    off by one cycle's jitter); a gap longer than STALL is one late cycle (the loop stood
    still: SIGSTOP, the host): one cycle's budget."""
    steps = np.abs(np.diff(effort, axis=0)).max(axis=1)
    gaps = np.diff(stamps)
    periods = np.where(gaps > STALL, 1.0, np.maximum(np.round(gaps / PERIOD), 1.0))
    return float((steps / periods).max()) if steps.size else 0.0


def _applied(probe, since=0.0):
    """The largest applied-torque change in one cycle [N m] among the cycles after
    ``since`` (receipt time), from the hardware's witness: (worst, witness messages
    received, the stamp [s] of the message that showed it). A cycle whose message was lost
    is still counted: when the running maximum rose over the window, the cycle that raised
    it lies in the window; when it did not, every lost cycle stayed below the maximum at the
    window's start, which the whole run's check bounds."""
    before = [msg for t, msg in probe.log[WITNESS] if t < since]
    inside = [msg for t, msg in probe.log[WITNESS] if t >= since]
    if not inside:
        return 0.0, 0, float('nan')
    start = max(before[-1].position) if before else 0.0
    worst, stamp = -1.0, float('nan')
    for msg in inside:
        step = max(max(msg.velocity), max(msg.position) if max(msg.position) > start else 0.0)
        if step > worst:
            worst, stamp = step, _stamp_of(msg)
    return float(worst), len(inside), stamp


def _within_step(applied):
    """True when a window's witness (``_applied``) was received and stays within STEP."""
    worst, count, _ = applied
    return count > 0 and worst <= STEP * 1.001


def _largest_steps(stamps, effort, count=3):
    """The ``count`` largest applied steps: (stamp, gap to the state before [s], step)."""
    steps = np.abs(np.diff(effort, axis=0)).max(axis=1)
    order = np.argsort(steps)[::-1][:count]
    return [(round(stamps[k + 1], 4), round(stamps[k + 1] - stamps[k], 4), round(steps[k], 3))
            for k in order]


def require_lockstep(env):
    """Skip, saying why, unless the workspace has the lock-step MuJoCo hardware."""
    prefixes = env['AMENT_PREFIX_PATH'].split(os.pathsep)
    if not any(os.path.exists(os.path.join(p, 'lib', 'librobodyn_mujoco_lockstep.so'))
               for p in prefixes):
        pytest.skip('robodyn_controllers (C++, with MujocoLockstepSystem) was not built: '
                    'scripts/setup.sh could not install its build tools')


@pytest.fixture(scope='module')
def campaign(ros_launch_env, tmp_path_factory):
    _require('mujoco_ros2_control')
    require_lockstep(ros_launch_env)
    from diagnostic_msgs.msg import DiagnosticArray
    from sensor_msgs.msg import JointState
    from test_ros2_control_launch import _config
    result = {}
    # the collision observer on, reaction report (the law unchanged): no case touches
    # anything, so every declaration would be a false one
    config = _config(tmp_path_factory.mktemp('campaign'), collision=COLLISION)
    # ROBODYN_CAMPAIGN_MODE=M runs the campaign with the law M (mode:=M, its demo gains)
    mode = os.environ.get('ROBODYN_CAMPAIGN_MODE', '')
    with _Hogs():
        launch = _Launch(ros_launch_env, DOMAIN, 'controller:=plugin', 'hardware:=mujoco',
                         'robot:=panda', 'fault_injection:=true', f'config:={config}',
                         *((f'mode:={mode}',) if mode else ()))
        assert launch.wait_for(ACTIVE, 180.0), ''.join(launch.lines[-40:])
        assert launch.wait_for('sent ', 60.0)
        probe = Probe(DOMAIN)
        probe.record('/joint_states', JointState, depth=20000)
        probe.record('/diagnostics', DiagnosticArray, depth=5000)
        probe.record(WITNESS, JointState, depth=20000)
        heard = probe.hear(['/joint_states', WITNESS], 60.0)
        probe.spin(1.0)
        try:
            assert heard, 'the probe heard no /joint_states or witness in 60 s'
            _cases(probe, launch, result)
            result['states'] = _series(probe)
            result['applied'] = _applied(probe)
            result['diagnostics'] = _reasons(probe)
            result['diagnostics_stamped'] = _reasons(probe, stamped=True)
            result['collisions'] = _collisions(probe)
        finally:
            probe.close()
            result['code'], result['text'], result['exit_s'] = launch.stop()
            result['timeline'] = launch.exit_timeline()
    return result


def _mark(probe, result, name):
    """The stamp [s] of the last state received when case ``name`` starts (a step's stamp
    then says which case it fell in)."""
    result.setdefault('marks', []).append((probe.latest_stamp('/joint_states'), name))


def _case_of(result, stamp):
    """The case a state's ``stamp`` fell in."""
    names = [name for start, name in result.get('marks', []) if start <= stamp]
    return names[-1] if names else 'start'


def _cases(probe, launch, result):
    from action_msgs.msg import GoalStatus
    q = _q(probe)  # out of the configured sum of sines: to where the arm is, gently
    result['settle'] = probe.follow(JTC_ACTION, _goal(NAMES, [q, q], [2.0, 4.0],
                                                      [np.zeros(7)] * 2))
    probe.spin(1.0)
    q = _q(probe)
    _mark(probe, result, 'acceleration')
    # 1. an acceleration on the last point (within joint 7's limit): the arm settles on the
    # point, not a / kp (75 / 400 = 0.19 rad) beyond it
    target = q + np.array([0, 0, 0, 0, 0, 0, 0.1])
    acc = np.zeros((1, 7))
    acc[0, 6] = 75.0
    # (0.3 s: the JTC's quintic to a point with an acceleration swings 0.19 rad at 1.7 rad/s,
    # within the limits; over 2 s it would swing 5 rad at 10 rad/s: refused, below)
    result['acceleration_goal'] = probe.follow(
        JTC_ACTION, _goal(NAMES, [target], [0.3], [np.zeros(7)], acc))
    probe.spin(1.0)
    result['after_acceleration'] = _q(probe) - target
    # 1b. one beyond joint 1's acceleration limit: refused (held, the goal not SUCCEEDED)
    q = _q(probe)
    acc = np.zeros((1, 7))
    acc[0, 0] = 3000.0
    result['huge_acceleration'] = probe.follow(
        JTC_ACTION, _goal(NAMES, [q + 0.05], [1.0], [np.zeros(7)], acc))[1]
    q = _q(probe)
    acc = np.zeros((1, 7))
    acc[0, 6] = 75.0
    result['swinging_quintic'] = probe.follow(
        JTC_ACTION, _goal(NAMES, [q + np.array([0, 0, 0, 0, 0, 0, 0.1])], [2.0],
                          [np.zeros(7)], acc))[1]
    q = _q(probe)  # recover: a fresh reference where the arm is
    probe.follow(JTC_ACTION, _goal(NAMES, [q, q], [1.0, 2.0], [np.zeros(7)] * 2))
    probe.spin(0.5)
    _mark(probe, result, 'bad goals')
    # 2. goals the arm cannot follow
    q = _q(probe)
    beyond = q.copy()
    beyond[0] = 3.5  # panda_joint1's limit is 2.8973
    fast = q + np.array([0, 0, 0, 0, 0, 0, 1.5])
    result['bad_goals'] = {
        'beyond_limit': probe.follow(JTC_ACTION, _goal(NAMES, [beyond], [4.0]))[1],
        'too_fast': probe.follow(JTC_ACTION, _goal(NAMES, [fast], [0.01]))[1],
        'huge_acceleration': result['huge_acceleration'],
        'swinging_quintic': result['swinging_quintic'],
        'huge_velocity': probe.follow(JTC_ACTION, _goal(
            NAMES, [q + 0.01], [1.0], [np.full(7, 1e6)]))[1],
    }
    result['succeeded'] = GoalStatus.STATUS_SUCCEEDED
    probe.spin(2.0)
    _mark(probe, result, 'SIGSTOP')
    # 3. controller_manager stopped for 200 ms in a move
    q = _q(probe)
    since = time.monotonic()
    moving = _goal(NAMES, [q + 0.3, q], [2.0, 4.0])
    client = probe.action_client(JTC_ACTION)
    handle = probe.wait(client.send_goal_async(moving)) if client else None
    probe.spin(1.0)
    stall(_manager_pid(), 0.2)
    if handle is not None:
        probe.wait(handle.get_result_async(), 10.0)
    result['stop_window'] = _series(probe, since)
    result['stop_applied'] = _applied(probe, since)
    probe.spin(1.0)
    _mark(probe, result, 'broadcaster unloaded')
    # 3b. the joint_state_broadcaster unloaded and loaded again in a move: the chain reads
    # the hardware's interfaces itself, so the move goes on without a step
    q = _q(probe)
    since = time.monotonic()
    target = q - 0.2 * np.sign(q - MIDDLE)  # towards the middle of the range: inside it
    handle = probe.wait(client.send_goal_async(_goal(NAMES, [target, q], [2.0, 4.0],
                                                     [np.zeros(7)] * 2)))
    probe.spin(0.5)
    result['broadcaster'] = [probe.switch([], ['joint_state_broadcaster']),
                             _manager(probe, 'unload', 'joint_state_broadcaster'),
                             _manager(probe, 'load', 'joint_state_broadcaster'),
                             _manager(probe, 'configure', 'joint_state_broadcaster'),
                             probe.switch(['joint_state_broadcaster'], [])]
    done = probe.wait(handle.get_result_async(), 10.0) if handle is not None else None
    result['broadcaster_goal'] = (done.status, done.result.error_string) if done else None
    probe.spin(0.5)
    result['broadcaster_applied'] = _applied(probe, since)
    _mark(probe, result, 'release')
    # 4. the whole chain deactivated mid-motion
    q = _q(probe)
    handle = probe.wait(client.send_goal_async(_goal(NAMES, [q + 0.4, q], [3.0, 6.0])))
    probe.spin(1.5)
    released_at = time.monotonic()
    result['released'] = probe.switch([], ['joint_trajectory_controller',
                                           'robodyn_controller'])
    # 10 s of states stamped after the switch's answer (the hardware's clock, the wall
    # clock here): a probe that hears them late under load spins on for them, 25 s at most
    until, deadline = time.time() + 10.5, time.monotonic() + 25.0
    probe.spin(10.0)
    probe.spin_until_stamped('/joint_states', until, deadline)
    result['release_window'] = _series(probe, released_at)
    result['release_applied'] = _applied(probe, released_at)
    result['hardware_said'] = launch.wait_for(RELEASED, 1.0)
    _mark(probe, result, 'reload, JTC alone, refused goals')
    _reload_and_jtc_cases(probe, client, result)
    # 5. states the hardware corrupts, each in a slow move of a chain re-activated for it
    result['injected'] = {}
    for request, _ in INJECTED:
        _mark(probe, result, f'injected {request}')
        result['injected'][request] = _injected(probe, client, request, launch)


def _manager(probe, kind, name):
    """controller_manager's load / configure / unload of ``name``: True when it succeeded."""
    from controller_manager_msgs import srv
    service = {'load': srv.LoadController, 'configure': srv.ConfigureController,
               'unload': srv.UnloadController}[kind]
    response = probe.call(service, f'/controller_manager/{kind}_controller',
                          service.Request(name=name))
    return bool(response and response.ok)


def _reload_and_jtc_cases(probe, client, result):
    """From the released chain: the robodyn controller unloaded and loaded again (the
    hardware holds meanwhile), the chain back; the JTC alone deactivated mid-motion (the
    robodyn controller's reference stops: it holds); goals the JTC must refuse (NaN
    positions, time going backwards, a million joint names). Ends with the chain released."""
    since = time.monotonic()
    result['reloaded'] = [_manager(probe, 'unload', 'robodyn_controller'),
                          _manager(probe, 'load', 'robodyn_controller'),
                          _manager(probe, 'configure', 'robodyn_controller'),
                          probe.switch(['robodyn_controller', 'joint_trajectory_controller'],
                                       [])]
    probe.spin(1.0)
    result['reload_window'] = _series(probe, since)
    result['reload_applied'] = _applied(probe, since)
    q = _q(probe)
    target = q - 0.3 * np.sign(q - MIDDLE)
    handle = probe.wait(client.send_goal_async(_goal(NAMES, [target, target], [3.0, 4.0])))
    probe.spin(1.0)
    result['jtc_off'] = probe.switch([], ['joint_trajectory_controller'])
    off_at, off_wall = time.monotonic(), time.time()
    if handle is not None:
        probe.wait(handle.get_result_async(), 5.0)
    # 5 s of states stamped after the switch (the hardware's clock, the wall clock here): a
    # probe that hears them late under the hogs spins on for them
    probe.spin_until_stamped('/joint_states', off_wall + 5.0, time.monotonic() + 25.0)
    result['jtc_off_window'] = _series(probe, off_at)
    result['jtc_off_applied'] = _applied(probe, off_at)
    result['jtc_on'] = probe.switch(['joint_trajectory_controller'], [])
    probe.spin(1.0)
    q = _q(probe)
    backwards = _goal(NAMES, [q + 0.01, q + 0.02], [2.0, 1.0])
    names = [f'joint_{k}' for k in range(1_000_000)]
    _mark(probe, result, 'refused goals')
    result['refused_goals'] = {
        'nan_positions': probe.follow(JTC_ACTION, _goal(NAMES, [np.full(7, np.nan)],
                                                        [1.0]))[1],
        'time_backwards': probe.follow(JTC_ACTION, backwards)[1],
        'million_names': probe.follow(JTC_ACTION, _goal(names, [np.zeros(len(names))],
                                                        [1.0]), timeout=30.0)[1],
    }
    probe.spin(1.0)
    result['refused_window'] = _series(probe, off_at)
    result['refused_applied'] = _applied(probe, off_at)
    probe.switch([], ['joint_trajectory_controller', 'robodyn_controller'])


def _injected(probe, client, request, launch):
    """Re-activate the chain, start a slow move, corrupt the states for a while: (seconds
    from the hardware taking the request (its log line's stamp) to the stamp of the first
    /diagnostics ERROR of the controller, and its message; the move's status; the states
    of the 3 s after the request; the steps applied; the arm's largest distance from the
    goal when the goal ended [rad]). Both stamps are the launch's clock: the delay is the
    controller's, not the probe's discovery of its new publisher or its receipt."""
    from std_msgs.msg import String
    publisher = probe.node.create_publisher(String, INJECT, 10)
    _matched(probe, publisher)  # first: under load discovery can outlast the move
    probe.switch(['robodyn_controller', 'joint_trajectory_controller'], [])
    probe.spin(1.0)
    q = _q(probe)
    target = q - 0.3 * np.sign(q - MIDDLE)  # towards the middle of the range: inside it
    handle = probe.wait(client.send_goal_async(_goal(NAMES, [target, target], [3.0, 4.0])))
    speed = _moving(probe, MOVING, 5.0)  # a frozen stream is a fault only while moving
    since = time.monotonic()
    publisher.publish(String(data=request))
    probe.spin(3.0)
    deadline = time.monotonic() + 10.0  # under load the probe can hear the window late
    while not any(t >= since for t, _ in probe.log['/joint_states'][-50:]) and \
            time.monotonic() < deadline:
        probe.spin(0.5)
    done = probe.wait(handle.get_result_async(), 10.0) if handle is not None else None
    off = float(np.abs(_q(probe) - target).max())  # where the arm ended, from the goal
    error, said = None, []
    for t, msg in probe.log['/diagnostics']:
        for status in msg.status:
            if status.name != 'robodyn_controller' or t < since:
                continue
            if not said or said[-1][1] != status.message:
                said.append((round(t - since, 3), status.message))
            if error is None and status.level == b'\x02':
                error = (_stamp_of(msg) - _injection_stamp(launch, request), status.message)
    before = [s.message for t, m in probe.log['/diagnostics'] for s in m.status
              if s.name == 'robodyn_controller' and t < since][-1:]
    said.insert(0, ('before', before, 'from q', np.round(q, 4).tolist(), 'fastest joint',
                    round(speed, 4)))  # the case's start
    window, applied = _series(probe, since), _applied(probe, since)
    probe.switch([], ['joint_trajectory_controller', 'robodyn_controller'])
    probe.node.destroy_publisher(publisher)
    return error, (done.status if done else None), window, said, applied, off


def _moving(probe, speed, timeout):
    """Spin until a joint of /joint_states moves faster than ``speed`` [rad/s] (``timeout``
    [s] at most, from 0.5 s on); the fastest joint's speed then."""
    deadline, fastest = time.monotonic() + timeout, 0.0
    probe.spin(0.5)
    while time.monotonic() < deadline:
        fastest = float(np.max(np.abs(probe.newest('/joint_states').velocity)))
        if fastest > speed:
            break
        probe.spin(0.05)
    return fastest


def _matched(probe, *publishers, timeout=30.0):
    """Spin until each publisher has a subscriber (the hardware's), ``timeout`` [s] at
    most: under load discovery takes seconds, and a message published before is lost."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and \
            any(p.get_subscription_count() < 1 for p in publishers):
        probe.spin(0.1)


def _injection_stamp(launch, request):
    """The stamp [s] of the hardware's last 'injecting <kind>' log line (NaN: none)."""
    kind = request.split()[0]
    found = logged(launch.lines, f'MujocoTestSystem: injecting {kind} ')
    return found[-1].stamp if found else float('nan')


def _reasons(probe, stamped=False):
    """[(receipt time, or with ``stamped`` its stamp; message)] of the robodyn controller's
    /diagnostics, changes only."""
    out = []
    for t, msg in probe.log['/diagnostics']:
        for status in msg.status:
            if status.name == 'robodyn_controller' and (not out or out[-1][1] != status.message):
                out.append((round(_stamp_of(msg) if stamped else t, 3), status.message))
    return out


def _collisions(probe):
    """[(stamp, the controller's collision count)] where the count changed."""
    out = []
    for _, msg in probe.log['/diagnostics']:
        for status in msg.status:
            values = {v.key: v.value for v in status.values}
            if status.name == 'robodyn_controller' and 'collisions' in values and \
                    (not out or out[-1][1] != int(values['collisions'])):
                out.append((_stamp_of(msg), int(values['collisions'])))
    return out


def _reasons_between(result, case):
    """The controller's /diagnostics changes during ``case`` (by the marks' stamps)."""
    marks = result.get('marks', [])
    start = next((t for t, name in marks if name == case), None)
    later = [t for t, name in marks if start is not None and t > start]
    end = min(later) if later else float('inf')
    return [(t, text) for t, text in result.get('diagnostics_stamped', [])
            if start is not None and start <= t < end]


def _manager_pid():
    out = subprocess.run(['pgrep', '-f', 'lib/controller_manager/ros2_control_node'],
                         capture_output=True, text=True).stdout.split()
    pids = [int(p) for p in out if int(p) != os.getpid()]
    assert pids, 'no ros2_control_node running'
    return max(pids)


def test_an_acceleration_on_the_last_point_does_not_offset_the_arm(campaign):
    accepted, status, _ = campaign['acceleration_goal']
    assert accepted and status == campaign['succeeded'], (campaign['acceleration_goal'],
                                                          campaign['diagnostics'])
    offset = np.abs(campaign['after_acceleration']).max()
    assert offset < 0.01, f'{offset:.4f} rad from the goal (75 rad/s^2 / kp 400 = 0.19)'


def test_goals_the_arm_cannot_follow_do_not_succeed(campaign):
    for name, status in campaign['bad_goals'].items():
        assert status != campaign['succeeded'], f'{name}: SUCCEEDED'
    holds = [text for _, text in campaign['diagnostics'] if text.startswith('hold: the '
                                                                           'reference of')]
    assert holds, 'the controller never said why it held the arm'
    # refused before its stopping point leaves the range, the goal beyond joint 1's limit
    # (0.875 rad/s towards it) stops the arm inside the position guard: no trip
    trips = [text for _, text in _reasons_between(campaign, 'bad goals')
             if text.startswith('safe')]
    assert not trips, trips


def test_a_stopped_controller_manager_gives_no_step(campaign):
    assert _within_step(campaign['stop_applied']), campaign['stop_applied']


def test_the_broadcaster_unloaded_in_a_move_changes_nothing(campaign):
    """The robodyn controller and the JTC read the hardware's interfaces, not
    /joint_states: the move goes on to SUCCEEDED, without a step."""
    assert all(campaign['broadcaster']), campaign['broadcaster']
    assert campaign['broadcaster_goal'][0] == campaign['succeeded'], \
        (campaign['broadcaster_goal'], _reasons_between(campaign, 'broadcaster unloaded'))
    assert _within_step(campaign['broadcaster_applied']), campaign['broadcaster_applied']


def test_the_released_arm_stays_where_it_was_released(campaign):
    assert campaign['released']
    stamps, q, effort = campaign['release_window']
    assert stamps[-1] - stamps[0] > 9.0
    drift = float(np.abs(q - q[0]).max())
    assert drift <= DRIFT, f'drift {drift:.4f} rad over {stamps[-1] - stamps[0]:.1f} s'
    assert _within_step(campaign['release_applied']), campaign['release_applied']
    assert campaign['hardware_said']


def test_no_applied_step_above_the_limit_over_the_run(campaign):
    """The witness's running maximum over the whole run, whatever messages were lost; and
    it is alive: the run's moves and trips do change the torque."""
    worst, count, stamp = campaign['applied']
    print(f'applied-step witness: worst {worst:.4f} N m in one cycle over the run '
          f'({count} messages received, worst in case {_case_of(campaign, stamp)!r})')
    assert _within_step(campaign['applied']), (worst, count, _case_of(campaign, stamp))
    assert worst > 0.1 * STEP, f'the witness saw no torque change: {worst} N m in {count}'


def test_the_launch_exits_within_2_s(campaign):
    assert campaign['exit_s'] < 2.0, campaign['timeline'][-3000:]


@pytest.mark.parametrize('request_, words', INJECTED)
def test_corrupted_states_are_named_and_the_arm_brought_to_rest(campaign, request_, words):
    error, status, (stamps, q, effort), said, applied, off = campaign['injected'][request_]
    assert _within_step(applied), (request_, applied)
    if words is None:  # a late read(): no fault, no step
        assert error is None, (error, said)
        return
    assert error is not None and words in error[1], (request_, error, said)
    # named at once, from the hardware taking the request to the stamp of the controller's
    # ERROR (a state fault is published within 10 ms; 0.05 s of a frozen stream first)
    assert 0.0 <= error[0] < 0.3, error
    # the goal's result says what the arm did: SUCCEEDED only with the arm at the goal
    # (within the JTC's goal tolerance); beside two hogs the probe, hearing states late,
    # injected once as the move ended and the faulted arm rested within it
    print(f'{request_}: goal status {status}, the arm {off:.4f} rad from the goal')
    assert status != campaign['succeeded'] or off <= GOAL_TOLERANCE, (request_, off, said)
    # brought to rest: the last second's states (true again) move less than 0.01 rad
    assert len(stamps), (request_, 'no /joint_states heard after the injection', said)
    last = stamps >= stamps[-1] - 1.0
    assert np.abs(q[last] - q[last][0]).max() < 0.01, request_


def test_an_unloaded_and_reloaded_controller_gives_no_step(campaign):
    assert all(campaign['reloaded']), campaign['reloaded']
    stamps, q, effort = campaign['reload_window']
    assert _within_step(campaign['reload_applied']), campaign['reload_applied']
    assert np.abs(q - q[0]).max() <= DRIFT


def test_the_jtc_deactivated_alone_leaves_the_arm_held(campaign):
    """The robodyn controller's reference stops where the JTC left it: at rest there."""
    assert campaign['jtc_off'] and campaign['jtc_on']
    stamps, q, effort = campaign['jtc_off_window']
    assert _within_step(campaign['jtc_off_applied']), campaign['jtc_off_applied']
    late = stamps >= stamps[0] + 1.0  # after the switch's reply and the stop
    assert late.any(), f'the probe heard {stamps[-1] - stamps[0]:.2f} s of states after ' \
        'the switch, not the 1 s needed to judge the hold'
    drift = float(np.abs(q[late] - q[late][0]).max())
    assert drift <= DRIFT, f'{drift:.4f} rad over {stamps[-1] - stamps[late][0]:.1f} s'


def test_goals_the_jtc_must_refuse_do_not_succeed_or_step(campaign):
    assert _within_step(campaign['refused_applied']), campaign['refused_applied']
    statuses = campaign['refused_goals']
    assert statuses['time_backwards'] != campaign['succeeded']
    assert statuses['million_names'] != campaign['succeeded']


@pytest.mark.xfail(strict=True, reason='upstream: the JointTrajectoryController accepts a '
                   'goal with NaN positions, and its tolerances compare NaN as within them; '
                   'the robodyn controller holds the arm (no step: the test above)')
def test_a_goal_with_nan_positions_does_not_succeed(campaign):
    assert campaign['refused_goals']['nan_positions'] != campaign['succeeded']


def test_no_collision_is_declared_in_a_campaign_that_touches_nothing(campaign):
    """The observer beside every fault of the campaign (late cycles, SIGSTOP of the loop,
    hostile goals, switches and unloads, states that are NaN, out of range, frozen or
    jumping): nothing is touched, so no declaration. A lying stream is refused by the
    state guard before the observer sees it, and nothing is declared in the safe mode it
    latches (docs/collisions.md). Each declaration is named by its case."""
    changes = campaign['collisions']
    declared = [(_case_of(campaign, t), count) for (t, count), before in
                zip(changes, [0] + [c for _, c in changes[:-1]]) if count > before]
    print(f'collision counts over the campaign: {changes[-1:] or "none said"}; '
          f'declarations by case: {declared}')
    assert changes, 'the controller never said its collision count'
    assert not declared, declared
