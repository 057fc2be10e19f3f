"""The vendors' corpus tool without the vendors' repositories: names checked, every robot
a 'skipped' row, the environment restored."""

import os

import pytest

from robodyn_ros.dynamics.verification.vendor_corpus import PACKAGES, ROBOTS, vendor_table
from robodyn_ros.errors import InputError


def test_an_unknown_repository_is_refused_naming_the_valid_ones():
    with pytest.raises(InputError, match="no vendor repository 'nope'; valid: xarm_ros2"):
        list(vendor_table({'nope': '/tmp'}))


def test_without_mirrors_every_robot_is_skipped_and_the_prefix_restored(monkeypatch):
    monkeypatch.setenv('AMENT_PREFIX_PATH', '/before')
    rows = list(vendor_table({}))
    assert len(rows) == len(ROBOTS)
    assert all('skipped: no --mirror' in row for row in rows)
    assert {repo for _, repo, *_ in ROBOTS} <= set(PACKAGES)
    assert os.environ['AMENT_PREFIX_PATH'] == '/before'
