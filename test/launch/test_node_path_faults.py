"""The node path's collision watch through every state fault the hardware can inject:
`ros2 launch robodyn_ros ros2_control.launch.py controller:=node hardware:=mujoco` with the
observer on (the default path's thresholds, debounce 3, reaction `report`), two CPU hogs.
The robodyn node holds the lock-step MuJoCo arm; for each case it is activated afresh and
given a goal (0.3 rad in 3 s), and once the arm moves the hardware corrupts the states it hands the
controllers (NaN, out of range, frozen, jumping by 0.5 rad, one late read of 0.2 s). The
physics is not touched: nothing pushes the arm, so a declared collision is a false one.
The same faults on the default path: test_default_path_faults.py.
"""

import os
import time

import numpy as np
import pytest
from ros2_control_probe import Probe, launch_said
from test_default_path_faults import (
    COLLISION,
    INJECT,
    INJECTED,
    MIDDLE,
    MOVING,
    _goal,
    _matched,
    _moving,
    _q,
    require_lockstep,
)
from test_node_path_release import NODE, REST, _fresh, _said_since
from test_ros2_control_launch import NAMES, ROBODYN_ACTION, _config, _Hogs, _Launch, _require

pytestmark = pytest.mark.integration

DOMAIN = 81
#: The words of the node's safe mode (control/safety/supervisor.py's state names).
SAFE = 'safe:'
#: The node path's thresholds [N m]: the default path's. Its observer takes the effort the
#: joint states report as the torque applied (what the hardware applied since the previous
#: state): the node's own output reaches the arm a cycle or more after it is published,
#: and with it collision-free goals read up to 1.09 N m on panda_joint2 (docs/collisions.md).
THRESHOLD = COLLISION['thresholds'][0]
#: The cases in the order they run: the frozen stream last (its trip leaves the arm where the
#: stale state let the law push it).
ORDER = sorted((request for request, _ in INJECTED), key=lambda r: r.startswith('frozen'))


@pytest.fixture(scope='module')
def node_faults(ros_launch_env, tmp_path_factory):
    if not os.environ.get('ROBODYN_FULL'):
        pytest.skip('the node path under injected state faults runs with ROBODYN_FULL=1: '
                    'under the load of the whole suite the node trips on its own before '
                    'some faults come (docs/collisions.md)')
    _require('mujoco_ros2_control')
    require_lockstep(ros_launch_env)
    from diagnostic_msgs.msg import DiagnosticArray
    from sensor_msgs.msg import JointState
    from std_msgs.msg import String
    config = _config(tmp_path_factory.mktemp('node_faults'),
                     collision=dict(COLLISION, thresholds=[THRESHOLD]))
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
                    client = probe.action_client(ROBODYN_ACTION)
                    for request in ORDER:
                        result['cases'][request] = _case(probe, client, publisher, request,
                                                         result)
                finally:
                    probe.close()
        finally:
            result['code'], result['text'], result['exit_s'] = launch.stop()
    return result


def _case(probe, client, publisher, request, result):
    """A fresh activation (the case before latched the node), a goal towards the middle of
    the joints' ranges, the hardware's ``request`` once the arm moves; what the node said
    over the 3 s after it."""
    from std_msgs.msg import String
    fresh = _fresh(probe, result, force=True)
    probe.spin(1.0)
    q = _q(probe)
    target = q - 0.3 * np.sign(q - MIDDLE)
    sent = time.monotonic()
    handle = probe.wait(client.send_goal_async(_goal(NAMES, [target, target], [3.0, 4.0],
                                                     REST)), 60.0)
    speed = _moving(probe, MOVING, 10.0)
    since = time.monotonic()
    publisher.publish(String(data=request))
    probe.spin(3.0)
    goal = 'no answer' if handle is None else 'accepted' if handle.accepted else 'rejected'
    return {'fresh': fresh, 'speed': round(speed, 3), 'goal': goal,
            'before': _said_since(probe, sent) if speed <= MOVING else {},
            'said': _said_since(probe, since), 'declared': _declared(probe, since)}


def _declared(probe, since):
    """[(receipt time, message)] of the node's statuses received after ``since`` that say
    a collision (its last contact stays said until the next fresh activation)."""
    out = []
    for t, msg in probe.log['/diagnostics']:
        for status in msg.status:
            if status.name != NODE.lstrip('/') or t < since:
                continue
            values = {kv.key: kv.value for kv in status.values}
            if 'collision' in status.message or \
                    values.get('last_collision', 'none') != 'none':
                out.append((round(t, 3), status.message[:200]))
    return out


def test_the_node_follows_on_the_simulated_arm(node_faults):
    assert node_faults['active'], launch_said(node_faults['text'])
    assert node_faults['heard'], 'the probe heard no /joint_states in 30 s'
    assert node_faults['exit_s'] < 2.0, node_faults['exit_s']


def test_no_collision_is_declared_through_corrupted_states(node_faults):
    """Nothing touches the arm: no declaration in any case, the jumping and frozen streams
    included (a jump is refused by the state guard before the observer sees it, a repeat
    of the last state is skipped, and nothing is declared in the safe mode they latch:
    docs/collisions.md)."""
    for request, case in node_faults['cases'].items():
        print(f'{request}: fresh {case["fresh"]}, goal {case["goal"]}, fastest joint '
              f'{case["speed"]} rad/s (still: the node said {case["before"]}), said '
              f'{case["said"]}, declared {case["declared"][:1]}')
    moving = [r for r, case in node_faults['cases'].items() if case['speed'] > MOVING]
    assert len(moving) >= 4, ('too few faults came while the arm moved', moving)
    declared = {r: case['declared'][:2] for r, case in node_faults['cases'].items()
                if case['declared']}
    assert not declared, declared


@pytest.mark.parametrize('request_', [r for r, words in INJECTED if words is not None])
def test_each_corrupted_stream_takes_the_node_to_its_safe_mode(node_faults, request_):
    case = node_faults['cases'][request_]
    if case['speed'] <= MOVING:  # under the hogs the node can trip on its own first
        pytest.skip(f'the arm did not move when the fault came (the node said '
                    f'{list(case["said"])[:1]}); the other cases judge the rule')
    assert any(SAFE in message for message in case['said']), case  # after a prefix too
