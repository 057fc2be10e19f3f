"""The other launch files refuse what no run can be made of before anything starts: one
line naming the argument, a non-zero exit (ros2_control.launch.py's own cases:
test_gazebo_launch.py)."""

import os
import subprocess

import pytest
from test_ros2_control_launch import ROS2

pytestmark = pytest.mark.integration

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.mark.parametrize('launch_file, args, says', [
    ('sim.launch.py', ('config:=/nonexistent/robodyn.yaml',),
     "robodyn sim: error: config:='/nonexistent/robodyn.yaml' is not a file"),
    ('sim.launch.py', (f'bag_path:={HERE}',), 'robodyn sim: error: bag_path:='),
    ('controller.launch.py', ('config:=/nonexistent/robodyn.yaml',),
     'robodyn controller: error: config:='),
    ('controller.launch.py', ('include_gravity:=maybe',),
     "robodyn controller: error: include_gravity:='maybe'; valid: true, false"),
    ('record.launch.py', (f'bag_path:={HERE}',), 'robodyn record: error: bag_path:='),
    ('record.launch.py', ('nice:=-5',), "robodyn record: error: nice:='-5'; valid: an "
     'integer 0 to 19'),
])
def test_a_wrong_argument_stops_the_launch_with_one_line(ros_launch_env, launch_file, args,
                                                         says):
    env = dict(ros_launch_env, ROS_DOMAIN_ID='90')
    try:
        done = subprocess.run([ROS2, 'launch', 'robodyn_ros', launch_file, *args], env=env,
                              capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f'the launch ran on: {exc.output}')
    text = done.stdout + done.stderr
    assert done.returncode != 0 and says in text, text[-2000:]
    assert 'process started' not in text, text[-2000:]
