"""The reference the plugin path's sender gives the JointTrajectoryController."""

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import yaml

pytest.importorskip('controller_manager_msgs', reason='controller_manager_msgs '
                    '(../shared/wheels) is not installed: the sender asks the controller '
                    'manager')

from robodyn_ros.model import load_robot  # noqa: E402
from robodyn_ros.nodes.reference_sender import ReferenceSender  # noqa: E402

CONFIG = Path(__file__).resolve().parents[2] / 'config'


def _sent(robot, duration):
    """(q0, JointTrajectory) the sender builds from config/<robot>.yaml's reference."""
    config = yaml.safe_load((CONFIG / f'{robot}.yaml').read_text())
    given = config['robodyn_controller']['ros__parameters']
    model = load_robot(robot)
    q0 = np.array(config['robodyn_sim']['ros__parameters']['q0'])
    sender = SimpleNamespace(model=model, q0=q0, kind=given['reference'],
                             amplitudes=given['amplitudes'], periods=given['periods'],
                             ramp=given.get('ramp', 1.0), duration=duration, spacing=0.05,
                             margin=0.05, get_logger=None)
    return q0, ReferenceSender.trajectory(sender)


@pytest.mark.parametrize('robot', ['panda', 'ur5'])
@pytest.mark.parametrize('duration', [120.0, 7.3])
def test_the_sent_reference_ends_at_rest_where_it_started(robot, duration):
    """The last point is the start, at rest (a JTC holding a point the arm passes at speed
    logs tolerance errors for ever), and the launch's reference still fits the limits."""
    q0, message = _sent(robot, duration)
    last = message.points[-1]
    assert last.time_from_start.sec + last.time_from_start.nanosec * 1e-9 == \
        pytest.approx(duration)
    assert np.allclose(last.positions, q0) and not any(last.velocities) and \
        not any(last.accelerations)
    speeds = np.abs([p.velocities for p in message.points]).max(axis=0)
    assert np.all(speeds > 0.1)  # the reference moves every joint before it settles
