"""The node path feels a push in the closed-loop demo (lock step, in-process): the
simulator pushes the tool, the controller's live estimate (~/external_torque, recorded)
follows MuJoCo's own joint torque of the push, and the contact is reported."""

import numpy as np
import pytest

pytest.importorskip('rclpy')

from robodyn_ros.demo.config import ESTIMATE_TOPIC, TRUTH_TOPIC  # noqa: E402
from robodyn_ros.demo.runner import closed_loop  # noqa: E402
from robodyn_ros.io import BagReader, parse_joint_state  # noqa: E402

pytestmark = pytest.mark.integration  # ROS 2 nodes and bags

GAIN = 50.0


def _series(bag, topic):
    """{stamp [s]: effort} of a JointState topic, in the order it names its joints."""
    out = {}
    with BagReader(bag) as reader:
        for _, _, _, raw in reader.messages([topic]):
            stamp, _, _, _, effort = parse_joint_state(raw)
            out[round(stamp, 6)] = effort
    return out


def test_the_live_estimate_follows_the_push_and_the_contact_is_reported(tmp_path):
    bag = str(tmp_path / 'bag')
    closed_loop('panda', duration=1.6, bag_path=bag, controller_overrides={
        'collision.thresholds': [1.0], 'collision.reaction': 'report',
        'collision.gain': GAIN, 'state_publish_rate': 1000.0},
        sim_overrides={'push_wrench': [20.0, 0.0, -10.0, 0.0, 0.0, 0.0], 'push_start': 1.0,
                       'push_duration': 0.5})
    truth, estimate = _series(bag, TRUTH_TOPIC), _series(bag, ESTIMATE_TOPIC)
    both = sorted(set(truth) & set(estimate))
    assert len(both) > 1000, (len(truth), len(estimate))
    onset = next(t for t in both if truth[t].any())
    end = max(t for t in both if truth[t].any())
    peak = max(float(np.abs(truth[t]).max()) for t in both)
    settled = max(float(np.abs(estimate[t] - truth[t]).max()) for t in both
                  if onset + 3.0 / GAIN <= t <= end)
    print(f'node path, lock step: peak {peak:.3f} N m, settled error {settled:.4f} N m '
          f'({100 * settled / peak:.1f} %)')
    assert peak > 2.0 and settled < 0.05 * peak, (settled, peak)
    free = max(float(np.abs(estimate[t]).max()) for t in both if t < onset)
    assert free < 0.1, free  # nothing before the push
    with BagReader(bag) as reader:
        said = [reader.deserialize(raw, kind) for _, kind, _, raw in
                reader.messages(['/diagnostics'])]
    lines = [kv.value for msg in said for s in msg.status for kv in s.values
             if kv.key == 'last_collision' and kv.value.startswith('collision')]
    assert lines and 'panda_joint' in lines[-1], lines[-1:]
