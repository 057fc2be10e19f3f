"""The C++ controller's dynamics (robodyn_controllers, librobodyn_dynamics.so) on the rows
`robodyn export` writes, against robodyn_ros' own recursive Newton-Euler and Pinocchio:
the same states, the same torques (1e-12 relative)."""

import ctypes
from pathlib import Path

import numpy as np
import pytest

from robodyn_ros.control.controller_config import ControllerConfig
from robodyn_ros.control.controller_dynamics import controller_dynamics
from robodyn_ros.control.plugin_parameters import plugin_parameters, row_table
from robodyn_ros.dynamics.verification.pinocchio_chain import PinocchioChain
from robodyn_ros.model import load_robot
from robodyn_ros.model.robot_model import load_urdf

pytestmark = pytest.mark.integration  # needs the colcon-built C++ package

ROBOTS = ('three_link', 'two_link', 'rp_arm', 'panda', 'ur5', 'kinova', 'z1', 'xarm7')
DATA = Path(__file__).resolve().parents[1] / 'data' / 'descriptions'
#: The vendor-style corpus (test/data/descriptions): offsets, a UR-style calibration, a
#: nearly parallel pair (Hayati's beta), SO-101's nearly intersecting wrist, FR-style.
CORPUS = (('vendor_arm.urdf.xacro', (), 'tool0'),
          ('vendor_arm.urdf.xacro', (f'calibration:={DATA / "calibration.yaml"}',), 'tool0'),
          ('vendor_arm.urdf.xacro', (f'calibration:={DATA / "calibration_parallel.yaml"}',),
           'tool0'),
          ('vendor_arm.urdf.xacro', ('rounded:=true', 'wrist_tilt:=0.0486795',
                                     'wrist_offset:=0.0181'), 'tool0'),
          ('fr_style.urdf', (), None), ('ur_style.urdf', (), None))
RELATIVE = 1e-12
_D = ctypes.POINTER(ctypes.c_double)


def cpp_inverse_dynamics(library, values, q, qd, qdd, friction=False):
    """tau (count, n) from the C++ DhDynamics on the exported ``values``."""
    lib = ctypes.CDLL(str(library))
    rows = row_table(values)
    n, count = rows.shape[0], q.shape[0]
    q, qd, qdd = (np.ascontiguousarray(a, dtype=float) for a in (q, qd, qdd))
    gravity = np.ascontiguousarray(values['gravity'], dtype=float)
    tau = np.zeros((count, n))
    code = lib.robodyn_inverse_dynamics(
        ctypes.c_int(n), rows.ctypes.data_as(_D), gravity.ctypes.data_as(_D),
        ctypes.c_int(count), q.ctypes.data_as(_D), qd.ctypes.data_as(_D),
        qdd.ctypes.data_as(_D), ctypes.c_int(int(friction)), tau.ctypes.data_as(_D))
    assert code == 0, 'the C++ dynamics refused the exported rows'
    return tau


def _states(model, count=50, seed=3):
    rng = np.random.default_rng(seed)
    lower = np.where(np.isfinite(model.lower), model.lower, -np.pi)
    upper = np.where(np.isfinite(model.upper), model.upper, np.pi)
    q = rng.uniform(lower, upper, (count, model.n))
    return q, rng.normal(0, 1.5, (count, model.n)), rng.normal(0, 5.0, (count, model.n))


def _assert_close(name, got, want):
    scale = max(1.0, float(np.max(np.abs(want))))
    worst = float(np.max(np.abs(got - want))) / scale
    assert worst <= RELATIVE, f'{name}: C++ differs by {worst:.3g} relative'


def _compare(library, model):
    config = ControllerConfig.from_parameters({'include_friction': True})
    values = plugin_parameters(model, config)
    q, qd, qdd = _states(model)
    dyn, _ = controller_dynamics(model, config)  # the node's, friction smoothing included
    pin = PinocchioChain(model)
    python = np.array([dyn.inverse_dynamics(*s) for s in zip(q, qd, qdd)])
    pinocchio = np.array([pin.rnea(*s) for s in zip(q, qd, qdd)])
    cpp = cpp_inverse_dynamics(library, values, q, qd, qdd)
    _assert_close(f'{model.name} vs robodyn_ros', cpp, python)
    _assert_close(f'{model.name} vs Pinocchio', cpp, pinocchio)
    with_friction = cpp_inverse_dynamics(library, values, q, qd, qdd, friction=True)
    friction = np.array([dyn.friction_torque(v) for v in qd])
    _assert_close(f'{model.name} friction', with_friction, python + friction)


@pytest.mark.parametrize('robot', ROBOTS)
def test_cpp_torques_equal_python_and_pinocchio_on_bundled_robots(plugin_library, robot):
    _compare(plugin_library, load_robot(robot, require_effort_limits=False))


@pytest.mark.parametrize('name, args, tip', CORPUS)
def test_cpp_torques_equal_python_and_pinocchio_on_the_vendor_corpus(plugin_library, name,
                                                                     args, tip):
    _compare(plugin_library, load_urdf(str(DATA / name), tip_link=tip, mappings=list(args),
                                       require_effort_limits=False))


def test_the_cpp_dynamics_refuses_a_negative_mass(plugin_library):
    model = load_robot('three_link')
    values = plugin_parameters(model, ControllerConfig.from_parameters({}))
    values['model'][model.joint_names[0]]['mass'] = -1.0
    q = np.zeros((1, model.n))
    with pytest.raises(AssertionError, match='refused'):
        cpp_inverse_dynamics(plugin_library, values, q, q, q)


def _compare_mass(library, model):
    values = plugin_parameters(model, ControllerConfig.from_parameters({}))
    lib = ctypes.CDLL(str(library))
    rows = row_table(values)
    q = np.ascontiguousarray(_states(model, count=30)[0])
    mass = np.zeros((len(q), model.n, model.n))
    code = lib.robodyn_mass_matrix(ctypes.c_int(model.n), rows.ctypes.data_as(_D),
                                   ctypes.c_int(len(q)), q.ctypes.data_as(_D),
                                   mass.ctypes.data_as(_D))
    assert code == 0
    dyn, _ = controller_dynamics(model, ControllerConfig.from_parameters({}))
    pin = PinocchioChain(model)
    _assert_close(f'{model.name} M vs robodyn_ros', mass,
                  np.array([dyn.mass_matrix(v) for v in q]))
    _assert_close(f'{model.name} M vs Pinocchio', mass, np.array([pin.terms(v, 0 * v)[0]
                                                                   for v in q]))
    assert np.array_equal(mass, np.swapaxes(mass, 1, 2))


@pytest.mark.parametrize('robot', ROBOTS)
def test_cpp_mass_matrix_equals_python_and_pinocchio_on_bundled_robots(plugin_library, robot):
    """DhDynamics::mass_matrix (composite rigid bodies in frame 0) is seed 000's M."""
    _compare_mass(plugin_library, load_robot(robot, require_effort_limits=False))


@pytest.mark.parametrize('name, args, tip', CORPUS)
def test_cpp_mass_matrix_equals_python_and_pinocchio_on_the_vendor_corpus(plugin_library,
                                                                          name, args, tip):
    _compare_mass(plugin_library, load_urdf(str(DATA / name), tip_link=tip,
                                            mappings=list(args), require_effort_limits=False))
