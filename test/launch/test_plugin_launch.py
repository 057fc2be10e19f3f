"""`ros2 launch robodyn_ros ros2_control.launch.py` (controller:=plugin, the default): the
real JointTrajectoryController chained into the C++ robodyn_controllers controller inside
controller_manager's loop, MuJoCo physics (stepped in controller_manager's loop, and
mujoco_ros2_control's free-running plugin), two CPU hogs running throughout, and
ros2_control_node under SCHED_FIFO when this machine allows it."""

import os
import time

from error_terms import error_term_failures
from machine_stalls import Stalls, rerun_after_stalls
import numpy as np
import pytest
from ros2_control_probe import Probe, launch_said, moveit_like_goal
from ros2_control_probe import stamp as _stamp
from test_ros2_control_launch import (
    JTC_ACTION,
    NAMES,
    _Hogs,
    _Launch,
    _realtime_priority,
    _require,
)

pytestmark = pytest.mark.integration

MAX_TORQUE_RATE = 1000.0  # config/panda.yaml [N m/s]
#: Worst-joint tracking RMS bound [rad] per hardware (docs/benchmarks.md): lock-step
#: physics, 3.3e-5 quiet (the bound: three times that, what a 1 kHz loop beside two hogs
#: is given); mujoco_ros2_control's plugin hands states a few physics steps old (its own
#: documentation), 1.3-5.2e-4.
MAX_RMS = {'mujoco': 1e-4, 'mujoco_ros2_control': 2e-3}
ACTIVE = 'Configured and activated joint_trajectory_controller'
#: After a stall of the loop the law is judged again this much later [s]: the JTC's
#: reference, timed by the wall clock, jumped as far ahead as the stall was long, and the
#: law (kp 400, critically damped: about 0.3 s) catches up within the rate limit.
SETTLE = 0.5
#: At most this fraction of the states may be counted apart after stalls: a loop that
#: stalls all the time fails.
MAX_EXCLUDED = 0.25
#: The fewest recorded states that judge a run's tracking (2 s of a 1 kHz stream).
MIN_SAMPLES = 2000
#: Every process of the launch, launch included, is gone this long [s] after Ctrl-C.
EXIT_S = 2.0


@pytest.fixture(scope='module', params=sorted(MAX_RMS))
def plugin_run(request, ros_launch_env, tmp_path_factory):
    """20 s of the configured sum of sines through JTC -> robodyn plugin -> MuJoCo, then a
    MoveIt-like goal to the real JTC, then the JTC switched off (the plugin must hold).

    Run again (machine_stalls.RUNS in all at most) when the tracking failed, too many
    states were set apart after stalls, or the launch took EXIT_S or longer to exit, in a
    run in which the whole machine stood still (a witness process that only sleeps woke
    machine_stalls.STALL late): this VM sometimes stops as a whole, and the loop and the
    recorder with it. The run that counts is the last; each earlier one's stalls and
    verdict are printed."""
    _require('mujoco_ros2_control')
    if request.param == 'mujoco_ros2_control' and not os.environ.get('ROBODYN_FULL'):
        pytest.skip('the third-party mujoco_ros2_control hardware under load (3 to 6 min) runs '
                    'with ROBODYN_FULL=1; the lock-step MuJoCo variant runs the same chain '
                    'in every suite')
    if 'robodyn_controllers' not in ros_launch_env['AMENT_PREFIX_PATH']:
        pytest.skip('robodyn_controllers (C++) was not built: scripts/setup.sh could not '
                    'install its build tools')
    prefixes = ros_launch_env['AMENT_PREFIX_PATH'].split(os.pathsep)
    lockstep = [p for p in prefixes if os.path.exists(
        os.path.join(p, 'lib', 'librobodyn_mujoco_lockstep.so'))]
    if request.param == 'mujoco' and not lockstep:
        pytest.skip('robodyn_controllers was built without MuJoCo (MujocoLockstepSystem)')
    return rerun_after_stalls(
        lambda: _plugin_run(ros_launch_env, tmp_path_factory, request.param),
        lambda result: _failed(result, request.param), request.param)


def _failed(result, hardware):
    """Why a run fails the tests below, or None (it passes, or never became active); the
    run's report goes into ``result``."""
    if not result['active']:
        return None
    result['report'] = _validate(result['bag'], MAX_RMS[hardware])
    joints = result['report']['joints']
    worst = max(joints, key=lambda name: joints[name]['rms'])
    print(f"{hardware}: worst-joint RMS {joints[worst]['rms']:.3g} rad ({worst}; bound "
          f'{MAX_RMS[hardware]:g}), {_set_apart(result["report"])[0]} states set apart after '
          f"stalls, exit {result['exit_s']:.2f} s after Ctrl-C")
    if result['exit_s'] >= EXIT_S:
        return f"the launch exited {result['exit_s']:.2f} s after Ctrl-C"
    return _judged(result['report'], hardware)


