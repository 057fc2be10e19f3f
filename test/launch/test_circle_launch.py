"""The default path's operational_space draws a circle: `ros2 launch robodyn_ros
ros2_control.launch.py hardware:=mujoco mode:=operational_space` (the C++ controller in
controller_manager's loop, MuJoCo), and `robodyn_ros.client`'s trace_circle (0.1 m radius,
0.5 Hz, through the path's FollowJointTrajectory server), beside two CPU hogs. Judged from
the launch's bag (`robodyn validate --task-space`'s tool against the reference's tool,
which lies on the circle): within 1 mm RMS per axis, and the tool went round it."""


from model_helpers import bag_tool_points
import numpy as np
import pytest
from ros2_control_probe import launch_said
from test_ros2_control_launch import _config, _Hogs, _Launch, _realtime_priority, _require

from robodyn_ros.io import BagReader
from robodyn_ros.model import load_robot

pytestmark = pytest.mark.integration

DOMAIN = 67
MODEL = load_robot('panda', tip_link='panda_hand')
RADIUS, FREQUENCY, TURNS = 0.1, 0.5, 2.0
UP = 'Configured and activated joint_trajectory_controller'
STIFFER = [800.0, 800.0, 800.0, 40.0, 40.0, 40.0]


@pytest.fixture(scope='module')
def circle_run(ros_launch_env, tmp_path_factory):
    _require('controller_manager')
    if 'robodyn_controllers' not in ros_launch_env['AMENT_PREFIX_PATH']:
        pytest.skip('robodyn_controllers (C++) was not built')
    from robodyn_ros.client import RobodynClient
    config = _config(tmp_path_factory.mktemp('circle'), mode='operational_space',
                     reference='hold')
    bag = str(tmp_path_factory.mktemp('circle_bag') / 'bag')
    result = {'bag': bag, 'active': False}
    with _Hogs():
        launch = _Launch(ros_launch_env, DOMAIN, 'controller:=plugin', 'hardware:=mujoco',
                         'robot:=panda', f'config:={config}', f'bag_path:={bag}',
                         f'realtime_priority:={_realtime_priority()}')
        try:
            result['active'] = launch.wait_for(UP, 240.0)
            if result['active']:
                with RobodynClient(domain_id=DOMAIN) as arm:
                    arm.wait_until_ready(timeout=60.0)
                    # the tool spring set while running: a stiffer one is blended in, a
                    # spring of five values refused with the reason
                    result['stiffer'] = arm.set_stiffness(STIFFER, 0.9)
                    result['five'] = arm.set_stiffness(STIFFER[:5])
                    result['traced'] = arm.trace_circle(RADIUS, FREQUENCY, TURNS)
        finally:
            result['code'], result['text'], _ = launch.stop()
    return result


def test_the_default_paths_operational_space_draws_the_circle(circle_run):
    from robodyn_ros.validation.tool_tracking import scan_tool_tracking
    run = circle_run
    assert run['active'], launch_said(run['text'])
    assert run['traced'].reached, (run['traced'], launch_said(run['text']))
    scan = scan_tool_tracking(run['bag'], MODEL)
    print(f'default path, operational_space on a {RADIUS} m circle at {FREQUENCY} Hz: tool to '
          f'the reference tool, RMS per axis {scan.position_rms.round(4)} mm, max '
          f'{scan.position_max.round(4)} mm over {scan.samples} states ({scan.unpaired} '
          'unpaired)')
    # the circle is 8 s of 1 kHz states; a recorder beside the suite and two hogs keeps
    # fewer of them (unpaired: a state whose reference it lost, or before the controller
    # answers): judged on at least half the circle's
    assert scan.samples > 4000, scan
    assert np.all(scan.position_rms < 1.0), scan
    points = bag_tool_points(run['bag'], MODEL)
    assert np.ptp(points[:, 1]) > 1.98 * RADIUS and np.ptp(points[:, 2]) > 1.98 * RADIUS


def test_the_default_path_reports_the_laws_manipulability(circle_run):
    """/diagnostics (the launch's bag) carries operational_space's manipulability of J, a
    number with J's smallest singular value, well away from a singularity on the circle."""
    import re
    run = circle_run
    assert run['active'], launch_said(run['text'])
    said = []
    with BagReader(run['bag']) as bag:
        for _, msgtype, _, raw in bag.messages(['/diagnostics']):
            for status in bag.deserialize(raw, msgtype).status:
                said += [kv.value for kv in status.values if kv.key == 'manipulability']
    values = [re.match(r"(\S+) \(J's smallest singular value ([0-9.]+)", v) for v in said]
    assert values and all(values), said[:3]
    smallest = [float(m.group(2)) for m in values]
    print(f'default path: manipulability said {len(said)} times, J smallest singular value '
          f'{min(smallest):.3f}-{max(smallest):.3f}')
    assert min(smallest) > 0.1 and not any('near' in v for v in said)


def test_the_tool_spring_is_set_while_running_and_a_bad_one_refused(circle_run):
    run = circle_run
    assert run['active'], launch_said(run['text'])
    assert run['stiffer'].reached, run['stiffer']
    assert not run['five'].reached and 'cartesian.stiffness' in run['five'].reason, \
        run['five']
