"""A ControllerCore's pose targets (reference_inputs.py): taken while it commands, refused
in one line as an event otherwise, put inside the workspace box and said so, and a
trajectory after them starts where the followed reference is."""

import re
from types import SimpleNamespace

import numpy as np

from robodyn_ros.control import ControllerConfig, ControllerCore
from robodyn_ros.control.events import EventKind
from robodyn_ros.dynamics.recursive.tip_frame import TipFrame
from robodyn_ros.model import load_urdf
from robodyn_ros.model.registry import PANDA_HOME, robot_path

PANDA = load_urdf(robot_path('panda')[0], tip_link='panda_hand')
NAMES = list(PANDA.joint_names)
Q0 = np.array(PANDA_HOME)
DT = 1e-3
IDENTITY_TURN = (1.0, 0.0, 0.0, 0.0)  # x, y, z, w: the hand down, as at PANDA_HOME


def _core(**params):
    values = dict(kp=[400.0], kd=[40.0], ramp_time=0.0)
    values.update(params)
    core = ControllerCore(PANDA, ControllerConfig.from_parameters(values))
    core.activate(0.0)
    _run(core, 0.0, 10)
    return core


def _run(core, t0, steps):
    for k in range(steps):
        now = t0 + k * DT
        core.on_state(now, NAMES, Q0, np.zeros(7), now)
        core.update(now)
    return t0 + steps * DT


def _tool(core, q):
    _, rotation, point = TipFrame(core.dyn).at(q)
    return rotation.copy(), point.copy()


def _kinds(core):
    events, core.events[:] = list(core.events), []
    return [(e.kind, e.text) for e in events]


def test_a_target_moves_the_reference_and_the_report_says_so():
    core = _core()
    rotation, point = _tool(core, Q0)
    core.events.clear()
    ok, text = core.follow_pose(0.01, point + [0.0, 0.03, 0.0], IDENTITY_TURN, '')
    assert ok and text == 'following'
    _run(core, 0.01, 1000)
    q_r = core.reference(core.clock.reference_time(1.01))[0]
    moved = _tool(core, q_r)[1] - point
    np.testing.assert_allclose(moved, [0.0, 0.03, 0.0], atol=2e-3)
    level, message, values = core.diagnostics(1.01)
    assert values['target'] == 'following' and values['reference'] == 'pose'
    assert values['singularity'] == 'none'  # a target well inside the reach
    assert not [k for k, _ in _kinds(core) if k == EventKind.TARGET]


def test_a_nan_target_is_refused_as_an_event_and_the_reference_stays():
    core = _core()
    before = core.reference(core.clock.reference_time(0.01))[0]
    ok, text = core.follow_pose(0.01, (np.nan, 0.0, 0.5), IDENTITY_TURN, '')
    assert not ok and 'not finite' in text
    assert any(k == EventKind.TARGET and 'not finite' in t for k, t in _kinds(core))
    np.testing.assert_array_equal(core.reference(core.clock.reference_time(0.02))[0], before)
    assert core.diagnostics(0.02)[2]['target'].startswith('refused: target pose not finite')


def test_a_target_far_outside_is_clamped_to_the_box_and_said():
    core = _core(**{'target.workspace': [-0.7, -0.7, 0.1, 0.7, 0.7, 1.0]})
    ok, text = core.follow_pose(0.01, (1.7, 0.0, 0.5), IDENTITY_TURN, 'panda_link0')
    assert ok and text == 'clamped to the workspace box'
    assert any(k == EventKind.TARGET and 'workspace box' in t for k, t in _kinds(core))


def test_an_inactive_core_refuses_targets():
    core = ControllerCore(PANDA, ControllerConfig.from_parameters({}))
    ok, text = core.follow_pose(0.0, (0.4, 0.0, 0.5), IDENTITY_TURN, '')
    assert not ok and 'controller is inactive' in text


def test_a_trajectory_after_targets_starts_from_the_followed_reference():
    core = _core()
    _, point = _tool(core, Q0)
    core.follow_pose(0.01, point + [0.02, 0.0, 0.0], IDENTITY_TURN, '')
    _run(core, 0.01, 300)
    t = core.clock.reference_time(0.31)
    q_r = core.reference(t)[0]
    point = SimpleNamespace(positions=list(q_r), velocities=[], accelerations=[],
                            time_from_start=SimpleNamespace(sec=1, nanosec=0))
    ok, text = core.on_trajectory(0.31, SimpleNamespace(joint_names=NAMES, points=[point]))
    assert ok, text
    np.testing.assert_allclose(core.reference(t)[0], q_r, atol=1e-3)


def test_the_report_gives_a_task_space_laws_manipulability():
    """computed_torque has none ('off'); cartesian_impedance at the Panda's home has J's
    full rank; at the stretched arm (joints 2 and 4 straight) the report says the tip is
    near a singularity, as the C++ controller's words do."""
    assert _core().diagnostics(0.02)[2]['manipulability'] == 'off'
    core = _core(mode='cartesian_impedance', kp=[20.0], kd=[2.0])
    text = core.diagnostics(0.02)[2]['manipulability']
    measure, smallest = re.match(r"(\S+) \(J's smallest singular value (\S+?)[):]",
                                 text).groups()
    assert float(measure) > 1e-3 and float(smallest) > 0.1 and 'near' not in text, text
    stretched = Q0.copy()
    stretched[[1, 3]] = 0.0, -0.0698  # joint 4's upper limit: the elbow straight
    core = ControllerCore(PANDA, ControllerConfig.from_parameters(dict(
        mode='cartesian_impedance', kp=[20.0], kd=[2.0], ramp_time=0.0)))
    core.activate(0.0)
    for k in range(20):
        core.on_state(k * DT, NAMES, stretched, np.zeros(7), k * DT)
        core.update(k * DT)
    text = core.diagnostics(0.02)[2]['manipulability']
    assert 'near a singularity' in text, text