def _judged(report, hardware):
    """Why a run's report fails the tests below (tracking, its error's terms on the
    lock-step physics, or too many states set apart after stalls), or None."""
    if not report['passed']:
        return f"tracking failed ({report['failures']})"
    terms = error_term_failures(report, hardware) if hardware == 'mujoco' else []
    if terms:
        return f'the error has terms the model does not explain: {terms}'
    excluded, total = _set_apart(report)
    if excluded > MAX_EXCLUDED * total:
        return f'{excluded} states set apart after stalls, of {total}'
    return None


def _set_apart(report):
    """(states set apart after stalls, states recorded in all) of a run's report."""
    excluded = report['overall']['excluded_after_stalls']
    return excluded, excluded + report['overall']['samples']


def _plugin_run(ros_launch_env, tmp_path_factory, hardware):
    from diagnostic_msgs.msg import DiagnosticArray
    from sensor_msgs.msg import JointState

    bag = str(tmp_path_factory.mktemp('plugin') / 'bag')
    result = {'bag': bag, 'hardware': hardware}
    stalls = Stalls()
    with _Hogs():
        launch = _Launch(ros_launch_env, 85, 'controller:=plugin', f'hardware:={hardware}',
                         f'bag_path:={bag}', f'realtime_priority:={_realtime_priority()}')
        result['active'] = launch.wait_for(ACTIVE, 180.0) and launch.wait_for('sent ', 60.0)
        t0 = time.monotonic()
        if result['active']:
            probe = Probe(85)
            probe.record('/robodyn_controller/reference', JointState, depth=20000)
            probe.record('/joint_states', JointState, depth=20000)
            probe.record('/diagnostics', DiagnosticArray)
            probe.spin(20.0)
            _goals_and_switches(probe, result)
            result['log'] = probe.log
            probe.close()
        result['code'], result['text'], result['exit_s'] = launch.stop()
        result['timeline'] = launch.exit_timeline()
    result['stalls'] = stalls.since(t0, lead=5.0)  # from 5 s before the recorded 20 s
    return result


def _goals_and_switches(probe, result):
    states = probe.log['/joint_states']
    q0 = dict(zip(states[-1][1].name, states[-1][1].position))
    goal = moveit_like_goal(NAMES, [q0[n] for n in NAMES], tolerance=0.05)
    # on the way, the launch's 0.1 rad: a stall of this loaded host (the JTC's wall-clock
    # reference jumps while the physics waits) moves the arm up to 0.07 rad off the path
    goal.path_tolerance = []
    result['goal'] = probe.follow(JTC_ACTION, goal)
    result['preempted'] = probe.preempt(JTC_ACTION, goal)
    result['canceled'] = probe.cancel(JTC_ACTION, goal)
    # Wall times against message stamps (system time): when each switch had taken effect
    # (its service answered: under the hogs finding the service can take a second), and
    # when the switch back was asked for.
    result['switch_at'] = time.monotonic()
    result['switched'] = probe.switch([], ['joint_trajectory_controller'])
    result['switch_wall'] = time.time()
    probe.spin(3.0)
    result['back_wall'] = time.time()
    result['switched_back'] = probe.switch(['joint_trajectory_controller'], [])
    result['back_done_wall'] = time.time()
    probe.spin(2.0)


def _validate(bag, max_rms):
    """The law's own tracking: the states within SETTLE of a stall of the loop (a gap of
    /joint_states over 20 ms: the physics went on with the last command while the JTC's
    wall-clock reference jumped ahead) are counted apart (validate --settle-after-stall).
    And what the arm was given: the effort the lock-step hardware reports (the torque it
    applied) changes by at most MAX_TORQUE_RATE x one period a cycle (--max-torque-rate)."""
    from robodyn_ros.validation.validate import validate_bag
    return validate_bag(bag, max_rms=max_rms, plots=False, settle_after_stall=SETTLE,
                        max_torque_rate=MAX_TORQUE_RATE)


