"""The node's parameter declarations and ControllerConfig's fields cannot drift apart: each
parameter the config holds has the same default in both, and every config field that is
a parameter is declared."""

from dataclasses import fields

import numpy as np
import pytest

from robodyn_ros.control.controller_config import ControllerConfig

controller_parameters = pytest.importorskip(
    'robodyn_ros.control.parameters', reason='rclpy (ROS 2 wheels) not installed')


def _same(a, b):
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object)) or \
            (len(a) == 0 and len(b) == 0)
    return a == b


def test_every_shared_parameter_has_one_default():
    config = ControllerConfig()
    declared = controller_parameters.PARAMETERS
    shared = [f.name for f in fields(ControllerConfig) if f.name in declared]
    assert len(shared) >= 30  # the config is built from the declarations
    differ = {name: (declared[name][0], getattr(config, name)) for name in shared
              if not _same(declared[name][0], getattr(config, name))}
    assert differ == {}
