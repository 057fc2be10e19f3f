"""The tool pose against a bag's pose targets (validation/task_space.py): a tool that sits
on its targets once settled passes with its error, one left 5 mm short fails, refused
targets are counted and not judged, the transit after each new target is not judged, and
`robodyn validate --task-space` puts it in the report."""

import numpy as np
import pytest
from rosbags.typesys import Stores, get_typestore

from robodyn_ros.defaults import REFERENCE_TOPIC
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.dynamics.recursive.tip_frame import TipFrame
from robodyn_ros.errors import BagError
from robodyn_ros.io.bag_writer import BagWriter
from robodyn_ros.io.cdr import encode_joint_state
from robodyn_ros.model import load_robot
from robodyn_ros.validation.task_space import ARRIVAL, SETTLE, TARGET_TOPIC, scan_task_space

MODEL = load_robot('panda', tip_link='panda_hand')
STORE = get_typestore(Stores.ROS2_KILTED)
POSE = 'geometry_msgs/msg/PoseStamped'
Q0 = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])


def _tool(q):
    """The hand's axes and origin in panda_link0 at ``q``."""
    base = MODEL.dh_table('standard').base
    _, rotation, point = TipFrame(RigidBodyDynamics(MODEL)).at(q)
    return base[:3, :3] @ rotation, base[:3, :3] @ point + base[:3, 3]


def _pose(point, rotation, frame='panda_link0'):
    from scipy.spatial.transform import Rotation
    msg = STORE.types[POSE]
    header = STORE.types['std_msgs/msg/Header'](
        STORE.types['builtin_interfaces/msg/Time'](0, 0), frame)
    x, y, z, w = Rotation.from_matrix(rotation).as_quat()
    pose = STORE.types['geometry_msgs/msg/Pose'](
        STORE.types['geometry_msgs/msg/Point'](*map(float, point)),
        STORE.types['geometry_msgs/msg/Quaternion'](float(x), float(y), float(z), float(w)))
    return STORE.serialize_cdr(msg(header, pose), POSE)


def _diagnostics(text):
    """A DiagnosticArray of the controller whose ``target`` says ``text``."""
    t = STORE.types
    header = t['std_msgs/msg/Header'](t['builtin_interfaces/msg/Time'](0, 0), '')
    status = t['diagnostic_msgs/msg/DiagnosticStatus'](
        0, 'robodyn_controller', 'active', '', [t['diagnostic_msgs/msg/KeyValue']('target', text)])
    return STORE.serialize_cdr(t['diagnostic_msgs/msg/DiagnosticArray'](header, [status]),
                               'diagnostic_msgs/msg/DiagnosticArray')


def _bag(path, short=0.0, clamped=False):
    """Three postures held 4 s each at 100 Hz, the target of each (its tool pose, ``short``
    [m] off in x) sent at 10 Hz from the posture's start; a NaN target in the middle. The
    arm moves to each posture over its first second (the transit), on its reference."""
    bag = BagWriter(path, 'mcap')
    bag.add_topic('/joint_states', 'sensor_msgs/msg/JointState')
    bag.add_topic(TARGET_TOPIC, POSE)
    bag.add_topic(REFERENCE_TOPIC, 'sensor_msgs/msg/JointState')
    bag.add_topic('/diagnostics', 'diagnostic_msgs/msg/DiagnosticArray')
    postures = [Q0, Q0 + 0.2, Q0 - 0.1]
    previous = Q0
    for k, q in enumerate(postures):
        rotation, point = _tool(q)
        for i in range(400):
            t = 100.0 + 4.0 * k + i * 0.01
            now = previous + (q - previous) * min(1.0, i / 100)
            bag.write(REFERENCE_TOPIC, int(t * 1e9) - 1000, encode_joint_state(
                t - 1e-6, MODEL.joint_names, now, np.zeros(7), np.zeros(7)))
            bag.write('/joint_states', int(t * 1e9),
                      encode_joint_state(t, MODEL.joint_names, now, np.zeros(7), np.zeros(7)))
            if i % 10 == 0:
                nan = k == 1 and i == 200
                target = np.full(3, np.nan) if nan else point + [short, 0.0, 0.0]
                if clamped and k == 1:  # sent 0.1 m beyond the tool; the box put it back
                    target = target + [0.1, 0.0, 0.0]
                    if i == 50:
                        bag.write('/diagnostics', int(t * 1e9) + 2,
                                  _diagnostics('clamped to the workspace box'))
                bag.write(TARGET_TOPIC, int(t * 1e9) + 1, _pose(target, rotation))
        previous = q
    bag.close()
    return str(path)


def test_a_tool_on_its_targets_passes_and_the_transit_is_not_judged(tmp_path):
    scan = scan_task_space(_bag(tmp_path / 'on'), MODEL)
    assert scan.targets == 3 and scan.refused == 1 and scan.judged_targets == 3
    # from SETTLE after each target, and not the last ARRIVAL before the next one
    judged = 3 * (400 - int(SETTLE * 100)) - 2 * int(ARRIVAL * 100)
    assert abs(scan.samples - judged) <= 3
    assert np.all(scan.position_max < 1e-6) and np.all(scan.orientation_max < 1e-6)


def test_a_tool_left_short_of_its_targets_shows_the_offset_on_its_axis(tmp_path):
    scan = scan_task_space(_bag(tmp_path / 'short', short=0.005), MODEL)
    assert scan.position_rms == pytest.approx([5.0, 0.0, 0.0], abs=1e-6)


def test_a_target_the_controller_clamped_to_its_box_is_not_judged(tmp_path):
    scan = scan_task_space(_bag(tmp_path / 'clamped', clamped=True), MODEL)
    assert scan.clamped == 1 and scan.judged_targets == 2
    assert np.all(scan.position_max < 1e-6)


def test_a_bag_without_targets_is_refused_in_one_line(tmp_path):
    bag = BagWriter(tmp_path / 'none', 'mcap')
    bag.add_topic('/joint_states', 'sensor_msgs/msg/JointState')
    bag.write('/joint_states', 1, encode_joint_state(0.0, MODEL.joint_names, Q0, np.zeros(7),
                                                     np.zeros(7)))
    bag.close()
    with pytest.raises(BagError, match='target'):
        scan_task_space(str(tmp_path / 'none'), MODEL)


@pytest.mark.parametrize('short, code', [(0.0, 0), (0.005, 1)])
def test_validate_task_space_judges_the_tool(tmp_path, short, code, capsys):
    import json

    from robodyn_ros.cli import build_parser, run
    bag = _bag(tmp_path / 'bag', short)
    out = tmp_path / 'report'
    argv = ['validate', bag, '--robot', 'panda', '--tip', 'panda_hand', '--task-space',
            '--no-plots', '--out', str(out)]
    assert run(build_parser().parse_args(argv)) == code, capsys.readouterr()
    report = json.loads((out / 'report.json').read_text())
    assert report['task_space']['position_rms_mm'][0] == pytest.approx(short * 1e3, abs=1e-6)
    assert 'Tool pose to the targets' in (out / 'report.md').read_text()