def test_the_chain_tracks_the_reference_under_load(plugin_run):
    assert plugin_run['active'], launch_said(plugin_run['text'])
    report = plugin_run['report']
    # The warnings name the stream's gaps and dropped cycles: a whole-loop stall of the host
    # tells itself from the law's own error there.
    assert report['passed'], (report['failures'], report['warnings'], plugin_run['stalls'])
    # Enough states to judge, over the whole run: the Python recorder, niced beside the
    # hogs, loses what the machine does not give it time for (measured: 27 % to 95 % of
    # /joint_states kept), and the report counts each loss, so the judgement is the
    # recorded states', never a lost one's
    # A recorder that stopped receiving while the arm ran on says so, and the report names
    # the stretch the bag lacks: the tracking is then judged on what was recorded.
    overall = report['overall']
    silent = [w for w in report['warnings'] if 'received nothing of /joint_states' in w]
    print(f"{overall['duration']:.1f} s of states judged", silent, _recorder_lines(plugin_run))
    assert overall['samples'] >= MIN_SAMPLES and (overall['duration'] >= 15.0 or silent), \
        (overall['samples'], overall['duration'], report['warnings'])
    # Of the states the loop produced: a cycle the loop itself dropped under the hogs (a
    # stall of controller_manager, its stamps' gap) was never published, so it is no loss
    # of the recorder's (92 % of 1 kHz seen with no state lost in recording).
    dropped = (report['timing']['state'] or {}).get('dropped_cycles', 0)
    kept = (overall['samples'] + overall['excluded_after_stalls']) / max(
        1.0, 1e3 * overall['duration'] - dropped)
    assert kept > 0.95 or any('lost in recording' in w for w in report['warnings']), \
        (kept, dropped, report['warnings'])
    excluded, total = _set_apart(report)
    assert excluded <= MAX_EXCLUDED * total, (excluded, plugin_run['stalls'])


def test_the_error_has_no_acceleration_term_and_no_stamp_repeats(plugin_run):
    assert plugin_run['active'], launch_said(plugin_run['text'])
    if plugin_run['hardware'] != 'mujoco':
        pytest.skip("mujoco_ros2_control's states are a few steps old: a time shift, "
                    'judged by its RMS bound')
    failures = error_term_failures(plugin_run['report'], 'mujoco')
    assert not failures, (failures, plugin_run['stalls'])


def _recorder_lines(run):
    """What the launch's recorder said, and any line of the DDS library (its transports)."""
    return [line[:300] for line in run['text'].splitlines()
            if 'recorder' in line or 'RTPS' in line or 'SHM' in line][-10:]


def test_a_goal_through_the_real_jtc_succeeds(plugin_run):
    assert plugin_run['active'], launch_said(plugin_run['text'])
    accepted, status, result = plugin_run['goal']
    assert accepted and status == 4, (status, result)  # GoalStatus.STATUS_SUCCEEDED


def test_preempt_and_cancel_end_as_the_jtc_ends_them(plugin_run):
    """A second goal preempts the first: the JTC ends the first (ABORTED, INVALID_GOAL
    here: its preempt_active_goal) and the second runs; a cancel request ends a goal
    CANCELED; one result each."""
    assert plugin_run['active'], launch_said(plugin_run['text'])
    status, code = plugin_run['preempted']
    print(f'preempted goal (status, error code): {status}, {code}')
    assert status in (5, 6) and code == -1, (status, code)  # CANCELED / ABORTED
    assert plugin_run['canceled'] == (True, 5), plugin_run['canceled']


def test_without_the_jtc_the_plugin_holds_the_position_and_says_so(plugin_run):
    assert plugin_run['active'] and plugin_run['switched'], launch_said(plugin_run['text'])
    # by the messages' stamps: under the hogs the probe drains a backlog after the switch
    settled, back = plugin_run['switch_wall'] + 0.5, plugin_run['back_wall']
    messages = [s.message for _, m in plugin_run['log']['/diagnostics']
                if settled < _stamp(m) < back for s in m.status
                if s.name == 'robodyn_controller']
    assert messages and all(m.startswith('hold:') for m in messages), messages[-3:]
    after = [m for _, m in plugin_run['log']['/joint_states'] if settled < _stamp(m) < back]
    q = np.array([m.position[:7] for m in after])
    assert len(q) > 1000, f'{len(q)} joint states recorded in the hold window'
    assert np.max(np.ptp(q, axis=0)) < 1e-3, (np.ptp(q, axis=0), messages)


def test_the_jtc_switched_back_in_resumes_the_chain_where_the_arm_is(plugin_run):
    """JTC active again: it holds where it is, the plugin follows its reference again, the
    arm stays (the rate limit over the switches is test_no_command_steps_beyond...)."""
    assert plugin_run['switched_back'], plugin_run['text'][-3000:]
    after = plugin_run['back_done_wall'] + 0.5
    messages = [s.message for _, m in plugin_run['log']['/diagnostics'] if _stamp(m) > after
                for s in m.status if s.name == 'robodyn_controller']
    assert messages and all(m.startswith('active:') for m in messages), messages[-3:]
    q = np.array([m.position[:7] for _, m in plugin_run['log']['/joint_states']
                  if _stamp(m) > plugin_run['switch_wall'] + 0.5])
    assert len(q) > 1000, f'{len(q)} joint states recorded after the switch back'
    assert np.max(np.ptp(q, axis=0)) < 1e-3, np.ptp(q, axis=0)


