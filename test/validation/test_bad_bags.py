"""Bad bags through `robodyn validate`: each gives the right verdict (with the right RMS where
one is computable, known by construction) or exit 2 with one line; never a silent PASS."""

import json
import struct

import numpy as np
import pytest

from robodyn_ros.cli import build_parser, run
from robodyn_ros.io import BagWriter, encode_joint_state

pytestmark = pytest.mark.integration  # rosbag2 bags

JOINTS = ['a', 'b']
RATE = 100.0


def _write(path, states, refs, arrival=None, state_topic='/joint_states'):
    """states/refs: lists of (t, names, q[, qd[, raw bytes written as they are]]), received
    at their stamps or, for states, at ``arrival`` [s]."""
    bag = BagWriter(str(path), 'mcap')
    bag.add_topic(state_topic, 'sensor_msgs/msg/JointState')
    bag.add_topic('/robodyn_controller/reference', 'sensor_msgs/msg/JointState')
    arrival = arrival or [s[0] for s in states]
    rows = [(r[0], r, '/robodyn_controller/reference') for r in refs] + \
        [(a, s, state_topic) for a, s in zip(arrival, states)]
    for k, (received, row, topic) in enumerate(sorted(rows, key=lambda r: r[0])):
        t, names, q = row[:3]
        qd = row[3] if len(row) > 3 else np.zeros(len(names))
        raw = row[4] if len(row) > 4 else encode_joint_state(t, names, q, qd)
        bag.write(topic, int(received * 1e9) + k, raw)
    bag.close()
    return path


def _refs(duration=2.0):
    return [(1.0 + k / RATE, JOINTS, [0.0, 0.0]) for k in range(-1, int(duration * RATE) + 2)]


def _states(error, duration=2.0, offset=0.0):
    """States at the reference times + offset, q = -error (the reference is 0)."""
    return [(1.0 + offset + k / RATE, JOINTS, -np.asarray(error(k), dtype=float))
            for k in range(int(duration * RATE))]


def _validate(bag, tmp_path, *args):
    argv = ['validate', str(bag), '--out', str(tmp_path / 'report'), '--no-plots', *args]
    code = run(build_parser().parse_args(argv))
    report = tmp_path / 'report' / 'report.json'
    return code, json.loads(report.read_text()) if code in (0, 1) and report.exists() else None


def _one_line_exit_2(code, capsys, words):
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and words in err[0], err


def test_nan_samples_fail_with_the_reason_and_the_finite_rms(tmp_path):
    error = lambda k: [0.002, np.nan if 50 <= k < 60 else 0.001]  # noqa: E731
    code, report = _validate(_write(tmp_path / 'bag', _states(error), _refs()), tmp_path,
                             '--max-rms', '0.008')
    assert code == 1 and not report['passed']
    assert any('non-finite' in f for f in report['failures'])
    joints = report['joints']
    assert joints['a']['rms'] == pytest.approx(0.002)
    assert joints['b']['non_finite'] == 10


def test_an_all_nan_joint_is_not_in_band(tmp_path):
    error = lambda k: [0.0, np.nan]  # noqa: E731
    code, report = _validate(_write(tmp_path / 'bag', _states(error), _refs()), tmp_path,
                             '--max-rms', '1')
    assert code == 1
    assert report['joints']['b']['time_in_band'] == 0.0


@pytest.mark.parametrize('args', [['--max-rms', 'nan'], ['--max-abs', 'inf'],
                                  ['--max-rms', '-1']])
def test_non_finite_or_negative_thresholds_are_refused(tmp_path, capsys, args):
    bag = _write(tmp_path / 'bag', _states(lambda k: [0.0, 0.0]), _refs())
    code, _ = _validate(bag, tmp_path, *args)
    _one_line_exit_2(code, capsys, 'threshold')


@pytest.mark.parametrize('amplitude, expected', [(1.0, 1), (0.001, 0)])
def test_without_thresholds_the_stated_defaults_decide(tmp_path, amplitude, expected):
    error = lambda k: [amplitude, 0.0]  # noqa: E731
    code, report = _validate(_write(tmp_path / 'bag', _states(error), _refs()), tmp_path)
    assert code == expected
    assert report['thresholds_source'] == 'default'
    assert report['joints']['a']['thresholds']['max_rms'] == 0.05


