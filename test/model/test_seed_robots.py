"""The bundled seed-robot URDFs (urdf/*.urdf) are what seed_robots generates from the
seeds' DH and inertial values (``robodyn docs`` writes them)."""

import os

import numpy as np
import pytest

from robodyn_ros.model import load_urdf
from robodyn_ros.model.seed_robots import RP_ARM, seed_urdfs

URDF_DIR = os.path.join(os.path.dirname(__file__), '..', '..', 'urdf')


@pytest.mark.parametrize('name', sorted(seed_urdfs()))
def test_bundled_urdf_is_the_generated_one(name):
    with open(os.path.join(URDF_DIR, name), encoding='utf-8') as handle:
        assert handle.read() == seed_urdfs()[name], 'run robodyn docs'


def test_limits_reach_the_urdf():
    model = load_urdf(seed_urdfs()['rp_arm.urdf'])
    np.testing.assert_allclose([model.lower[1], model.upper[1]],
                               [RP_ARM['d2_min'], RP_ARM['d2_max']])
    assert model.effort_limits.tolist() == [100.0, 200.0] and model.joints[1].prismatic
