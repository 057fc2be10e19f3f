"""/diagnostics' words on the tip, the same on both paths: the C++ controller's
manipulability text and the pose follower's slowed text (robodyn_controllers'
task_space.hpp and pose_follower.hpp, through the C entry point) against the node's
(control/core_report.py, control/reference/pose_target.py), at a well-conditioned J, one
near a singularity and none."""

import ctypes

import numpy as np
import pytest
from test_dh_dynamics_cpp import _D

from robodyn_ros.control import core_report
from robodyn_ros.control.reference.pose_target import SIGMA_SLOW, SLOWED

pytestmark = pytest.mark.integration  # needs the colcon-built C++ package


class _Frame:
    """What core_report reads of a task-space law's tip frame: tip.jac."""

    def __init__(self, jac):
        self.tip = type('Tip', (), {'jac': jac})()


def _cpp_text(lib, jac) -> str:
    text = ctypes.create_string_buffer(256)
    n = 7 if jac is None else jac.shape[1]
    data = None if jac is None else np.ascontiguousarray(jac).ctypes.data_as(_D)
    lib.robodyn_manipulability_text(data, ctypes.c_int(n), text, ctypes.c_int(256))
    return text.value.decode()


def _jacobians():
    rng = np.random.default_rng(3)
    well = rng.normal(0.0, 0.5, (6, 7))
    u, sigma, vt = np.linalg.svd(well, full_matrices=False)
    sigma[-1] = 0.5 * SIGMA_SLOW  # one direction nearly lost
    near = (u * sigma) @ vt
    return {'well': well, 'near': near, 'none': None}


@pytest.mark.parametrize('case', ['well', 'near', 'none'])
def test_the_manipulability_text_is_the_same_on_both_paths(plugin_library, case):
    lib = ctypes.CDLL(str(plugin_library))
    jac = _jacobians()[case]
    want = core_report._manipulability(None if jac is None else _Frame(jac))
    assert _cpp_text(lib, jac) == want
    assert ('near a singularity' in want) == (case == 'near'), want


def test_the_slowed_text_is_the_same_on_both_paths(plugin_library):
    lib = ctypes.CDLL(str(plugin_library))
    lib.robodyn_slowed_text.restype = ctypes.c_char_p
    assert lib.robodyn_slowed_text().decode() == SLOWED
