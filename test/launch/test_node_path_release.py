"""The node path lets go of the arm safely: `ros2 launch robodyn_ros ros2_control.launch.py
controller:=node hardware:=mujoco` (the robodyn node on the forward effort controller,
MuJoCo stepped in controller_manager's loop), two CPU hogs throughout. The node's lifecycle
deactivate mid-motion publishes its final command and switches the forward controller off
(release_controller), so the hardware holds the arm where it was released instead of the
forward controller applying a stale g(q) for ever; activate takes the arm back. Judged from
/joint_states, whose effort is the torque MuJoCo applied.
"""

import time

import numpy as np
import pytest
from ros2_control_probe import Probe
from test_default_path_faults import DRIFT, STEP, _largest_steps, _series, _worst_step
from test_ros2_control_launch import _Hogs, _Launch, _require

pytestmark = pytest.mark.integration

DOMAIN = 97
ACTIVE = 'ramp-in complete'


@pytest.fixture(scope='module')
def release(ros_launch_env):
    _require('mujoco_ros2_control')
    from diagnostic_msgs.msg import DiagnosticArray
    from lifecycle_msgs.msg import Transition
    from sensor_msgs.msg import JointState
    result = {}
    with _Hogs():
        launch = _Launch(ros_launch_env, DOMAIN, 'controller:=node', 'hardware:=mujoco',
                         'robot:=panda')
        assert launch.wait_for(ACTIVE, 180.0), ''.join(launch.lines[-40:])
        probe = Probe(DOMAIN)
        probe.record('/joint_states', JointState, depth=30000)
        probe.record('/diagnostics', DiagnosticArray, depth=5000)
        try:
            probe.spin(2.0)  # the configured sum of sines: the arm moves
            since = time.monotonic()
            result['deactivated'] = _change(probe, Transition.TRANSITION_DEACTIVATE)
            probe.spin(10.0)
            result['held'] = _series(probe, since)
            back = time.monotonic()
            result['activated'] = _change(probe, Transition.TRANSITION_ACTIVATE)
            probe.spin(3.0)
            result['back'] = _series(probe, back)
            result['said'] = _switch_notes(probe)
            result['moving'] = _series(probe, since - 1.0)
        finally:
            probe.close()
            launch.stop()
    return result


def _change(probe, transition):
    from lifecycle_msgs.msg import Transition
    from lifecycle_msgs.srv import ChangeState
    client = probe.node.create_client(ChangeState, '/robodyn_controller/change_state')
    if not client.wait_for_service(timeout_sec=10.0):
        return False
    answer = probe.wait(client.call_async(ChangeState.Request(
        transition=Transition(id=transition))))
    return bool(answer and answer.success)


def _switch_notes(probe):
    notes = []
    for _, msg in probe.log['/diagnostics']:
        for status in msg.status:
            values = {kv.key: kv.value for kv in status.values}
            if status.name == 'robodyn_controller' and values.get('switch') and \
                    values['switch'] not in notes:
                notes.append(values['switch'])
    return notes


def test_the_arm_was_moving_when_released(release):
    stamps, q, _ = release['moving']
    before = stamps < stamps[0] + 1.0
    assert np.abs(np.diff(q[before], axis=0)).max() / 0.001 > 0.05  # rad/s: in motion


#: The arm coasts under the final g(q) until controller_manager has switched the forward
#: controller off (the request's round trip: 20-150 ms measured, two hogs): at the
#: configured sum of sines' speed that is up to this far [rad] (docs/reliability.md).
COAST = 0.25


def test_deactivate_leaves_the_arm_where_it_was_released(release):
    assert release['deactivated']
    stamps, q, effort = release['held']
    assert stamps[-1] - stamps[0] > 9.0
    coast = float(np.abs(q - q[0]).max())
    assert coast <= COAST, f'{coast:.4f} rad from the release position'
    held = stamps >= stamps[0] + 0.5  # the hardware holds from here
    drift = float(np.abs(q[held] - q[held][0]).max())
    assert drift <= DRIFT, f'drift {drift:.4f} rad over {stamps[-1] - stamps[0]:.1f} s'
    assert _worst_step(stamps, effort) <= STEP * 1.001, (stamps[0],
                                                         _largest_steps(stamps, effort))
    assert 'effort_controller switched off: the hardware holds the arm' in release['said']


def test_activate_takes_the_arm_back_without_a_step(release):
    assert release['activated']
    stamps, _, effort = release['back']
    assert _worst_step(stamps, effort) <= STEP * 1.001
    assert 'effort_controller switched on: it applies the commands' in release['said']
