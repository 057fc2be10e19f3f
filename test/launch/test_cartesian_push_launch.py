"""The default path's cartesian_impedance is a spring at the tool: `ros2 launch robodyn_ros
ros2_control.launch.py hardware:=mujoco mode:=cartesian_impedance` (the C++ controller in
controller_manager's loop, the arm holding its start pose, K_x 500 N/m and 30 N m/rad), the
lock-step MuJoCo hardware pushing the tool point (its `~/push`, test only) with 10 N for
3 s, then with a 1 N m moment for 3 s, beside two CPU hogs. Judged from FK of
/joint_states: the tool point moves by K_x^-1 F and turns by K_x^-1 M within 5 %, and comes
back within 1 mm once each push ends."""

import time

import numpy as np
import pytest
from ros2_control_probe import Probe, launch_said
from test_default_path_faults import ACTIVE, _matched, require_lockstep
from test_ros2_control_launch import _config, _Hogs, _Launch, _realtime_priority, _require

from robodyn_ros.control.laws.cartesian_impedance import rotation_vector
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.dynamics.recursive.tip_frame import TipFrame
from robodyn_ros.model import load_robot

pytestmark = pytest.mark.integration

DOMAIN = 70
HARDWARE = '/robodyneffortsystem'
MODEL = load_robot('panda', tip_link='panda_hand')
STIFFNESS = np.array([500.0, 500.0, 500.0, 30.0, 30.0, 30.0])
#: (fx fy fz [N], mx my mz [N m], seconds), base_link = MuJoCo's world
PUSHES = {'force': (6.0, -8.0, 0.0, 0.0, 0.0, 0.0, 3.0),
          'moment': (0.0, 0.0, 0.0, 0.0, 0.6, 0.8, 3.0)}
#: the windows judged, from when the push was sent [s]: before, held pushed, after
BEFORE, DURING, AFTER = (-0.8, -0.1), (2.0, 2.9), (5.0, 5.8)


@pytest.fixture(scope='module')
def pushes(ros_launch_env, tmp_path_factory):
    _require('controller_manager')
    require_lockstep(ros_launch_env)
    from sensor_msgs.msg import JointState
    from std_msgs.msg import String
    config = _config(tmp_path_factory.mktemp('push'), mode='cartesian_impedance',
                     reference='hold', cartesian={'stiffness': STIFFNESS.tolist(),
                                                  'damping_ratio': 1.0})
    result = {'active': False, 'sent': {}}
    with _Hogs():
        launch = _Launch(ros_launch_env, DOMAIN, 'controller:=plugin', 'hardware:=mujoco',
                         'robot:=panda', 'fault_injection:=true', f'config:={config}',
                         f'realtime_priority:={_realtime_priority()}')
        try:
            result['active'] = launch.wait_for(ACTIVE, 180.0)
            if result['active']:
                probe = Probe(DOMAIN)
                probe.record('/joint_states', JointState, depth=40000)
                push = probe.node.create_publisher(String, f'{HARDWARE}/push', 10)
                _matched(probe, push)
                probe.spin(2.0)
                for name, wrench in PUSHES.items():
                    result['sent'][name] = time.time()
                    push.publish(String(data=' '.join(f'{v:g}' for v in wrench)))
                    deadline = time.monotonic() + 30.0
                    probe.spin_until_stamped('/joint_states', time.time() + AFTER[1],
                                             deadline, step=0.2)
                result['states'] = [(_stamp(m), _chain(m)) for _, m in
                                    probe.log['/joint_states']]
                probe.close()
        finally:
            result['code'], result['text'], _ = launch.stop()
    return result


def _stamp(msg):
    return msg.header.stamp.sec + 1e-9 * msg.header.stamp.nanosec


def _chain(msg):
    named = dict(zip(msg.name, msg.position))
    return np.array([named[n] for n in MODEL.joint_names])


def _pose(states, sent, window):
    """The tool's mean pose (rotation, point; base link frame) over ``window`` after
    ``sent``."""
    rows = [q for t, q in states if sent + window[0] <= t <= sent + window[1]]
    assert len(rows) > 100, (window, len(rows))
    frame, base = TipFrame(RigidBodyDynamics(MODEL)), MODEL.dh_table('standard').base
    _, r, p = frame.at(np.mean(rows, axis=0))
    return base[:3, :3] @ r, base[:3, :3] @ p + base[:3, 3]


@pytest.mark.parametrize('name', list(PUSHES))
def test_a_push_moves_the_tool_by_k_inverse_and_it_comes_back(pushes, name):
    run = pushes
    assert run['active'], launch_said(run['text'])
    sent, wrench = run['sent'][name], np.array(PUSHES[name][:6])
    r0, p0 = _pose(run['states'], sent, BEFORE)
    r1, p1 = _pose(run['states'], sent, DURING)
    r2, p2 = _pose(run['states'], sent, AFTER)
    moved, turned = p1 - p0, rotation_vector(r1 @ r0.T)
    print(f'default path, {name} push {wrench}: moved {moved * 1e3} mm, turned '
          f'{turned * 1e3} mrad; back within {np.linalg.norm(p2 - p0) * 1e3:.3f} mm')
    expected = wrench / STIFFNESS
    if name == 'force':
        assert np.linalg.norm(moved - expected[:3]) <= 0.05 * np.linalg.norm(expected[:3])
    else:
        assert np.linalg.norm(turned - expected[3:]) <= 0.05 * np.linalg.norm(expected[3:])
    assert np.linalg.norm(p2 - p0) < 1e-3