def test_equal_length_layouts_are_all_decoded(tmp_path):
    """Position-only states and effort-only messages (a torque sensor) on one topic: the
    same byte length, arrays at other offsets. Every state is decoded, none mixed up."""
    position_only = encode_joint_state(1.0, JOINTS, [0.0, 0.0])
    effort_only = encode_joint_state(1.0, JOINTS, (), (), [0.0, 0.0])
    assert len(position_only) == len(effort_only)
    states = []
    for k in range(200):
        t, q = 1.0 + k / RATE, [-0.003, 0.0]
        states.append((t, JOINTS, q, (), encode_joint_state(t, JOINTS, q)))
        states.append((t + 0.002, JOINTS, q, (), encode_joint_state(t + 0.002, JOINTS, (),
                                                                    (), [5.0, 5.0])))
    code, report = _validate(_write(tmp_path / 'bag', states, _refs()), tmp_path,
                             '--max-rms', '0.01')
    assert code == 0
    assert report['overall']['samples'] == 200
    assert report['joints']['a']['rms'] == pytest.approx(0.003)


def test_backward_time_jump_is_counted_and_reported(tmp_path):
    states = _states(lambda k: [0.001, 0.0], duration=1.0) + \
        _states(lambda k: [0.001, 0.0], duration=0.5, offset=0.5)  # 0.5 s back
    arrival = [1.0 + k / RATE for k in range(len(states))]
    code, report = _validate(_write(tmp_path / 'bag', states, _refs(), arrival), tmp_path,
                             '--max-rms', '0.01')
    timing = report['timing']['state']
    assert timing['backward_jumps'] == 1 and timing['out_of_order'] == 50
    assert timing['duplicate_stamps'] == 0
    assert any('jumped back' in w for w in report['warnings'])
    assert report['joints']['a']['rms'] == pytest.approx(0.001)
    assert code == 0


def test_joint_states_from_several_publishers_are_merged_by_name(tmp_path):
    arm = _states(lambda k: [0.004, 0.0])
    gripper = [(t + 0.0005, ['finger_1', 'finger_2'], [0.01, 0.01]) for t, _, _ in arm]
    code, report = _validate(_write(tmp_path / 'bag', arm + gripper, _refs()), tmp_path,
                             '--max-rms', '0.01')
    assert code == 0
    assert report['joints']['a']['rms'] == pytest.approx(0.004)
    assert report['overall']['samples'] == len(arm)


def test_truncated_cdr_message_is_one_line(tmp_path, capsys):
    states = _states(lambda k: [0.0, 0.0])
    t, n, q = states[20][:3]
    states[20] = (t, n, q, [0.0, 0.0], encode_joint_state(t, n, q)[:-5])
    code, _ = _validate(_write(tmp_path / 'bag', states, _refs()), tmp_path)
    _one_line_exit_2(code, capsys, 'truncated or corrupt')


def test_huge_array_count_is_one_line(tmp_path, capsys):
    states = _states(lambda k: [0.0, 0.0])
    t, n, q = states[20][:3]
    raw = bytearray(encode_joint_state(t, n, q, [0.0, 0.0]))
    assert raw[20:24] == struct.pack('<I', 2)  # the names count
    raw[20:24] = struct.pack('<I', 0x7FFFFFFF)
    states[20] = (t, n, q, [0.0, 0.0], bytes(raw))
    code, _ = _validate(_write(tmp_path / 'bag', states, _refs()), tmp_path)
    _one_line_exit_2(code, capsys, 'exceeds the message')


def test_corrupt_mcap_is_one_line(tmp_path, capsys):
    bag = _write(tmp_path / 'bag', _states(lambda k: [0.0, 0.0]), _refs())
    (mcap,) = bag.glob('*.mcap')
    data = bytearray(mcap.read_bytes())
    data[len(data) // 3:len(data) // 3 + 64] = b'\xff' * 64
    mcap.write_bytes(bytes(data))
    code, _ = _validate(bag, tmp_path)
    _one_line_exit_2(code, capsys, 'robodyn validate: error:')


@pytest.mark.parametrize('text', ['- 0.1\n- 0.2\n', 'max_rms: small\n',
                                  'joints: {a: {max_rms: [1]}}\n', 'joints: [a]\n'])
def test_bad_thresholds_files_are_one_line(tmp_path, capsys, text):
    bag = _write(tmp_path / 'bag', _states(lambda k: [0.0, 0.0]), _refs())
    path = tmp_path / 'thresholds.yaml'
    path.write_text(text)
    code, _ = _validate(bag, tmp_path, '--thresholds', str(path))
    _one_line_exit_2(code, capsys, 'thresholds')
