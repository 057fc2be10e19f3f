"""Vendor-style descriptions (test/data/descriptions/vendor_arm.urdf.xacro): one argument
per failure class met in vendors' own packages. Every chain that loads is exact: DH FK
equals the URDF's within 1e-12 x the reach, M, g and ID equal Pinocchio's within 1e-12
relative; what cannot be represented is refused with one line."""

from pathlib import Path

import numpy as np
import pytest

from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.dynamics.verification.pinocchio_chain import PinocchioChain
from robodyn_ros.errors import InputError, ModelError, SimulationError
from robodyn_ros.model import load_urdf
from robodyn_ros.model.ros2_control_urdf import simulation_urdf

DATA = Path(__file__).resolve().parents[1] / 'data' / 'descriptions'
ARM = str(DATA / 'vendor_arm.urdf.xacro')
CALIBRATION = f'calibration:={DATA / "calibration.yaml"}'
PARALLEL = f'calibration:={DATA / "calibration_parallel.yaml"}'
#: SO-101's wrist: a pitch of 0.0487 rad and 1.5708 for pi/2 leave the axes 3e-7 m apart
NEARLY_INTERSECTING = ('rounded:=true', 'wrist_tilt:=0.0486795', 'wrist_offset:=0.0181')


def _load(*args, **kwargs):
    kwargs.setdefault('tip_link', 'tool0')
    return load_urdf(ARM, mappings=list(args), **kwargs)


def _exactness(model):
    """(FK error / reach, worst relative M, g, ID error vs Pinocchio) over 20 states."""
    table, pin, dyn = model.dh_table(), PinocchioChain(model), RigidBodyDynamics(model)
    reach = 1.0 + sum(np.linalg.norm(j.origin[:3, 3]) for j in model.joints)
    rng = np.random.default_rng(4)
    worst = np.zeros(4)
    for _ in range(20):
        q, qd, qdd = rng.uniform(-2.5, 2.5, (3, model.n))
        pm, _, pg = pin.terms(q, qd)
        m, _, g = dyn.terms(q, qd)
        tau = pin.rnea(q, qd, qdd)
        worst = np.maximum(worst, [
            np.abs(table.fk(q) - model.fk(q))[:3].max() / reach,
            np.abs(m - pm).max() / np.abs(pm).max(), np.abs(g - pg).max() / np.abs(pg).max(),
            np.abs(dyn.inverse_dynamics(q, qd, qdd) - tau).max() / np.abs(tau).max()])
    return worst


@pytest.mark.parametrize('args, hayati', [
    ((), []),
    (('rounded:=true',), ['shoulder_lift_joint']),  # Rx(3.1416) Ry(3.1416): 7e-6 rad off
    ((CALIBRATION,), ['shoulder_lift_joint']),  # the elbow tilted by 3e-4 rad
    ((PARALLEL,), ['shoulder_lift_joint', 'elbow_joint']),  # joints 2-4 nearly parallel
    (('rounded:=true', PARALLEL), ['shoulder_lift_joint', 'elbow_joint']),
    (NEARLY_INTERSECTING, ['shoulder_lift_joint']),
])
def test_nearly_parallel_axes_are_exact_with_hayati_rows(args, hayati):
    model = _load(*args)
    table = model.dh_table()
    assert [r.joint_name for r in table.rows if r.beta] == hayati
    assert max(abs(r.d) for r in table.rows) < 1.0  # no frame kilometres away
    assert table.fk_error <= 1e-12
    assert (_exactness(model) <= 1e-12).all()


def test_nearly_intersecting_axes_take_the_normal_from_the_cross_product():
    """The feet of the common normal of axes 3e-7 m apart carry 9 digits: a direction taken
    from them tilts x by 1e-10 rad; z_i x z_i+1 keeps every digit (both conventions)."""
    model = _load(*NEARLY_INTERSECTING)
    for convention in ('standard', 'modified'):
        if convention == 'modified':  # the rounded shoulder needs a Hayati row
            model = _load('wrist_tilt:=0.0486795', 'wrist_offset:=0.0181')
        assert model.dh_table(convention).fk_error <= 1e-12


def test_lerobot_so101_loads_exactly():
    """example-robot-data's SO-101 (rounded 1.5708, nearly intersecting wrist axes)."""
    from robodyn_ros.model.registry import example_robot_data_dir
    path = Path(example_robot_data_dir()) / 'so_arm_description' / 'urdf' / 'so101.urdf'
    model = load_urdf(str(path), tip_link='gripper_link')
    for convention in ('standard', 'modified'):
        assert model.dh_table(convention).fk_error <= 1e-12
    assert (_exactness(model) <= 1e-12).all()


