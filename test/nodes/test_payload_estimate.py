"""~/payload_estimate's message (nodes/payload_estimate.py) and save_payload's file
(nodes/save_payload.py): the estimate's inertial parameters round trip, nothing
non-finite or massless goes out, and the file is the payload every law loads."""

import os
import subprocess
import sys

import numpy as np
import pytest
import yaml

from robodyn_ros.control.controller_config import ControllerConfig
from robodyn_ros.model.inertial_parameters import to_vector
from robodyn_ros.model.payload import payload_inertial
from robodyn_ros.nodes.payload_estimate import estimate_message
from robodyn_ros.nodes.save_payload import payload_file_text

#: pi of 1.5 kg at (0.05, -0.01, 0.04) m with a small inertia about its centre (tip frame)
PAYLOAD = payload_inertial(1.5, [0.05, -0.01, 0.04], [2e-3, 1e-4, -2e-4, 3e-3, 5e-5, 4e-3])


def test_the_message_carries_the_estimate_about_its_centre_of_mass():
    pi = to_vector(PAYLOAD)
    msg = estimate_message(pi, 'panda_hand')
    i = msg.inertia
    assert msg.header.frame_id == 'panda_hand'
    assert i.m == pytest.approx(1.5, abs=1e-12)
    assert [i.com.x, i.com.y, i.com.z] == pytest.approx([0.05, -0.01, 0.04], abs=1e-12)
    assert [i.ixx, i.ixy, i.ixz, i.iyy, i.iyz, i.izz] == pytest.approx(
        [2e-3, 1e-4, -2e-4, 3e-3, 5e-5, 4e-3], abs=1e-12)


@pytest.mark.parametrize('pi', [np.zeros(10), np.r_[-0.1, np.zeros(9)],
                                np.r_[1.0, np.nan, np.zeros(8)], np.ones(3)])
def test_no_message_for_an_estimate_without_mass_or_not_finite(pi):
    assert estimate_message(pi, 'tip') is None


def test_the_saved_file_is_the_payload_a_controller_loads():
    text = payload_file_text(estimate_message(to_vector(PAYLOAD), 'panda_hand'))
    data = yaml.safe_load(text)
    params = data['robodyn_controller']['ros__parameters']
    config = ControllerConfig.from_parameters({'payload.' + k: v
                                           for k, v in params['payload'].items()})
    assert config.payload_mass == pytest.approx(1.5)
    assert list(config.payload_com) == pytest.approx([0.05, -0.01, 0.04])
    assert list(config.payload_inertia) == pytest.approx([2e-3, 1e-4, -2e-4, 3e-3, 5e-5, 4e-3])


@pytest.mark.parametrize('args, says', [
    (['-p', 'file:=/nonexistent/folder/p.yaml'], 'give a file in an existing folder'),
    (['-p', 'file:=p.yaml', '-p', 'timeout:=-1.0'], 'timeout:=-1.0; valid: 0 to 3600 s'),
    (['-p', 'file:=p.yaml', '-p', 'timeout:=0.3', '-p', 'topic:=/robodyn_nothing'],
     'no estimate on /robodyn_nothing within 0.3 s'),
])
def test_save_payload_fails_with_one_line_and_exit_2(tmp_path, args, says):
    env = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST', ROS_DOMAIN_ID='60')
    result = subprocess.run([sys.executable, '-m', 'robodyn_ros.nodes.save_payload',
                             '--ros-args', *args], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=60)
    lines = result.stdout.strip().splitlines()
    assert result.returncode == 2, result.stdout + result.stderr
    assert len(lines) == 1 and says in lines[0], result.stdout
    assert not (tmp_path / 'p.yaml').exists()