def test_no_command_steps_beyond_the_rate_limit(plugin_run):
    """Every pair of consecutive commands (the plugin's ~/reference carries each cycle's
    effort, stamped with the cycle's time) moves at most max_torque_rate x their period."""
    assert plugin_run['active'], launch_said(plugin_run['text'])
    samples = plugin_run['log']['/robodyn_controller/reference']
    received = np.array([t for t, _ in samples])
    ratio, consecutive = _rate_ratios(samples)
    assert consecutive > 10000
    i = int(np.argmax(ratio))
    assert ratio[i] <= 1.0 + 1e-9, (ratio[i], ratio[i - 2:i + 3],
                                    received[i + 1] - plugin_run['switch_at'])


def _rate_ratios(samples):
    """Each consecutive pair's largest torque change over MAX_TORQUE_RATE x the pair's
    stamp difference (0 for pairs a lost message separates), and how many pairs count."""
    # whole nanoseconds: seconds since 1970 in a float64 are only good to 0.24 us
    stamps = np.array([m.header.stamp.sec * 10 ** 9 + m.header.stamp.nanosec
                       for _, m in samples], dtype=np.int64)
    effort = np.array([m.effort for _, m in samples])
    dt, step = 1e-9 * np.diff(stamps), np.abs(np.diff(effort, axis=0)).max(axis=1)
    consecutive = (dt > 0) & (dt < 0.0015)
    ratio = np.where(consecutive, step / (MAX_TORQUE_RATE * np.maximum(dt, 1e-9)), 0.0)
    return ratio, int(consecutive.sum())


def test_the_stack_stops_on_ctrl_c(plugin_run):
    """Every process of the launch exits within 2 s of Ctrl-C, none is left."""
    from test_ros2_control_launch import _alive
    # a process past its exit deadline prints every thread's traceback (node_runner._Stop)
    where = [line for line in plugin_run['text'].splitlines() if 'File "' in line]
    assert plugin_run['exit_s'] < EXIT_S, (plugin_run['exit_s'], plugin_run['stalls'],
                                           where[-40:], plugin_run['timeline'][-3000:])
    assert not _alive(plugin_run['text'])


def test_on_mock_hardware_the_chain_comes_up_commands_within_limits_and_stops(
        ros_launch_env):
    """hardware:=mock (mock_components mirrors each effort command, the arm never moves):
    the chain comes up, the plugin follows the JTC (its tracking guard off there, as the
    launch says), every command within the effort limits and the rate limit, Ctrl-C."""
    from test_ros2_control_launch import _alive
    if 'robodyn_controllers' not in ros_launch_env['AMENT_PREFIX_PATH']:
        pytest.skip('robodyn_controllers (C++) was not built: scripts/setup.sh could not '
                    'install its build tools')
    from diagnostic_msgs.msg import DiagnosticArray
    from sensor_msgs.msg import JointState
    launch = _Launch(ros_launch_env, 86, 'controller:=plugin', 'hardware:=mock')
    active = launch.wait_for(ACTIVE, 180.0) and launch.wait_for('sent ', 60.0)
    if active:
        probe = Probe(86)
        probe.record('/robodyn_controller/reference', JointState, depth=20000)
        probe.record('/diagnostics', DiagnosticArray)
        # 2500 references, however long a loaded machine takes to find the publisher and
        # deliver them (a fixed 5 s measured the machine: 1899 under a loaded suite)
        for _ in range(600):
            probe.spin(0.1)
            if probe.count('/robodyn_controller/reference') > 2500:
                break
        log = probe.log
        probe.close()
    code, text, exit_s = launch.stop()
    assert active, text[-3000:]
    messages = [s.message for _, m in log['/diagnostics'] for s in m.status
                if s.name == 'robodyn_controller']
    assert messages and all(m.startswith('active:') for m in messages), messages[-3:]
    samples = log['/robodyn_controller/reference']
    effort = np.array([m.effort for _, m in samples])
    limits = np.array([87.0] * 4 + [12.0] * 3)  # the Panda's URDF
    assert len(effort) > 2000 and np.all(np.abs(effort) <= limits + 1e-9)
    ratio, consecutive = _rate_ratios(samples)
    assert consecutive > 1000 and ratio.max() <= 1.0 + 1e-9, ratio.max()
    assert exit_s < 2.0 and not _alive(text), (exit_s, launch.exit_timeline()[-4000:])
