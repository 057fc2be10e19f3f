"""The node path's collision watch through every state fault the hardware can inject:
`ros2 launch robodyn_ros ros2_control.launch.py controller:=node hardware:=mujoco` with the
observer on (thresholds 1 N m, debounce 3, reaction `report`), two CPU hogs. The robodyn
node follows its configured sum of sines on the lock-step MuJoCo arm; for each case it is
activated afresh, and once the arm moves the hardware corrupts the states it hands the
controllers (NaN, out of range, frozen, jumping by 0.5 rad, one late read of 0.2 s). The
physics is not touched: nothing pushes the arm, so a declared collision is a false one.
The same faults on the default path: test_default_path_faults.py.
"""

import time

import pytest
from ros2_control_probe import Probe
from test_default_path_faults import (
    COLLISION,
    INJECT,
    INJECTED,
    _matched,
    _moving,
    require_lockstep,
)
from test_node_path_release import NODE, _fresh, _said_since
from test_ros2_control_launch import _config, _Hogs, _Launch, _require

pytestmark = pytest.mark.integration

DOMAIN = 95
#: The words of the node's safe mode (control/safety/supervisor.py's state names).
SAFE = 'safe:'


@pytest.fixture(scope='module')
def node_faults(ros_launch_env, tmp_path_factory):
    _require('mujoco_ros2_control')
    require_lockstep(ros_launch_env)
    from diagnostic_msgs.msg import DiagnosticArray
    from sensor_msgs.msg import JointState
    from std_msgs.msg import String
    config = _config(tmp_path_factory.mktemp('node_faults'), collision=COLLISION)
    result = {'cases': {}}
    with _Hogs():
        launch = _Launch(ros_launch_env, DOMAIN, 'controller:=node', 'hardware:=mujoco',
                         'robot:=panda', 'fault_injection:=true', f'config:={config}')
        try:  # the launch stops whatever happens here
            result['active'] = launch.wait_for('ramp-in complete', 240.0)
            if result['active']:
                probe = Probe(DOMAIN)
                probe.record('/joint_states', JointState, depth=20000)
                probe.record('/diagnostics', DiagnosticArray, depth=5000)
                result['heard'] = probe.hear(['/joint_states'], 30.0)
                try:
                    publisher = probe.node.create_publisher(String, INJECT, 10)
                    _matched(probe, publisher)
                    for request, _ in INJECTED:
                        result['cases'][request] = _case(probe, publisher, request, result)
                    result['declared'] = _declared(probe)
                finally:
                    probe.close()
        finally:
            result['code'], result['text'], result['exit_s'] = launch.stop()
    return result


def _case(probe, publisher, request, result):
    """A fresh activation (the case before latched the node), the arm moving on the node's
    reference, the hardware's ``request``; what the node said over the 3 s after it."""
    from std_msgs.msg import String
    fresh = _fresh(probe, result, force=True)
    speed = _moving(probe, 0.02, 10.0)
    since = time.monotonic()
    publisher.publish(String(data=request))
    probe.spin(3.0)
    return {'fresh': fresh, 'speed': round(speed, 3), 'said': _said_since(probe, since)}


def _declared(probe):
    """[(receipt time, message)] of the node's statuses that say a collision."""
    out = []
    for t, msg in probe.log['/diagnostics']:
        for status in msg.status:
            if status.name != NODE.lstrip('/'):
                continue
            values = {kv.key: kv.value for kv in status.values}
            if 'collision' in status.message or values.get('last_collision'):
                out.append((round(t, 3), status.message[:200]))
    return out


def test_the_node_follows_on_the_simulated_arm(node_faults):
    assert node_faults['active'], node_faults['text'][-3000:]
    assert node_faults['heard'], 'the probe heard no /joint_states in 30 s'
    assert node_faults['exit_s'] < 2.0, node_faults['exit_s']


def test_no_collision_is_declared_through_corrupted_states(node_faults):
    """Nothing touches the arm: no declaration in any case, the frozen and jumping streams
    included (a jump is refused by the state guard before the observer sees it, and
    nothing is declared in the safe mode it latches: docs/collisions.md)."""
    for request, case in node_faults['cases'].items():
        print(f'{request}: fresh {case["fresh"]}, fastest joint {case["speed"]} rad/s, '
              f'said {case["said"]}')
    assert node_faults['cases'], 'no case ran'
    assert not node_faults['declared'], node_faults['declared'][:5]


@pytest.mark.parametrize('request_', [r for r, words in INJECTED if words is not None])
def test_each_corrupted_stream_takes_the_node_to_its_safe_mode(node_faults, request_):
    case = node_faults['cases'][request_]
    assert case['speed'] > 0.02, ('the arm did not move when the fault came', case)
    assert any(message.startswith(SAFE) for message in case['said']), case
