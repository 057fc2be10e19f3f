"""A feed-forward tool wrench (reference/wrench_target.py): checked at the boundary, scaled
down to its bounds, rotated into DH frame 0, ramped in and out at its rate, ramped to zero
after its timeout, refused by a joint-space law; a core's task-space law adds J^T F_ff."""

import numpy as np
import pytest

from robodyn_ros.control import ControllerConfig, ControllerCore
from robodyn_ros.control.reference.wrench_target import (
    MAX_STEP,
    WrenchBounds,
    WrenchFeed,
    wrench_target,
)
from robodyn_ros.dynamics.recursive.tip_frame import TipFrame
from robodyn_ros.errors import InputError
from robodyn_ros.model import load_urdf
from robodyn_ros.model.registry import PANDA_HOME, robot_path

BOUNDS = WrenchBounds(max_force=20.0, max_torque=2.0, rise_time=0.2, timeout=0.5)
#: frame 0 turned 90 degrees about z in the base link (x0 along the base's y)
BASE = np.array([[0.0, -1.0, 0.0, 0.1], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.3],
                 [0.0, 0.0, 0.0, 1.0]])
DT = 1e-3


def test_a_wrench_is_rotated_into_frame_zero_and_scaled_down_to_its_bounds():
    wrench, cut = wrench_target((0.0, 5.0, 0.0), (0.0, 0.0, 1.0), 'base', 'base', BASE,
                                BOUNDS)
    np.testing.assert_allclose(wrench, [5.0, 0.0, 0.0, 0.0, 0.0, 1.0], atol=1e-15)
    assert not cut
    wrench, cut = wrench_target((30.0, 40.0, 0.0), (0.0, 0.0, -3.0), '', 'base', BASE,
                                BOUNDS)
    assert cut
    np.testing.assert_allclose(np.linalg.norm(wrench[:3]), 20.0)
    np.testing.assert_allclose(BASE[:3, :3] @ wrench[:3], [12.0, 16.0, 0.0])  # direction kept
    np.testing.assert_allclose(wrench[3:], [0.0, 0.0, -2.0])


@pytest.mark.parametrize('force, torque, frame, words', [
    ((np.nan, 0.0, 0.0), (0.0, 0.0, 0.0), '', 'not finite'),
    ((0.0, 0.0, 0.0), (np.inf, 0.0, 0.0), '', 'not finite'),
    ((1.0, 0.0, 0.0), (0.0, 0.0, 0.0), 'tool', "in frame 'tool'"),
])
def test_a_bad_wrench_is_refused_in_one_line(force, torque, frame, words):
    with pytest.raises(InputError, match=words):
        wrench_target(force, torque, frame, 'base', BASE, BOUNDS)
    feed = WrenchFeed(BOUNDS, 'base', BASE, accepts=True)
    ok, text = feed.take(0.0, force, torque, frame)
    assert not ok and text.startswith('refused: ') and '\n' not in text
    assert feed.value(0.001) is None


def _cycles(feed, t0, steps):
    values = []
    for k in range(steps):
        value = feed.value(t0 + k * DT)
        values.append(np.zeros(6) if value is None else value.copy())
    return np.array(values)


def test_the_applied_wrench_ramps_in_at_its_rate_and_out_after_the_timeout():
    feed = WrenchFeed(BOUNDS, 'base', np.eye(4), accepts=True)
    assert feed.take(0.0, (10.0, 0.0, 0.0), (0.0, 0.0, 1.0), '') == (True, 'applying')
    values = _cycles(feed, 0.0, 1200)
    steps = np.abs(np.diff(values, axis=0, prepend=0.0))
    assert steps[:, :3].max() <= 100.0 * DT * (1 + 1e-12)  # max_force / rise_time
    assert steps[:, 3:].max() <= 10.0 * DT * (1 + 1e-12)
    np.testing.assert_allclose(values[150], [10.0, 0, 0, 0, 0, 1.0])  # in by 0.1 s
    np.testing.assert_allclose(values[499], [10.0, 0, 0, 0, 0, 1.0])  # held to the timeout
    assert feed.status.startswith('timed out')
    assert values[530, 0] == pytest.approx(10.0 - 100.0 * 30 * DT, abs=1e-9)  # 501 to 530
    assert not values[700:].any() and feed.value(1.3) is None
    assert feed.applied_text() == 'none'


def test_a_long_gap_between_cycles_moves_the_wrench_by_one_step_at_most():
    feed = WrenchFeed(BOUNDS, 'base', np.eye(4), accepts=True)
    feed.take(0.0, (20.0, 0.0, 0.0), (0.0, 0.0, 0.0), '')
    feed.value(0.0)
    assert feed.value(0.3)[0] == pytest.approx(100.0 * MAX_STEP)


def test_a_joint_space_law_refuses_every_wrench():
    feed = WrenchFeed(BOUNDS, 'base', np.eye(4), accepts=False)
    ok, text = feed.take(0.0, (1.0, 0.0, 0.0), (0.0, 0.0, 0.0), '')
    assert not ok and 'takes no wrench' in text
    assert feed.value(0.001) is None


PANDA = load_urdf(robot_path('panda')[0], tip_link='panda_hand')
NAMES = list(PANDA.joint_names)
Q0 = np.array(PANDA_HOME)


def _core(mode):
    core = ControllerCore(PANDA, ControllerConfig.from_parameters(dict(
        mode=mode, kp=[20.0], kd=[2.0], ramp_time=0.0, max_torque_rate=1e5)))
    core.activate(0.0)
    return core


def _torque(core, t0, steps):
    for k in range(steps):
        now = t0 + k * DT
        core.on_state(now, NAMES, Q0, np.zeros(7), now)
        command = core.update(now)
    return core.chain_order(command.effort)


@pytest.mark.parametrize('mode', ['cartesian_impedance', 'operational_space'])
def test_a_task_space_law_adds_the_wrench_through_the_tool_jacobian(mode):
    held = _torque(_core(mode), 0.0, 300)
    core = _core(mode)
    _torque(core, 0.0, 10)
    force, moment = np.array([0.0, 5.0, -3.0]), np.array([0.2, 0.0, 0.1])
    assert core.take_wrench(0.01, force, moment, '')[0]
    pushed = _torque(core, 0.01, 290)
    jac, _, _ = TipFrame(core.dyn).at(Q0)
    rot = np.linalg.inv(PANDA.dh_table('standard').base)[:3, :3]  # base link -> frame 0
    want = jac.T @ np.concatenate([rot @ force, rot @ moment])
    np.testing.assert_allclose(pushed - held, want, atol=1e-9)
    values = core.diagnostics(0.3)[2]
    assert values['target_wrench'] == 'applying'
    np.testing.assert_allclose([float(v) for v in values['applied_wrench'].split()],
                               [*force, *moment], atol=1e-3)


def test_a_joint_space_core_says_it_takes_no_wrench():
    core = _core('computed_torque')
    _torque(core, 0.0, 10)
    ok, text = core.take_wrench(0.01, (1.0, 0.0, 0.0), (0.0, 0.0, 0.0), '')
    assert not ok
    assert core.diagnostics(0.02)[2]['target_wrench'] == text
    assert any('target wrench refused' in e.text for e in core.events)
