"""The tool against the reference's tool (validation/tool_tracking.py): a state on its
reference has no error, one whose joints lag shows the tool's offset on its axes, states
are paired with the reference of their stamp in either arrival order, and a bag without a
pair is refused rather than passed."""

import numpy as np
import pytest

from robodyn_ros.defaults import REFERENCE_TOPIC
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.dynamics.recursive.tip_frame import TipFrame
from robodyn_ros.errors import BagError
from robodyn_ros.io.bag_writer import BagWriter
from robodyn_ros.io.cdr import encode_joint_state
from robodyn_ros.model import load_robot
from robodyn_ros.validation.tool_tracking import add_tool_tracking, scan_tool_tracking

MODEL = load_robot('panda', tip_link='panda_hand')
Q0 = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])
ZERO = np.zeros(7)


def _bag(path, lag=0.0, stamps_differ=False):
    """2 s at 100 Hz of a reference sweeping joint 1; the state ``lag`` [rad] behind it on
    joint 1; every other reference written after its state, stamped within 30 us of it
    (the default path's clock reads), or 5 ms apart with ``stamps_differ`` (another
    cycle's)."""
    bag = BagWriter(path, 'mcap')
    bag.add_topic('/joint_states', 'sensor_msgs/msg/JointState')
    bag.add_topic(REFERENCE_TOPIC, 'sensor_msgs/msg/JointState')
    for i in range(200):
        t = 10.0 + 0.01 * i
        q_r = Q0 + [0.3 * np.sin(t), 0, 0, 0, 0, 0, 0]
        q = q_r - [lag, 0, 0, 0, 0, 0, 0]
        order = (1, -1) if i % 2 else (-1, 1)
        bag.write('/joint_states', int(t * 1e9) + order[0],
                  encode_joint_state(t, MODEL.joint_names, q, ZERO, ZERO))
        stamp = t + (5e-3 if stamps_differ else 3e-5 * (i % 3 - 1))
        bag.write(REFERENCE_TOPIC, int(t * 1e9) + order[1],
                  encode_joint_state(stamp, MODEL.joint_names, q_r, ZERO, ZERO))
    bag.close()
    return str(path)


def test_a_tool_on_its_reference_has_no_error(tmp_path):
    scan = scan_tool_tracking(_bag(tmp_path / 'on'), MODEL)
    assert scan.samples == 200 and scan.unpaired == 0
    assert np.all(scan.position_max < 1e-9) and np.all(scan.orientation_max < 1e-9)


def test_a_lagging_joint_shows_the_tools_offset_and_fails_over_the_bound(tmp_path):
    lag = 0.002  # [rad] on joint 1, which turns the tool about the base's z
    scan = scan_tool_tracking(_bag(tmp_path / 'lag', lag=lag), MODEL)
    frame, base = TipFrame(RigidBodyDynamics(MODEL)), MODEL.dh_table('standard').base
    reach = np.hypot(*(base[:3, :3] @ frame.at(Q0)[2] + base[:3, 3])[:2])
    assert scan.distance_rms == pytest.approx(lag * reach * 1e3, rel=1e-3)
    assert scan.position_rms[2] < 1e-6 and scan.orientation_rms[2] == pytest.approx(
        lag * 1e3, rel=1e-6)
    report: dict = {'passed': True, 'failures': []}
    add_tool_tracking(report, scan, max_position=0.1, max_orientation=10.0)
    assert not report['passed'] and 'position RMS' in report['failures'][0]
    report: dict = {'passed': True, 'failures': []}
    add_tool_tracking(report, scan, max_position=1.0, max_orientation=10.0)
    assert report['passed'] and report['tool_tracking']['samples'] == 200


def test_a_bag_whose_stamps_never_pair_is_refused(tmp_path):
    with pytest.raises(BagError, match='nothing to judge'):
        scan_tool_tracking(_bag(tmp_path / 'apart', stamps_differ=True), MODEL)


def test_without_bounds_the_scan_is_reported_not_judged(tmp_path):
    scan = scan_tool_tracking(_bag(tmp_path / 'lag', lag=0.01), MODEL)
    report: dict = {'passed': True, 'failures': []}
    add_tool_tracking(report, scan, None, None)
    assert report['passed'] and report['tool_tracking']['max_position_mm'] is None
    assert report['tool_tracking']['distance_rms_mm'] > 1.0
