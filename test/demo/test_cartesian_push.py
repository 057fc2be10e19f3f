"""`robodyn demo --mode cartesian_impedance --reference hold --push 6 -8 0`: the Panda
holding a pose, pushed at the tool point with 10 N, moves that point by K_x^-1 F (500 N/m:
2 cm) within 5 %, its axes hardly turn, and it returns within 1 mm once the push ends; a
1 N m moment turns the tool by K^-1 M (FK of the recorded states: the tip's pose in DH
frame 0)."""

import numpy as np
import pytest

pytest.importorskip('rclpy')

from robodyn_ros.control.laws import Cartesian  # noqa: E402
from robodyn_ros.control.laws.cartesian_impedance import rotation_vector  # noqa: E402
from robodyn_ros.demo.runner import demo  # noqa: E402
from robodyn_ros.dynamics import RigidBodyDynamics  # noqa: E402
from robodyn_ros.io import BagReader  # noqa: E402
from robodyn_ros.model import load_robot  # noqa: E402

pytestmark = pytest.mark.integration  # the in-process demo: nodes, a bag

FORCE = np.array([6.0, -8.0, 0.0])  # [N], base frame: 10 N
MOMENT = np.array([0.0, 0.6, 0.8])  # [N m], base frame: 1 N m
START, LENGTH, AFTER = 1.0, 3.0, 2.0  # the push, and the time after it [s, simulated]


def _states(bag_path):
    out = {}
    with BagReader(bag_path) as bag:
        for _, msgtype, _, raw in bag.messages(['/joint_states']):
            msg = bag.deserialize(raw, msgtype)
            out[msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9] = \
                np.array(msg.position)
    t = np.array(sorted(out))
    return t - t[0], np.array([out[k] for k in sorted(out)])


@pytest.mark.parametrize('wrench', [(*FORCE, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0, *MOMENT)],
                         ids=['force', 'moment'])
def test_a_push_at_the_tool_moves_it_by_k_inverse_f_and_it_comes_back(tmp_path, wrench):
    """The translational spring with 10 N, the rotational one with 1 N m (30 N m/rad: 33
    mrad), each moving only its own part of the pose."""
    from robodyn_ros.dynamics.recursive.tip_frame import TipFrame
    sim = {'push_wrench': list(wrench), 'push_start': START, 'push_duration': LENGTH}
    result = demo('panda', 'cartesian_impedance', 'hold', START + LENGTH + AFTER,
                  out=str(tmp_path), sim_overrides=sim, log=lambda line: None)
    assert result['report']['passed'], result['report']['failures']
    t, q = _states(result['bag'])
    model = load_robot('panda', tip_link='panda_hand')
    frame = TipFrame(RigidBodyDynamics(model))
    base = model.dh_table('standard').base[:3, :3]  # DH frame 0 in base_link

    def pose(window):
        rows = q[(t > window[0]) & (t < window[1])]
        return tuple(a.copy() for a in frame.at(rows.mean(axis=0))[1:])
    r0, p0 = pose((START - 0.5, START - 0.05))
    r1, p1 = pose((START + LENGTH - 1.0, START + LENGTH - 0.05))
    _, p2 = pose((START + LENGTH + AFTER - 0.5, START + LENGTH + AFTER - 0.05))
    stiffness = np.array(Cartesian().stiffness)
    force, moment = base.T @ np.array(wrench[:3]), base.T @ np.array(wrench[3:])
    moved, turned = p1 - p0, rotation_vector(r1 @ r0.T)
    for got, want, other in ((moved, force / stiffness[:3], turned),
                             (turned, moment / stiffness[3:], moved)):
        if not np.any(want):
            continue
        print(f'moved {np.round(moved * 1e3, 3)} mm, turned {np.round(turned * 1e3, 3)} '
              f'mrad; the spring says {np.round(want * 1e3, 3)}; back within '
              f'{np.linalg.norm(p2 - p0) * 1e3:.4f} mm')
        assert np.abs(got - want).max() <= 0.05 * np.abs(want).max(), (got, want)
        assert np.abs(other).max() <= 0.05 * np.abs(want).max(), other
    assert np.linalg.norm(p2 - p0) < 1e-3
