"""The worked example end to end (about 80 s): a hidden payload and friction in MuJoCo, an
excitation bag, identification from it, tracking with the plain and the identified model;
and `robodyn identify` on bags it must refuse."""

import numpy as np
import pytest

from robodyn_ros.cli import build_parser, run
from robodyn_ros.identification.sim_example import run_example
from robodyn_ros.io import BagWriter, encode_joint_state
from robodyn_ros.model import load_robot

pytestmark = pytest.mark.integration  # MuJoCo runs and rosbag2 bags


def test_payload_and_tracking_from_the_excitation_bag(tmp_path):
    figures = run_example(load_robot('panda'), str(tmp_path))
    print({k: v for k, v in figures.items() if k != 'result'})
    assert figures['effort_source'] == 'measured'
    assert figures['mass_error_pct'] <= 3.0 and figures['com_error_mm'] <= 5.0
    assert figures['ratio'] <= 1.0 / 3.0
    assert max(figures['viscous_error_pct']) <= 10.0
    assert max(figures['coulomb_error_pct']) <= 10.0
    result = figures['result']
    assert np.all(result.rms_after < result.rms_before)
    code = run(build_parser().parse_args(['identify', str(tmp_path / 'excitation_bag'),
                                          '--out', str(tmp_path / 'out')]))
    assert code == 0
    # The YAML is a controller parameter file: payload.mass/.com/.inertia, viscous, coulomb.
    import yaml

    from robodyn_ros.control import ControllerConfig, ControllerCore
    params = yaml.safe_load((tmp_path / 'out' / 'identified.yaml').read_text())
    params = params['robodyn_controller']['ros__parameters']
    flat = {f'payload.{k}': v for k, v in params.pop('payload').items()}
    config = ControllerConfig.from_parameters({**params, **flat, 'include_friction': True})
    core = ControllerCore(load_robot('panda'), config)
    assert abs(core.payload.mass - 1.5) <= 0.045
    np.testing.assert_allclose(core.dyn.viscous, params['viscous'])


def _bag_without_effort(path, seconds=3.0):
    bag = BagWriter(str(path), 'mcap')
    bag.add_topic('/joint_states', 'sensor_msgs/msg/JointState')
    names = [f'panda_joint{i}' for i in range(1, 8)]
    for k in range(int(seconds * 1000)):
        t = 1.0 + k * 1e-3
        bag.write('/joint_states', int(t * 1e9), encode_joint_state(t, names, np.zeros(7)))
    bag.close()
    return path


def test_bag_without_effort_is_one_line_exit_2(tmp_path, capsys):
    code = run(build_parser().parse_args(['identify', str(_bag_without_effort(
        tmp_path / 'bag')), '--out', str(tmp_path / 'out')]))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and 'carries no effort' in err[0]
