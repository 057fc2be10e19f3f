"""cartesian_impedance is a spring at the tool on both paths: `ros2 launch robodyn_ros
ros2_control.launch.py hardware:=mujoco mode:=cartesian_impedance controller:=plugin|node`
(the C++ controller in controller_manager's loop, or the node on the forward effort
controller; the arm holding its start pose, K_x 500 N/m and 30 N m/rad), the lock-step
MuJoCo hardware pushing the tool point (its `~/push`, test only) with 10 N for 3 s, then
with a 1 N m moment for 3 s, then the controller itself exerting 10 N at the tool point
from `~/target_wrench` for 3 s (robodyn_ros.client's push; a feed-forward J^T F_ff: in
free space the tool yields to it as to a push), beside two CPU hogs. Judged from FK of
/joint_states: the tool point moves by K_x^-1 F and turns by K_x^-1 M within 5 %, and comes
back within 1 mm once each push ends (the wrench: once its sender stops, after
wrench.timeout and the ramp out); a NaN wrench is refused and /diagnostics says so.

On the node path the test's own probe and client join DDS after the ramp-in; on Fast DDS's
shared memory a participant that joins can stop the node's sends for up to 333 ms
(robodyn_ros/nodes/dds_transport.py), past the forward controller's command timeout, which
then deactivates it (as designed) and the hardware holds the arm. An operator activates it
again; so does the test, before the pushes, and it says so."""

import math
import threading
import time

import numpy as np
import pytest
from ros2_control_probe import Probe, launch_said
from test_default_path_faults import ACTIVE, _matched, require_lockstep
from test_node_path_release import _forward_active
from test_ros2_control_launch import _config, _Hogs, _Launch, _realtime_priority, _require

from robodyn_ros.control.laws.cartesian_impedance import rotation_vector
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.dynamics.recursive.tip_frame import TipFrame
from robodyn_ros.model import load_robot

pytestmark = pytest.mark.integration

#: the paths and their ROS domains
DOMAINS = {'plugin': 70, 'node': 71}
UP = {'plugin': ACTIVE, 'node': 'ramp-in complete'}
HARDWARE = '/robodyneffortsystem'
WRENCH_TOPIC = '/robodyn_controller/target_wrench'
MODEL = load_robot('panda', tip_link='panda_hand')
STIFFNESS = np.array([500.0, 500.0, 500.0, 30.0, 30.0, 30.0])
#: (fx fy fz [N], mx my mz [N m], seconds), base_link = MuJoCo's world; 'wrench' is sent
#: to the controller's ~/target_wrench, the others to the hardware's ~/push
PUSHES = {'force': (6.0, -8.0, 0.0, 0.0, 0.0, 0.0, 3.0),
          'moment': (0.0, 0.0, 0.0, 0.0, 0.6, 0.8, 3.0),
          'wrench': (0.0, 8.0, 6.0, 0.0, 0.0, 0.0, 3.0)}
#: the windows judged, from when the push was sent [s]: before, held pushed, after
BEFORE, DURING, AFTER = (-0.8, -0.1), (2.0, 2.9), (5.0, 5.8)


@pytest.fixture(scope='module', params=list(DOMAINS))
def pushes(request, ros_launch_env, tmp_path_factory):
    path = request.param
    _require('controller_manager')
    require_lockstep(ros_launch_env)
    from diagnostic_msgs.msg import DiagnosticArray
    from sensor_msgs.msg import JointState
    # mode:= (the launch's argument, not the config's): the law with the posture gains the
    # launch gives it, not config/panda.yaml's computed-torque gains as posture gains
    config = _config(tmp_path_factory.mktemp(f'push_{path}'), reference='hold',
                     cartesian={'stiffness': STIFFNESS.tolist(), 'damping_ratio': 1.0})
    result = {'path': path, 'active': False, 'sent': {}}
    with _Hogs():
        launch = _Launch(ros_launch_env, DOMAINS[path], f'controller:={path}',
                         'hardware:=mujoco', 'robot:=panda', 'fault_injection:=true',
                         'mode:=cartesian_impedance',
                         f'config:={config}', f'realtime_priority:={_realtime_priority()}')
        try:
            result['active'] = launch.wait_for(UP[path], 180.0)
            if result['active']:
                probe = Probe(DOMAINS[path])
                probe.record('/joint_states', JointState, depth=60000)
                probe.record('/diagnostics', DiagnosticArray, depth=5000)
                _push_all(probe, result, DOMAINS[path])
                result['states'] = [(_stamp(m), _chain(m)) for _, m in
                                    probe.log['/joint_states']]
                result['said'] = {v.value for _, m in probe.log['/diagnostics']
                                  for s in m.status if s.name == 'robodyn_controller'
                                  for v in s.values if v.key == 'target_wrench'}
                result['messages'] = {s.message for _, m in probe.log['/diagnostics']
                                      for s in m.status if s.name == 'robodyn_controller'}
                result['timeline'] = _timeline(probe, min(result['sent'].values(),
                                                          default=time.time()))
                probe.close()
        finally:
            result['code'], result['text'], _ = launch.stop()
    return result


