"""Recorder parameters: a bad niceness is one line and exit 2, before any bag exists."""

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.integration


@pytest.mark.parametrize('value', ['2.5', '-3', '20', 'high'])
def test_bad_nice_is_one_line_and_exit_2(tmp_path, value):
    bag = tmp_path / 'bag'
    env = dict(os.environ, ROS_DOMAIN_ID='64')
    proc = subprocess.run(
        [sys.executable, '-m', 'robodyn_ros.nodes.recorder', '--ros-args', '-p',
         f'nice:={value}', '-p', f'bag_path:={bag}'],
        env=env, capture_output=True, text=True, timeout=60)
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, (proc.returncode, lines)
    assert lines[0].startswith('recorder: error: nice:'), lines
    assert not bag.exists()
