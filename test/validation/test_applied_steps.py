"""The applied torque's worst step per cycle, from the effort the states report."""

import numpy as np
import pytest

from robodyn_ros.cli import build_parser, run
from robodyn_ros.io import BagWriter, encode_joint_state
from robodyn_ros.validation.applied_steps import AppliedSteps
from robodyn_ros.validation.validate import validate_bag

PERIOD = 1e-3


def _ramp(count, slope, t0=1.79e9):
    """States every PERIOD from t0 [s]; effort on joint 2 changing ``slope`` N m a cycle."""
    t = t0 + PERIOD * np.arange(count)
    effort = np.zeros((count, 2))
    effort[:, 1] = slope * np.arange(count)
    return t, effort


def test_a_ramp_at_the_limit_passes_and_one_cycle_beyond_it_fails_naming_joint_and_time():
    t, effort = _ramp(200, 1.0)
    effort[150:, 1] += 0.5  # one cycle changes by 1.5 N m
    steps = AppliedSteps()
    steps.add(t, effort)
    assert steps.period == pytest.approx(PERIOD, rel=1e-3)  # stamps since 1970: 0.24 us
    assert steps.worst == pytest.approx(1.5)
    assert steps.failure(1500.0, ['a', 'b']) is None
    assert steps.failure(1499.0, ['a', 'b']) is None  # the stamps' resolution: 0.1 %
    assert steps.failure(1498.0, ['a', 'b']) is not None
    reason = steps.failure(1000.0, ['a', 'b'])
    assert reason is not None and 'on b 0.150 s after the first state' in reason
    assert '1.5 N m in one cycle' in reason and 'over the budget 0.9999 N m' in reason


def test_states_the_recording_lost_span_as_many_cycles_as_their_stamps_say():
    t, effort = _ramp(200, 1.0)
    keep = np.ones(200, bool)
    keep[50:53] = False  # three states lost: 4 N m over 4 periods
    steps = AppliedSteps()
    steps.add(t[keep], effort[keep])
    assert steps.worst == pytest.approx(1.0)
    assert steps.failure(1000.0, ['a', 'b']) is None


def test_chunks_give_the_figures_of_one_block_and_missing_efforts_are_no_step():
    t, effort = _ramp(300, 0.25)
    effort[120, 0] = 7.0  # a 7 N m spike on joint 1
    effort[200:210, 1] = np.nan  # states without an effort
    whole, parts = AppliedSteps(), AppliedSteps()
    whole.add(t, effort)
    for k in range(0, 300, 7):  # the first chunks come before the period is known
        parts.add(t[k:k + 7], effort[k:k + 7])
    assert (parts.worst, parts.at, parts.joint, parts.pairs) == \
        (whole.worst, whole.at, whole.joint, whole.pairs) == (7.0, t[120], 0, 299)


def _stepping_bag(path, step_at):
    """2 joints, 300 states and references at 1 kHz, efforts ramping 0.5 N m a cycle and
    stepping by 3 N m at state ``step_at`` (None: no step)."""
    writer = BagWriter(path)
    writer.add_topic('/joint_states', 'sensor_msgs/msg/JointState')
    writer.add_topic('/robodyn_controller/reference', 'sensor_msgs/msg/JointState')
    for k in range(300):
        t_ns = 10**9 + k * 10**6
        tau = 0.5 * k + (3.0 if step_at is not None and k >= step_at else 0.0)
        for topic in ('/joint_states', '/robodyn_controller/reference'):
            writer.write(topic, t_ns, encode_joint_state(t_ns * 1e-9, ['a', 'b'], [0.0, 0.0],
                                                         [0.0, 0.0], [0.0, tau]))
    writer.close()


def test_validate_fails_a_run_whose_applied_torque_stepped_beyond_the_rate(tmp_path, capsys):
    stepped, smooth = str(tmp_path / 'stepped'), str(tmp_path / 'smooth')
    _stepping_bag(stepped, 120)
    _stepping_bag(smooth, None)
    report = validate_bag(stepped, plots=False, out_dir=str(tmp_path / 'o1'))
    assert report['passed']  # without a rate: reported, not judged
    assert report['torque']['applied_step'] == pytest.approx(3.5)
    assert report['torque']['applied_step_time'] == pytest.approx(0.12)
    report = validate_bag(stepped, plots=False, out_dir=str(tmp_path / 'o2'),
                          max_torque_rate=1000.0)
    assert not report['passed'] and 'stepped 3.5 N m in one cycle on b' in \
        report['failures'][0]
    assert validate_bag(smooth, plots=False, out_dir=str(tmp_path / 'o3'),
                        max_torque_rate=1000.0)['passed']
    code = run(build_parser().parse_args(['validate', stepped, '--no-plots',
                                          '--max-torque-rate', '1000', '--out',
                                          str(tmp_path / 'o4')]))
    assert code == 1 and 'applied torque stepped' in capsys.readouterr().out


@pytest.mark.parametrize('rate', ['0', '-5', 'nan', '1e6'])
def test_a_rate_out_of_range_is_one_line_and_exit_2(tmp_path, capsys, rate):
    bag = str(tmp_path / 'bag')
    _stepping_bag(bag, None)
    code = run(build_parser().parse_args(['validate', bag, '--no-plots',
                                          '--max-torque-rate', rate]))
    err = capsys.readouterr().err
    assert code == 2 and 'max_torque_rate must be within (0, 1e5] N m/s' in err
    assert len(err.strip().splitlines()) == 1
