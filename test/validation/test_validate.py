"""robodyn validate: synthetic bags with known errors, real rosbag2 bags, broken bags."""

import json
import os
import shutil

import numpy as np
import pytest

from robodyn_ros.cli import build_parser, run
from robodyn_ros.io import BagWriter, encode_joint_state, typestore
from robodyn_ros.io.synthetic_bags import write_tracking_bag
from robodyn_ros.validation.validate import validate_bag

pytestmark = pytest.mark.integration  # rosbag2 bags

# Copied from ../shared/data/rosbag2-real (rosbag2's own test bags, Apache-2.0).
REAL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'data',
                    'rosbag2-real')
REAL_BAGS = sorted(d for d in os.listdir(REAL) if os.path.isdir(os.path.join(REAL, d)))


def test_real_bags_are_present():
    assert len(REAL_BAGS) == 4


def _validate(argv, capsys):
    code = run(build_parser().parse_args(['validate'] + argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize('storage', ['mcap', 'sqlite3'])
def test_injected_sine_error_matches_analytic(tmp_path, storage):
    bag = str(tmp_path / 'bag')
    truth = write_tracking_bag(bag, storage, duration=5.0, amplitude=0.01, period=0.1,
                               error_joint=2, ref_offset=0.00037, drop_state_every=10,
                               drop_ref_every=7, reorder=True)
    report = validate_bag(bag, out_dir=str(tmp_path / 'out'), plots=False)
    stats = report['joints'][truth['error_joint']]
    assert abs(stats['rms'] - truth['analytic_rms']) <= 1e-6
    assert abs(stats['max_abs'] - truth['analytic_max']) <= 1e-6
    for name, other in report['joints'].items():
        if name != truth['error_joint']:
            assert other['max_abs'] <= 1e-6
    assert report['overall']['samples'] == truth['states']
    assert abs(report['overall']['max_abs'] - 0.01) <= 1e-6
    n = len(truth['joints'])
    assert abs(report['overall']['rms'] - truth['analytic_rms'] / np.sqrt(n)) <= 1e-6
    timing = report['timing']['state']
    # Every 10th of 5000 states is dropped, the last one too: 499 gaps of two periods.
    assert timing['gaps'] == timing['dropped_cycles'] == truth['states'] // 9 - 1 == 499
    saved = json.load(open(tmp_path / 'out' / 'report.json'))
    assert saved['schema_version'] == 1 and 'rms' in saved['overall']


def test_reference_time_offset_is_aligned_by_stamps(tmp_path):
    bag = str(tmp_path / 'bag')
    # Errorless data, reference stamped 0.4 ms away from the states: interpolation by
    # header stamps must give (almost) zero error, index matching would give ~1e-3 rad.
    write_tracking_bag(bag, duration=3.0, amplitude=0.0, ref_offset=0.0004,
                       drop_state_every=0, drop_ref_every=0, reorder=False)
    report = validate_bag(bag, plots=False, out_dir=str(tmp_path / 'o'))
    assert report['overall']['max_abs'] <= 1e-9


def test_cli_thresholds_pass_fail_and_yaml(tmp_path, capsys):
    bag = str(tmp_path / 'bag')
    write_tracking_bag(bag, duration=2.0, amplitude=0.01, error_joint=0)
    out = str(tmp_path / 'out')
    code, text, _ = _validate([bag, '--max-rms', '0.008', '--out', out, '--no-plots'], capsys)
    assert code == 0 and 'PASS' in text
    code, text, _ = _validate([bag, '--max-rms', '0.007', '--out', out, '--no-plots'], capsys)
    assert code == 1 and 'FAIL' in text and 'joint_1' in text
    yml = tmp_path / 'th.yaml'
    yml.write_text('max_abs: 0.02\njoints:\n  joint_1: {max_abs: 0.005}\n')
    code, text, _ = _validate([bag, '--thresholds', str(yml), '--out', out, '--no-plots'],
                              capsys)
    assert code == 1 and 'joint_1: max_abs' in text
    md = open(os.path.join(out, 'report.md')).read()
    assert '| joint_1 |' in md and 'FAIL' in md


def test_plots_are_written(tmp_path):
    bag = str(tmp_path / 'bag')
    write_tracking_bag(bag, duration=1.0)
    report = validate_bag(bag, out_dir=str(tmp_path / 'o'), plots=True)
    for name in ('tracking', 'error', 'timing'):
        assert os.path.getsize(report['plots'][name]) > 1000


@pytest.mark.parametrize('name', REAL_BAGS)
def test_real_rosbag2_bags_get_a_clear_message(name, capsys):
    code, _, err = _validate([os.path.join(REAL, name), '--no-plots', '--out',
                              '/tmp/robodyn-real-out'], capsys)
    assert code == 2
    assert err.count('\n') == 1 and 'Traceback' not in err
    assert "'/joint_states' is not in the bag" in err


def _copy_bag(tmp_path, storage):
    bag = str(tmp_path / f'good_{storage}')
    write_tracking_bag(bag, storage, duration=1.0)
    return bag


def _half_written(tmp_path):
    """A bag whose metadata.yaml is intact and whose .mcap lost its second half (File end
    magic is invalid), and the messages its metadata lists."""
    import yaml
    bag = _copy_bag(tmp_path, 'mcap')
    data_file = next(f for f in os.listdir(bag) if f.endswith('.mcap'))
    path = os.path.join(bag, data_file)
    size = os.path.getsize(path)
    with open(path, 'r+b') as handle:
        handle.truncate(size // 2)
    with open(os.path.join(bag, 'metadata.yaml'), encoding='utf-8') as handle:
        listed = yaml.safe_load(handle)['rosbag2_bagfile_information']['message_count']
    return bag, listed


def test_a_half_written_mcap_is_refused_saying_how_much_is_complete(tmp_path, capsys):
    """A verdict on part of the run the metadata promises is not a pass: exit 2, one line
    naming what is complete of what is listed."""
    bag, listed = _half_written(tmp_path)
    code, out, err = _validate([bag, '--no-plots', '--out', str(tmp_path / 'o')], capsys)
    assert code == 2 and err.count('\n') == 1 and 'Traceback' not in err, err
    assert 'damaged' in err and f' of {listed} messages (' in err and '--recover' in err, err
    assert 'PASS' not in out and not os.path.exists(tmp_path / 'o')


def test_recover_judges_the_complete_part_and_says_on_how_much(tmp_path, capsys):
    bag, listed = _half_written(tmp_path)
    code, out, _ = _validate([bag, '--no-plots', '--recover', '--out', str(tmp_path / 'o')],
                             capsys)
    report = json.load(open(tmp_path / 'o' / 'report.json'))
    share = report['recovered_share']
    assert share['listed'] == listed and 0 < share['messages'] < listed, share
    verdict = out.strip().splitlines()[-1]
    assert code in (0, 1) and f"on {share['messages']} of {listed} messages (" in verdict
    markdown = open(tmp_path / 'o' / 'report.md').read()
    assert f'of {listed} messages (' in markdown.strip().splitlines()[-1]


def test_the_default_report_folder_is_under_the_current_directory(tmp_path, capsys,
                                                                  monkeypatch):
    """Nothing is written into the bag (an archive may be read-only or shared)."""
    bag = _copy_bag(tmp_path, 'mcap')
    before = sorted(os.listdir(bag))
    work = tmp_path / 'work'
    work.mkdir()
    monkeypatch.chdir(work)
    code, out, _ = _validate([bag, '--no-plots'], capsys)
    assert code in (0, 1) and sorted(os.listdir(bag)) == before
    assert (work / 'validation' / 'good_mcap' / 'report.json').exists(), out


def test_a_joint_without_error_prints_no_negative_zero(tmp_path, capsys):
    from robodyn_ros.validation.metrics import TrackingStats
    stats = TrackingStats(2, 1e-3)
    stats.add(np.array([0.0, 0.001]), np.array([[0.0, -0.0], [-0.0, 1e-4]]))
    result = stats.result(['a', 'b'])
    assert result is not None
    text = repr(result)
    assert '-0.0' not in text and np.copysign(1.0, result['joints']['a']['max_abs']) == 1.0


def test_corrupted_sqlite_exit_2(tmp_path, capsys):
    bag = _copy_bag(tmp_path, 'sqlite3')
    data_file = next(f for f in os.listdir(bag) if f.endswith('.db3'))
    with open(os.path.join(bag, data_file), 'r+b') as handle:
        handle.seek(0)
        handle.write(b'\xff' * 4096)
    code, _, err = _validate([bag, '--no-plots', '--out', str(tmp_path / 'o')], capsys)
    assert code == 2 and err.count('\n') == 1 and 'nothing recoverable' in err, err


def test_missing_bag_empty_bag_and_missing_reference(tmp_path, capsys):
    code, _, err = _validate([str(tmp_path / 'nope')], capsys)
    assert code == 2 and 'bag not found' in err
    empty = str(tmp_path / 'empty')
    writer = BagWriter(empty, 'mcap')
    writer.add_topic('/joint_states', 'sensor_msgs/msg/JointState')
    writer.add_topic('/robodyn_controller/reference', 'sensor_msgs/msg/JointState')
    writer.close()
    code, _, err = _validate([empty, '--out', str(tmp_path / 'o')], capsys)
    assert code == 2 and 'has no messages' in err
    only_state = str(tmp_path / 'only_state')
    writer = BagWriter(only_state, 'mcap')
    writer.add_topic('/joint_states', 'sensor_msgs/msg/JointState')
    writer.write('/joint_states', 1, encode_joint_state(1.0, ['a'], [0.0], [0.0]))
    writer.close()
    code, _, err = _validate([only_state, '--out', str(tmp_path / 'o')], capsys)
    assert code == 2 and 'no reference topic' in err
    code, _, err = _validate([only_state, '--reference-topic', '/x', '--out',
                              str(tmp_path / 'o')], capsys)
    assert code == 2 and "reference topic '/x' is not in the bag" in err


def test_state_lacking_reference_joints_exit_2(tmp_path, capsys):
    bag = str(tmp_path / 'bag')
    writer = BagWriter(bag, 'mcap')
    for k in range(10):
        t = 1.0 + k * 1e-3
        writer.add_topic('/r/reference', 'sensor_msgs/msg/JointState')
        writer.add_topic('/joint_states', 'sensor_msgs/msg/JointState')
        writer.write('/r/reference', int(t * 1e9), encode_joint_state(t, ['a', 'b'], [0, 0],
                                                                      [0, 0]))
        writer.write('/joint_states', int(t * 1e9) + 1, encode_joint_state(t, ['a'], [0], [0]))
    writer.close()
    code, _, err = _validate([bag, '--out', str(tmp_path / 'o')], capsys)
    assert code == 2 and "joints ['b']" in err


def test_joint_trajectory_reference(tmp_path):
    """States at 0 before the trajectory, then on its segment from 0 to 1 rad in 1 s (a
    point with position and velocity: cubic Hermite, as JointTrajectoryController joins
    it) with a 0.002 rad lag: the error is exactly 0.002 rad from the message on."""
    store = typestore()
    traj_t = store.types['trajectory_msgs/msg/JointTrajectory']
    point_t = store.types['trajectory_msgs/msg/JointTrajectoryPoint']
    header_t = store.types['std_msgs/msg/Header']
    time_t = store.types['builtin_interfaces/msg/Time']
    dur_t = store.types['builtin_interfaces/msg/Duration']
    bag = str(tmp_path / 'bag')
    writer = BagWriter(bag, 'mcap')
    writer.add_topic('/joint_states', 'sensor_msgs/msg/JointState')
    t0 = 10.0
    msg = traj_t(header=header_t(stamp=time_t(sec=10, nanosec=0), frame_id=''),
                 joint_names=['j'],
                 points=[point_t(positions=np.array([1.0]), velocities=np.array([0.0]),
                                 accelerations=np.array([]), effort=np.array([]),
                                 time_from_start=dur_t(sec=1, nanosec=0))])
    for k in range(-5, 1500):
        t = t0 + k * 1e-3
        if k == 0:
            writer.write_message('/arm/joint_trajectory', 'trajectory_msgs/msg/JointTrajectory',
                                 int(t * 1e9), msg)
        s = min(max((t - t0), 0.0), 1.0)
        q = 3 * s ** 2 - 2 * s ** 3
        writer.write('/joint_states', int(t * 1e9) + 1,
                     encode_joint_state(t, ['j'], [q - 0.002 if k >= 0 else 0.0], [0.0]))
    writer.close()
    report = validate_bag(bag, out_dir=str(tmp_path / 'o'), plots=False)
    assert report['topics']['reference'] == '/arm/joint_trajectory'
    assert abs(report['joints']['j']['rms'] - 0.002) <= 1e-6
    assert abs(report['joints']['j']['max_abs'] - 0.002) <= 1e-6


def test_round_trip_demo_bag_rms_matches_independent_computation(tmp_path):
    from robodyn_ros.demo.runner import closed_loop
    from robodyn_ros.io import BagReader
    bag = str(tmp_path / 'bag')
    closed_loop('three_link', 'computed_torque', 'one_minus_cos', duration=1.0, bag_path=bag)
    report = validate_bag(bag, out_dir=str(tmp_path / 'o'), plots=False)
    # Independent: generic rosbags deserialization, exact stamp matching (lock step).
    refs, states = {}, {}
    with BagReader(bag) as reader:
        for topic, msgtype, _, raw in reader.messages(['/joint_states',
                                                       '/robodyn_controller/reference']):
            msg = typestore().deserialize_cdr(raw, msgtype)
            key = (msg.header.stamp.sec, msg.header.stamp.nanosec)
            target = refs if topic.endswith('reference') else states
            target[key] = dict(zip(msg.name, msg.position))
    common = sorted(set(refs) & set(states))
    assert len(common) >= 999
    err = np.array([[refs[k][j] - states[k][j] for j in ('joint_1', 'joint_2', 'joint_3')]
                    for k in common])
    rms = np.sqrt((err ** 2).mean(axis=0))
    for j, name in enumerate(('joint_1', 'joint_2', 'joint_3')):
        assert report['joints'][name]['rms'] == pytest.approx(rms[j], rel=1e-9, abs=1e-12)
    # Lock step runs slower than real time: the controller's wall-clock rate says little;
    # every state answered (above) and no safe-mode entry say it kept up.
    assert report['diagnostics']['faults'] == 0


def test_validate_with_model_reports_residual(tmp_path):
    from robodyn_ros.demo.runner import closed_loop
    bag = str(tmp_path / 'bag')
    # sum_of_sines starts smoothly (eq. 73 steps its acceleration, which no filter follows)
    closed_loop('three_link', 'computed_torque', 'sum_of_sines', duration=1.0, bag_path=bag)
    code = run(build_parser().parse_args(['validate', bag, '--robot', 'three_link', '--out',
                                          str(tmp_path / 'o'), '--no-plots']))
    assert code == 0
    report = json.load(open(tmp_path / 'o' / 'report.json'))
    residual = report['residual']['joints']
    # Exact model, sim friction-free: the residual is the Savitzky-Golay error only.
    for name, r in residual.items():
        assert r['r2'] > 0.999, (name, r)
    assert report['torque']['peak'] and report['torque']['at_limit_pct'] is not None
    shutil.rmtree(bag)


JTC_NEW = """std_msgs/Header header
string[] joint_names
trajectory_msgs/JointTrajectoryPoint reference
trajectory_msgs/JointTrajectoryPoint feedback
trajectory_msgs/JointTrajectoryPoint error
trajectory_msgs/JointTrajectoryPoint output
"""
JTC_OLD = """std_msgs/Header header
string[] joint_names
trajectory_msgs/JointTrajectoryPoint desired
trajectory_msgs/JointTrajectoryPoint actual
trajectory_msgs/JointTrajectoryPoint error
"""


@pytest.mark.parametrize('definition,field', [(JTC_NEW, 'reference'), (JTC_OLD, 'desired')])
def test_joint_trajectory_controller_state_reference(tmp_path, definition, field):
    from rosbags.typesys import Stores, get_types_from_msg, get_typestore
    store = get_typestore(Stores.ROS2_KILTED)
    name = 'control_msgs/msg/JointTrajectoryControllerState'
    store.register(get_types_from_msg(definition, name))
    point_t = store.types['trajectory_msgs/msg/JointTrajectoryPoint']
    header_t = store.types['std_msgs/msg/Header']
    time_t = store.types['builtin_interfaces/msg/Time']
    dur_t = store.types['builtin_interfaces/msg/Duration']
    state_t = store.types[name]
    bag = str(tmp_path / 'bag')
    writer = BagWriter(bag, 'sqlite3')
    writer.add_topic('/joint_states', 'sensor_msgs/msg/JointState')

    def point(q, qd):
        return point_t(positions=np.array(q), velocities=np.array(qd),
                       accelerations=np.array([]), effort=np.array([]),
                       time_from_start=dur_t(sec=0, nanosec=0))

    for k in range(2000):
        t = 5.0 + k * 2e-3  # controller_state at 500 Hz, states at 1 kHz below
        q = [0.3 * np.sin(t), 0.2 * np.cos(t)]
        qd = [0.3 * np.cos(t), -0.2 * np.sin(t)]
        fields = {field: point(q, qd)}
        for other in state_t.__dataclass_fields__:
            if other not in ('header', 'joint_names', field):
                fields[other] = point([0.0, 0.0], [0.0, 0.0])
        msg = state_t(header=header_t(stamp=time_t(sec=int(t), nanosec=int(round((t % 1) * 1e9))
                                                   % 1_000_000_000), frame_id=''),
                      joint_names=['a', 'b'], **fields)
        writer.write_message('/arm_controller/controller_state', name, int(t * 1e9), msg, store)
        for half in (0.0, 1e-3):
            ts = t + half
            writer.write('/joint_states', int(ts * 1e9) + 1, encode_joint_state(
                ts, ['b', 'a'], [0.2 * np.cos(ts), 0.3 * np.sin(ts) - 0.001], [0.0, 0.0]))
    writer.close()
    report = validate_bag(bag, out_dir=str(tmp_path / 'o'), plots=False)
    assert report['topics']['reference'] == '/arm_controller/controller_state'
    assert abs(report['joints']['a']['rms'] - 0.001) <= 1e-6
    assert report['joints']['b']['max_abs'] <= 1e-6


def test_the_report_names_the_controller_s_events_and_what_the_bag_lacks(tmp_path):
    from robodyn_ros.demo.runner import closed_loop
    from robodyn_ros.io.synthetic_bags import write_tracking_bag
    bag = str(tmp_path / 'demo')
    closed_loop('three_link', 'computed_torque', 'one_minus_cos', duration=0.5, bag_path=bag)
    report = validate_bag(bag, out_dir=str(tmp_path / 'o'), plots=False)
    assert 'active' in [e['state'] for e in report['events']]
    assert not any('no ' in w for w in report['warnings'])
    bare = str(tmp_path / 'bare')
    write_tracking_bag(bare, duration=0.5)
    report = validate_bag(bare, out_dir=str(tmp_path / 'p'), plots=False)
    text = ' '.join(report['warnings'])
    assert 'no effort command topic' in text and 'no /diagnostics' in text
    assert 'no effort command topic' in (tmp_path / 'p' / 'report.md').read_text()


def test_safe_mode_fails_the_verdict_and_says_when_and_why():
    from robodyn_ros.validation.report import build_report
    from robodyn_ros.validation.thresholds import resolve_thresholds
    result = dict(tracking=dict(joints={}, overall={}), command={}, state_timing=None,
                  ref_timing=None, diagnostics=[{'state': 'safe'}], residual=None,
                  events=[(0.0, 1, 'waiting: waiting for a valid joint state', 'waiting'),
                          (12.5, 2, 'safe: tracking error 0.31 on j2; safe command: '
                                    'position hold at the trip position', 'safe')])
    report = build_report('bag', '/joint_states', '/ref', '/cmd', result, None,
                          resolve_thresholds(None, None, None), 0.01)
    assert not report['passed']
    assert report['failures'] == ['controller in safe mode from 12.50 s: safe: tracking '
                                  'error 0.31 on j2; safe command: position hold at the '
                                  'trip position']


def _commands_bag(path, custom=None):
    """A 2-joint bag of 300 states, references and commands, 1 N m per published command,
    89 of them lost after k = 100 and a true 5 N m step at k = 201; its recording-gaps
    summary (``custom``: that summary's JSON instead)."""
    from robodyn_ros.io.cdr import Float64MultiArrayWriter
    from robodyn_ros.io.sequence_gaps import CUSTOM_DATA_KEY, SequenceGaps
    writer, encode = BagWriter(path), Float64MultiArrayWriter(2)
    writer.add_topic('/joint_states', 'sensor_msgs/msg/JointState')
    writer.add_topic('/robodyn_controller/reference', 'sensor_msgs/msg/JointState')
    writer.add_topic('/effort_controller/commands', 'std_msgs/msg/Float64MultiArray')
    gaps = SequenceGaps()
    for k in range(300):
        t_ns = 10**9 + k * 10**6
        q = [0.1 * np.sin(k * 1e-3), 0.0]
        for topic in ('/joint_states', '/robodyn_controller/reference'):
            writer.write(topic, t_ns, encode_joint_state(t_ns * 1e-9, ['a', 'b'], q))
        seq = k + 1 + (89 if k > 100 else 0)
        tau = seq + (5.0 if k > 200 else 0.0)
        writer.write('/effort_controller/commands', t_ns, encode([tau, 0.0]))
        gaps.note('/effort_controller/commands', b'w', seq, t_ns)
    writer.set_custom_data(CUSTOM_DATA_KEY, custom or gaps.to_json())
    writer.close()


def test_largest_command_step_skips_pairs_the_recorder_lost_messages_between(tmp_path):
    bag = str(tmp_path / 'gaps')
    _commands_bag(bag)
    report = validate_bag(bag, out_dir=str(tmp_path / 'o'), plots=False)
    torque = report['torque']
    assert torque['largest_step'] == pytest.approx(6.0)  # 1 + 5: the true step only
    assert torque['largest_step_time'] == pytest.approx(0.201)
    assert torque['pairs_across_gaps'] == 1
    assert any('89 messages of /effort_controller/commands were lost' in w
               for w in report['warnings'])
    assert 'Largest command step between consecutive messages: 6' in \
        (tmp_path / 'o' / 'report.md').read_text()


def test_no_command_step_is_reported_when_the_gaps_are_not_all_listed(tmp_path):
    bag = str(tmp_path / 'many')
    summary = {'/effort_controller/commands': dict(publishers=1, lost=89, gap_count=2000,
                                                    gaps=[[10**9 + 101 * 10**6, 89]])}
    _commands_bag(bag, json.dumps(summary))
    report = validate_bag(bag, out_dir=str(tmp_path / 'o'), plots=False)
    assert report['torque']['largest_step'] is None
    assert any('not listed, so no command step is reported' in w for w in report['warnings'])


@pytest.mark.parametrize('settle', [-0.1, 10.5, float('nan')])
def test_a_settling_time_out_of_range_is_refused_naming_it(tmp_path, settle):
    from robodyn_ros.errors import ConfigError
    with pytest.raises(ConfigError, match='settle_after_stall must be within'):
        validate_bag(tmp_path, settle_after_stall=settle)