def _timeline(probe, start):
    """The controller's /diagnostics message each time it changed: (seconds of its stamp
    after ``start``, the wall clock [s]; the message's first 200 characters)."""
    changes, last = [], None
    for _, m in probe.log['/diagnostics']:
        for s in m.status:
            if s.name == 'robodyn_controller' and s.message != last:
                last = s.message
                changes.append((round(_stamp(m) - start, 2), s.message[:200]))
    return changes


def _commanded_throughout(run, name):
    """'' when the controller said neither safe nor held from BEFORE the push ``name`` to
    the end of its AFTER window, else what it said then."""
    start = run['sent'][name] - min(run['sent'].values())  # the timeline's clock
    window = [(t, text) for t, text in run['timeline'] if t <= start + AFTER[1]]
    earlier = [said for said in window if said[0] < start + BEFORE[0]]
    said = earlier[-1:] + [said for said in window if said[0] >= start + BEFORE[0]]
    bad = [(t, text) for t, text in said if text.startswith(('safe', 'held'))]
    return '' if not bad else f'the controller was not commanding: {bad}'


def _push_all(probe, result, domain):
    """Each of PUSHES in turn (the hardware's push, or the controller's target wrench from
    robodyn_ros.client's push, on a thread while the probe records), then one NaN
    wrench."""
    from geometry_msgs.msg import WrenchStamped
    from std_msgs.msg import String

    from robodyn_ros.client import RobodynClient
    push = probe.node.create_publisher(String, f'{HARDWARE}/push', 10)
    target = probe.node.create_publisher(WrenchStamped, WRENCH_TOPIC, 10)
    _matched(probe, push)
    _matched(probe, target)
    with RobodynClient(domain_id=domain) as arm:
        arm.wait_until_ready(timeout=30.0)
        probe.spin(2.0)
        if result['path'] == 'node' and not _forward_active(probe, result):
            result['forward_inactive'] = True  # the pushes' test says so
        probe.spin(1.0)
        for name, wrench in PUSHES.items():
            result['sent'][name] = time.time()
            if name == 'wrench':
                client = threading.Thread(target=arm.push,
                                          args=(wrench[:3], wrench[3:6], wrench[6]))
                client.start()
            else:
                push.publish(String(data=' '.join(f'{v:g}' for v in wrench)))
            probe.spin_until_stamped('/joint_states', result['sent'][name] + AFTER[1],
                                     time.monotonic() + 30.0, step=0.2)
    _send_wrench(probe, target, (math.nan, 0.0, 0.0, 0.0, 0.0, 0.0), 0.3)
    probe.spin(0.5)


def _send_wrench(probe, publisher, wrench, seconds):
    from geometry_msgs.msg import WrenchStamped
    msg = WrenchStamped()
    msg.header.frame_id = 'panda_link0'
    f, m = msg.wrench.force, msg.wrench.torque
    f.x, f.y, f.z, m.x, m.y, m.z = (float(v) for v in wrench)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        publisher.publish(msg)
        probe.spin(0.1)


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
    assert not run.get('forward_inactive'), 'the forward controller did not come back'
    why = _commanded_throughout(run, name)
    assert not why, (why, run['timeline'])
    if run.get('forward_timeouts'):  # the probe's joining stalled the node (the docstring)
        print(f"the forward controller had timed out {run['forward_timeouts']} time(s) "
              'before the pushes: activated again')
    r0, p0 = _pose(run['states'], sent, BEFORE)
    r1, p1 = _pose(run['states'], sent, DURING)
    r2, p2 = _pose(run['states'], sent, AFTER)
    moved, turned = p1 - p0, rotation_vector(r1 @ r0.T)
    print(f"{run['path']} path, {name} {wrench}: moved {moved * 1e3} mm, turned "
          f'{turned * 1e3} mrad; back within {np.linalg.norm(p2 - p0) * 1e3:.3f} mm')
    expected = wrench / STIFFNESS
    if name == 'moment':
        assert np.linalg.norm(turned - expected[3:]) <= 0.05 * np.linalg.norm(expected[3:])
    else:
        assert np.linalg.norm(moved - expected[:3]) <= 0.05 * np.linalg.norm(expected[:3])
    assert np.linalg.norm(p2 - p0) < 1e-3


def test_diagnostics_say_the_wrench_was_applied_and_the_nan_refused(pushes):
    run = pushes
    assert run['active'], launch_said(run['text'])
    said = run['said']
    assert 'applying' in said, (said, run['messages'], launch_said(run['text']))
    assert any(text.startswith('refused: target wrench not finite') for text in said), said
    assert 'timed out: no target within wrench.timeout, ramped to zero' in said, said
