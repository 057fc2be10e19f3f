"""dynamics/payload_regressor.py: the payload's Slotine-Li regressor is the seeds' M a +
C(q, qd) v + g of the payload, compiled and plain alike. (The standard regressor against
Pinocchio's: test/identification/test_regressor.py.)"""

import numpy as np

from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.dynamics.payload_regressor import PayloadRegressor, with_payload
from robodyn_ros.model import load_robot

MODEL = load_robot('panda', tip_link='panda_hand')
REG = PayloadRegressor(MODEL)
RNG = np.random.default_rng(3)
Q, QD, V, A = (RNG.normal(size=7) for _ in range(4))
#: 1.5 kg at (0.05, 0, 0.05) m, inertia about the tip origin of a 0.1 m cube there
PI = np.array([1.5, 0.075, 0.0, 0.075, 0.00625, 0.0, -0.00375, 0.01, 0.0, 0.00625])


def _terms(dyn):
    """M(q) a + C(q, qd) v + g(q) with the seeds' Christoffel C (coriolis_matrix)."""
    return dyn.mass_matrix(Q) @ A + dyn.coriolis_matrix(Q, QD) @ V + dyn.gravity_vector(Q)


def test_the_slotine_li_regressor_is_the_payloads_m_a_plus_c_v_plus_g():
    zero = np.zeros(7)
    carrying = RigidBodyDynamics(with_payload(MODEL, PI), viscous=zero, coulomb=zero)
    bare = RigidBodyDynamics(MODEL, viscous=zero, coulomb=zero)
    want = _terms(carrying) - _terms(bare)
    got = REG.slotine_li(Q, QD, V, A) @ PI
    assert np.abs(want).max() > 1.0  # the payload matters here
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_with_v_equal_to_qd_it_is_the_standard_regressor():
    np.testing.assert_allclose(REG.slotine_li(Q, QD, QD, A), REG.payload(Q, QD, A),
                               rtol=0, atol=1e-12)


def test_the_compiled_columns_equal_the_plain_ones():
    compiled = REG.slotine_li(Q, QD, V, A).copy()
    plain = PayloadRegressor(MODEL)
    plain._params = None  # the plain path: 33 inverse dynamics calls
    np.testing.assert_allclose(plain.slotine_li(Q, QD, V, A), compiled, rtol=0, atol=1e-12)
