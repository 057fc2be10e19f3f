"""nodes/dds_transport.py: which transport a process gets, and that the profile is what
rmw_fastrtps builds for LOCALHOST without shared memory. (That a joining participant no
longer pauses the commands: test/launch/test_joining_participants.py.)"""

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from robodyn_ros.nodes.dds_transport import (
    LOOPBACK_PROFILE,
    OPT_IN,
    apply_transport,
    transport_environment,
)

NS = {'d': 'http://www.eprosima.com'}


def test_localhost_gets_the_loopback_profile_instead_of_rmws_own_transports():
    changes, line = transport_environment({'ROS_AUTOMATIC_DISCOVERY_RANGE': 'LOCALHOST',
                                           OPT_IN: 'udp'})
    # rmw_fastrtps replaces the transports itself for LOCALHOST (shared memory included):
    # only a range it leaves to Fast DDS's profile takes ours
    assert changes == {'ROS_AUTOMATIC_DISCOVERY_RANGE': 'SYSTEM_DEFAULT',
                       'FASTDDS_DEFAULT_PROFILES_FILE': LOOPBACK_PROFILE}
    assert 'no shared memory' in line


@pytest.mark.parametrize('scope', ['', 'SUBNET', 'SYSTEM_DEFAULT'])
def test_other_ranges_keep_theirs_with_udp_only(scope):
    changes, _ = transport_environment({'ROS_AUTOMATIC_DISCOVERY_RANGE': scope, OPT_IN: 'udp'})
    assert changes == {'FASTDDS_BUILTIN_TRANSPORTS': 'UDPv4'}


@pytest.mark.parametrize('environ', [
    {'ROS_AUTOMATIC_DISCOVERY_RANGE': 'LOCALHOST'},  # not asked: Fast DDS's default
    {OPT_IN: 'udp', 'FASTDDS_DEFAULT_PROFILES_FILE': '/etc/mine.xml'},
    {OPT_IN: 'udp', 'FASTDDS_BUILTIN_TRANSPORTS': 'LARGE_DATA'},
    {OPT_IN: 'udp', 'RMW_IMPLEMENTATION': 'rmw_cyclonedds_cpp'},
    {OPT_IN: 'udp', 'ROS_AUTOMATIC_DISCOVERY_RANGE': 'OFF'},
])
def test_a_users_choice_or_another_middleware_is_left_alone(environ):
    changes, line = transport_environment(environ)
    assert changes == {}
    assert line.startswith('DDS transport: ')


def test_applying_twice_changes_nothing_the_second_time():
    environ = {'ROS_AUTOMATIC_DISCOVERY_RANGE': 'LOCALHOST', OPT_IN: 'udp'}
    first = apply_transport(environ)
    again = dict(environ)
    assert apply_transport(environ) == first  # a launch file set it, then the node's main
    assert environ == again


def test_the_profile_is_loopback_only_without_shared_memory():
    root = ET.parse(LOOPBACK_PROFILE).getroot()
    descriptors = root.findall('.//d:transport_descriptor', NS)
    assert [d.findtext('d:type', namespaces=NS) for d in descriptors] == ['UDPv4']
    assert [a.text for a in root.findall('.//d:interfaceWhiteList/d:address', NS)] == \
        ['127.0.0.1']
    participant = root.find('.//d:participant', NS)
    assert participant.get('is_default_profile') == 'true'
    assert participant.findtext('.//d:useBuiltinTransports', namespaces=NS) == 'false'
    for where in ('metatrafficUnicastLocatorList', 'initialPeersList'):
        assert [a.text for a in participant.findall(f'.//d:{where}//d:address', NS)] == \
            ['127.0.0.1']
    assert participant.find('.//d:metatrafficMulticastLocatorList', NS) is None


def test_fast_dds_loads_the_profile_and_two_processes_talk_over_it(tmp_path):
    """A participant on the profile finds one on rmw's LOCALHOST transports and gets its
    messages (what a user's `ros2 topic echo` and the node do)."""
    pytest.importorskip('rclpy')
    env = dict(os.environ, ROS_DOMAIN_ID='115', ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST')
    talker = dict(env, ROS_AUTOMATIC_DISCOVERY_RANGE='SYSTEM_DEFAULT',
                  FASTDDS_DEFAULT_PROFILES_FILE=LOOPBACK_PROFILE)
    code = ('import sys, time, rclpy\nfrom std_msgs.msg import String\nrclpy.init()\n'
            'n = rclpy.create_node("t")\np = n.create_publisher(String, "dds_check", 10)\n'
            'got = []\nif sys.argv[1] == "listen":\n'
            '    n.create_subscription(String, "dds_check", got.append, 10)\n'
            'end = time.monotonic() + 30\n'
            'while time.monotonic() < end and not got:\n'
            '    if sys.argv[1] == "talk": p.publish(String(data="x"))\n'
            '    rclpy.spin_once(n, timeout_sec=0.05)\n'
            'print("got" if got else "none")\n')
    talk = subprocess.Popen([sys.executable, '-c', code, 'talk'], env=talker,
                            stdout=subprocess.DEVNULL)
    try:
        out = subprocess.run([sys.executable, '-c', code, 'listen'], env=env,
                             capture_output=True, text=True, timeout=60).stdout
    finally:
        talk.kill()  # only the process started here
        talk.wait()
    assert out.strip() == 'got'
