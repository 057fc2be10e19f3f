import numpy as np
import pytest

from robodyn_ros.control.laws import MODES, ControlLaw, LawConfig
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.errors import InputError
from robodyn_ros.model import load_urdf
from robodyn_ros.model.registry import PANDA_HOME, robot_path

DYN = RigidBodyDynamics(load_urdf(robot_path('panda')[0], tip_link='panda_hand'))
RNG = np.random.default_rng(5)
Q, QD = np.array(PANDA_HOME) + 0.01, 0.3 * RNG.standard_normal(7)
Q_R, QD_R, QDD_R = Q + 0.002, QD + 0.01, 2.0 * RNG.standard_normal(7)


def _law(mode, lag):
    return ControlLaw(DYN, LawConfig(mode, np.full(7, 400.0), np.full(7, 40.0),
                                     feedforward_pd=True, velocity_lag=lag))


@pytest.mark.parametrize('mode', MODES)
def test_the_velocity_lag_compares_the_velocity_with_the_reference_of_its_instant(mode):
    """Wherever a law compares a velocity with the measured one it sees qd_r - lag qdd_r,
    the reference velocity lag [s] earlier; the terms of the reference's own motion
    (feedforward's model on the reference) keep qd_r."""
    lag = 0.0005
    lagged = _law(mode, lag)(Q, QD, Q_R, QD_R, QDD_R)
    shifted = _law(mode, 0.0)(Q, QD, Q_R, QD_R - lag * QDD_R, QDD_R)
    if mode == 'feedforward':  # only its PD compares velocities
        plain = _law(mode, 0.0)(Q, QD, Q_R, QD_R, QDD_R)
        np.testing.assert_allclose(lagged - plain, -40.0 * lag * QDD_R, rtol=1e-9, atol=1e-12)
    else:
        np.testing.assert_allclose(lagged, shifted, rtol=1e-12, atol=1e-12)
    if mode in ('computed_torque', 'gravity', 'joint_impedance'):
        kd_term = -40.0 * lag * QDD_R
        if mode == 'computed_torque':  # the PD acts through M(q)
            kd_term = DYN.mass_matrix(Q) @ kd_term
        plain = _law(mode, 0.0)(Q, QD, Q_R, QD_R, QDD_R)
        np.testing.assert_allclose(lagged - plain, kd_term, rtol=1e-9, atol=1e-9)
    assert np.abs(lagged - _law(mode, 0.0)(Q, QD, Q_R, QD_R, QDD_R)).max() > 1e-4


@pytest.mark.parametrize('lag', [-1e-4, 0.02, float('nan')])
def test_a_velocity_lag_outside_0_to_10_ms_is_refused(lag):
    with pytest.raises(InputError, match='velocity_lag'):
        _law('computed_torque', lag)


def test_every_mode_is_one_registered_law_and_every_options_list_reads_the_registry():
    from robodyn_ros.cli import build_parser
    from robodyn_ros.control.laws import LAWS
    from robodyn_ros.control.parameters import PARAMETERS
    assert MODES == tuple(LAWS) and all(LAWS[m].name == m for m in MODES)
    assert tuple(PARAMETERS['mode'].options) == MODES
    demo = build_parser()._subparsers._group_actions[0].choices['demo']
    mode = next(a for a in demo._actions if a.dest == 'mode')
    assert tuple(mode.choices) == MODES + ('jtc_feedforward',)


def test_coriolis_times_a_vector_is_the_seeds_coriolis_matrix_times_it():
    """The passivity law's C(q, qd) v (two recursions, polarised) against the explicit
    matrix of seed 000 eq. 52, whose Mdot - 2C is skew-symmetric."""
    from robodyn_ros.control.laws.passivity import coriolis_times
    v = RNG.standard_normal(7)
    c = DYN.coriolis_matrix(Q, QD)
    np.testing.assert_allclose(coriolis_times(DYN, Q, QD, v), c @ v, rtol=1e-11,
                               atol=1e-11 * np.abs(c @ v).max())
    skew = DYN.mass_matrix_dot(Q, QD) - 2.0 * c
    np.testing.assert_allclose(skew, -skew.T, atol=1e-11 * np.abs(c).max())


def test_passivity_is_its_equation_and_reduces_to_computed_torque_terms_on_the_reference():
    lam, kd = np.full(7, 20.0), np.full(7, 15.0)
    law = ControlLaw(DYN, LawConfig('passivity', lam, kd, include_friction=False))
    e = Q_R - Q
    qd_a, qdd_a = QD_R + lam * e, QDD_R + lam * (QD_R - QD)
    expected = DYN.mass_matrix(Q) @ qdd_a + DYN.coriolis_matrix(Q, QD) @ qd_a + \
        DYN.gravity_vector(Q) + kd * (qd_a - QD)
    np.testing.assert_allclose(law(Q, QD, Q_R, QD_R, QDD_R), expected, rtol=1e-10,
                               atol=1e-10 * np.abs(expected).max())
    # on the reference the law is the model's torque along it
    np.testing.assert_allclose(law(Q_R, QD_R, Q_R, QD_R, QDD_R),
                               DYN.inverse_dynamics(Q_R, QD_R, QDD_R), rtol=1e-10, atol=1e-9)


@pytest.mark.parametrize('inertia', [True, False])
def test_joint_impedance_is_a_spring_and_damper_on_the_cancelled_dynamics(inertia):
    k, d = np.full(7, 400.0), np.full(7, 12.0)
    law = ControlLaw(DYN, LawConfig('joint_impedance', k, d, include_friction=False,
                                    inertia_feedforward=inertia))
    expected = k * (Q_R - Q) + d * (QD_R - QD) + DYN.coriolis_matrix(Q, QD) @ QD + \
        DYN.gravity_vector(Q) + (DYN.mass_matrix(Q) @ QDD_R if inertia else 0.0)
    np.testing.assert_allclose(law(Q, QD, Q_R, QD_R, QDD_R), expected, rtol=1e-10,
                               atol=1e-10 * np.abs(expected).max())


@pytest.mark.parametrize('mode, follows', [('computed_torque', True), ('gravity', False),
                                           ('joint_impedance', True), ('passivity', True)])
def test_the_tracking_guard_applies_to_the_laws_that_pull_to_the_reference(mode, follows):
    assert _law(mode, 0.0).follows_reference is follows
    feedforward = ControlLaw(DYN, LawConfig('feedforward', np.zeros(7), np.zeros(7)))
    assert not feedforward.follows_reference


def test_a_state_of_the_wrong_length_is_refused_not_computed():
    """The compiled kernel would read a short array as if it were whole: the checked
    path names it."""
    with pytest.raises(InputError):
        _law('computed_torque', 0.0)(Q[:6], QD, Q_R, QD_R, QDD_R)
