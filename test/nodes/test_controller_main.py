"""The controller process's Fast DDS discovery profile (nodes/controller_main.py): set only
when the middleware is Fast DDS and the user has no profiles file of their own, and the
file it names sets the initial announcements and nothing else."""

import os
import xml.etree.ElementTree as ET

import pytest

from robodyn_ros.nodes import controller_main

VARIABLES = controller_main.PROFILE_VARIABLES


@pytest.fixture
def clean_env(monkeypatch):
    for name in (*VARIABLES, 'RMW_IMPLEMENTATION'):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_the_profile_is_set_for_fast_dds_without_a_user_profile(clean_env):
    controller_main._discovery_profile()
    path = os.environ[VARIABLES[0]]
    assert os.path.isfile(path) and path.endswith('fast_dds_discovery.xml')
    names = {element.tag.split('}')[-1] for element in ET.parse(path).iter()}
    # the participant's initial announcements only: no transport, QoS or history setting
    assert names == {'dds', 'profiles', 'participant', 'rtps', 'builtin', 'discovery_config',
                     'initialAnnouncements', 'count', 'period', 'sec', 'nanosec'}
    count = ET.parse(path).find('.//{*}initialAnnouncements/{*}count')
    assert count is not None and int(count.text or 0) == 30


@pytest.mark.parametrize('variable', VARIABLES)
def test_a_user_profile_wins(clean_env, variable):
    clean_env.setenv(variable, '/somewhere/mine.xml')
    controller_main._discovery_profile()
    assert os.environ[variable] == '/somewhere/mine.xml'
    assert all(os.environ.get(name) in (None, '/somewhere/mine.xml') for name in VARIABLES)


def test_another_middleware_gets_no_fast_dds_profile(clean_env):
    clean_env.setenv('RMW_IMPLEMENTATION', 'rmw_cyclonedds_cpp')
    controller_main._discovery_profile()
    assert not any(os.environ.get(name) for name in VARIABLES)
