"""scripts/payload_run_report.py: the RMS over the motion's last seconds, by joint name, on
a bag whose error is known; a missing bag is one line and exit 2."""

import numpy as np
from script_module import load

from robodyn_ros.io.synthetic_bags import write_tracking_bag


def _script():
    return load('payload_run_report')


def test_the_rms_of_the_last_seconds_is_the_known_error(tmp_path):
    bag = tmp_path / 'bag'
    truth = write_tracking_bag(str(bag), duration=8.0, amplitude=0.01, period=0.1,
                               error_joint=2, ref_offset=0.0, drop_ref_every=0)
    text = _script().report(str(bag), last=5.0, after=[5.0])
    values = [float(v) for v in text.split(': ')[1].split(' (')[0].split()]
    assert len(values) == len(truth['joints'])
    assert abs(values[2] - 0.01 / np.sqrt(2)) < 2e-4, text  # A sin: A / sqrt(2)
    assert max(values[:2] + values[3:]) < 1e-9, text
    assert 'joint 3)' in text and 'mass estimate' not in text  # no adaptive diagnostics


def test_a_missing_bag_is_one_line_and_exit_2(tmp_path, capsys):
    assert _script().main([str(tmp_path / 'none')]) == 2
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and err.startswith('payload_run_report: '), err