def test_the_modified_convention_refuses_what_it_cannot_represent():
    with pytest.raises(InputError, match='cannot be represented exactly; the standard'):
        _load('rounded:=true').dh_table('modified')


def test_rep103_base_frame_beside_base_link_is_a_base():
    """UR's `base` is a fixed child of `base_link` (rotated by pi about z): accepted, and
    the chain is expressed in it."""
    model = _load('rounded:=true', base_link='base')
    reference = _load('rounded:=true')
    q = np.linspace(-1.0, 1.0, model.n)
    turn = np.diag([-1.0, -1.0, 1.0, 1.0])  # base_link seen from base: Rz(pi)
    assert model.base_link == 'base'
    np.testing.assert_allclose(model.fk(q), turn @ reference.fk(q), atol=1e-4)  # 3.1416
    assert (_exactness(model) <= 1e-12).all()


def test_an_inertia_violating_the_triangle_inequality_is_a_warning_or_refused_when_strict():
    model = _load('bad_inertia:=true')
    assert len(model.warnings) == 1
    assert "link 'forearm_link'" in model.warnings[0] and '8.3%' in model.warnings[0]
    assert (_exactness(model) <= 1e-12).all()  # used as given, as Pinocchio uses it
    with pytest.raises(ModelError, match='forearm_link.*strict'):
        _load('bad_inertia:=true', strict_inertia=True)
    from robodyn_ros.sim import MujocoSim
    sim = MujocoSim(model)
    assert any('balanced by MuJoCo' in note for note in sim.notes)


def test_heavy_damping_on_a_light_joint_is_simulated_stably_or_refused(tmp_path,
                                                                      monkeypatch):
    """10 N m s/rad on 3e-4 kg m^2 (a 30 us time constant) at 1 ms: implicitfast, said."""
    monkeypatch.chdir(tmp_path)  # MuJoCo writes its warning log (MUJOCO_LOG.TXT) to cwd
    from robodyn_ros.sim import MujocoSim
    model = _load('wrist_damping:=10.0')
    sim = MujocoSim(model, q0=model.mid_range)
    assert any('implicitfast' in note and 'wrist_3_joint' in note for note in sim.notes)
    sim.set_command(np.full(model.n, 1.0))
    for _ in range(2000):
        sim.step()
    assert np.all(np.isfinite(sim.state()[1])) and np.abs(sim.state()[1]).max() < 50.0
    rk4 = MujocoSim(model, q0=model.mid_range)
    rk4.mj_model.opt.integrator = rk4.mujoco.mjtIntegrator.mjINT_RK4  # what diverged
    rk4.set_command(np.full(model.n, 1.0))
    with pytest.raises(SimulationError, match='diverged'):
        for _ in range(2000):
            rk4.step()


def test_off_chain_mimic_fingers_are_locked_in_the_simulation_description(tmp_path):
    model = _load()
    assert set(model.locked) == {'left_finger_joint', 'right_finger_joint'}
    xml, notes = simulation_urdf(ARM, model, tmp_path / 'c.yaml')
    assert any("off-chain joints ['left_finger_joint', 'right_finger_joint'] locked" in n
               for n in notes)
    assert '<mimic' not in xml and 'type="prismatic"' not in xml


def test_a_locked_joint_named_like_a_link_is_checked_against_pinocchio(tmp_path):
    """LeRobot's SO-100 names a joint and a link 'gripper'; Pinocchio's reduction would
    find two frames by that name."""
    path = tmp_path / 'clash.urdf'
    inertial = ('<inertial><mass value="1"/><origin xyz="0.1 0 0"/><inertia ixx="0.01" '
                'iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>')
    path.write_text(
        f'<robot name="c"><link name="base"/><link name="arm">{inertial}</link>'
        f'<link name="gripper">{inertial}</link><link name="jaw">{inertial}</link>'
        '<joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/>'
        '<axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="10" velocity="1"/></joint>'
        '<joint name="wrist" type="revolute"><parent link="arm"/><child link="gripper"/>'
        '<origin xyz="0.2 0 0"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="10" '
        'velocity="1"/></joint><joint name="gripper" type="revolute"><parent '
        'link="gripper"/><child link="jaw"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" '
        'effort="10" velocity="1"/></joint></robot>')
    model = load_urdf(str(path), tip_link='gripper')
    assert model.locked == {'gripper': 0.0}
    assert (_exactness(model) <= 1e-12).all()
