"""`robodyn demo --mode joint_impedance --reference hold --push 6 -8 0`: the arm holding
still, pushed at the tool with 10 N, settles at offsets K^-1 J(q)^T F (K = 400 N m/rad
on every joint), within 5 % of the largest: the simulator's own joint torque of the push,
and robodyn's tool Jacobian at the pushed pose."""

import numpy as np
import pytest

pytest.importorskip('rclpy')

from robodyn_ros.demo.config import IMPEDANCE_K  # noqa: E402
from robodyn_ros.demo.runner import demo  # noqa: E402
from robodyn_ros.dynamics.contact_wrench import tool_jacobian  # noqa: E402
from robodyn_ros.io import BagReader  # noqa: E402
from robodyn_ros.model import load_robot  # noqa: E402

pytestmark = pytest.mark.integration  # the in-process demo: nodes, a bag

FORCE = np.array([6.0, -8.0, 0.0])  # [N], base frame: 10 N
START, LENGTH = 1.0, 3.0  # the push [s of simulated time]


def _series(bag_path, topic, field):
    out = {}
    with BagReader(bag_path) as bag:
        for _, msgtype, _, raw in bag.messages([topic]):
            msg = bag.deserialize(raw, msgtype)
            out[msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9] = \
                np.array(getattr(msg, field))
    t = np.array(sorted(out))
    return t - t[0], np.array([out[k] for k in sorted(out)])


def test_a_push_at_the_tool_moves_each_joint_by_k_inverse_j_transpose_f(tmp_path):
    sim = {'push_wrench': [*FORCE, 0.0, 0.0, 0.0], 'push_start': START,
           'push_duration': LENGTH}
    result = demo('panda', 'joint_impedance', 'hold', START + LENGTH + 0.5,
                  out=str(tmp_path), sim_overrides=sim, log=lambda line: None)
    assert result['report']['passed'], result['report']['failures']
    t, q = _series(result['bag'], '/joint_states', 'position')
    before = q[(t > START - 0.5) & (t < START - 0.05)].mean(axis=0)
    pushed = q[(t > START + LENGTH - 1.0) & (t < START + LENGTH - 0.05)].mean(axis=0)
    offset = pushed - before
    tt, tau = _series(result['bag'], '/robodyn_sim/external_torque', 'effort')
    applied = tau[(tt > START + LENGTH - 1.0) & (tt < START + LENGTH - 0.05)].mean(axis=0)
    jacobian = tool_jacobian(load_robot('panda', tip_link='panda_hand'), pushed)
    for want in (applied / IMPEDANCE_K, jacobian[:3].T @ FORCE / IMPEDANCE_K):
        assert np.abs(want).max() > 5e-3  # a push that moves the arm measurably
        assert np.abs(offset - want).max() <= 0.05 * np.abs(want).max(), (offset, want)
