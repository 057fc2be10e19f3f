"""The momentum observer against a simulated arm with a known external wrench."""

from contact_sim import PUSH, simulate
from model_helpers import load_robot
import numpy as np
import pytest

from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.dynamics.contact_wrench import tool_jacobian, tool_wrench
from robodyn_ros.dynamics.momentum_observer import MomentumObserver, ObserverSettings
from robodyn_ros.errors import InputError


@pytest.fixture(scope='module')
def panda():
    model = load_robot('panda')
    return model, RigidBodyDynamics(model, viscous=np.full(7, 0.5),
                                    coulomb=np.full(7, 0.2), friction_smoothing=0.05)


@pytest.fixture(scope='module')
def run(panda):
    model, dyn = panda
    obs = MomentumObserver(dyn, ObserverSettings(gain=50.0))
    rows = [(t, q, obs.update(t, q, qd, tau).copy(), ext)
            for t, q, qd, tau, ext in simulate(model, dyn, 1.6)]
    return rows


def test_without_contact_the_residual_stays_near_zero(run):
    free = [np.max(np.abs(r)) for t, _, r, _ in run if t < 0.5 or t > 1.2]
    assert max(free) < 2e-3, max(free)  # [N m]: the discretisation's error on a 1 ms step


def test_the_residual_tracks_a_push_at_the_tool_as_a_first_order_filter(run):
    peak = max(np.max(np.abs(ext)) for *_, ext in run)
    assert peak > 5.0  # the push is felt by the joints
    settled = [(r, ext) for t, _, r, ext in run if 0.5 + 3 / 50.0 <= t < 1.0]
    worst = max(np.max(np.abs(r - ext)) for r, ext in settled)
    assert worst < 0.05 * peak, (worst, peak)
    # one time constant after the onset: 1 - 1/e of the step, within 3 %
    t1 = min(run, key=lambda row: abs(row[0] - (0.5 + 1 / 50.0)))
    ratio = t1[2] @ t1[3] / (t1[3] @ t1[3])
    assert abs(ratio - (1 - np.exp(-1))) < 0.03, ratio


def test_the_tool_wrench_is_recovered_within_ten_percent(panda, run):
    model, _ = panda
    t, q, r, _ = min(run, key=lambda row: abs(row[0] - 0.95))
    estimate = tool_wrench(model, q, r)
    assert np.linalg.norm(estimate.wrench - PUSH) < 0.1 * np.linalg.norm(PUSH), estimate
    assert 1.0 <= estimate.condition < 1e3


def test_the_jacobian_is_the_derivative_of_the_tool_position(panda):
    model, _ = panda
    q = model.mid_range + 0.3
    jac = tool_jacobian(model, q)
    h = 1e-6
    for j in range(7):
        dq = np.zeros(7)
        dq[j] = h
        fd = (model.fk(q + dq)[:3, 3] - model.fk(q - dq)[:3, 3]) / (2 * h)
        np.testing.assert_allclose(jac[:3, j], fd, atol=1e-8)


def test_a_gap_holds_the_residual_and_is_counted(panda):
    model, dyn = panda
    obs = MomentumObserver(dyn, ObserverSettings(gain=50.0, max_step=0.005))
    rows = list(simulate(model, dyn, 0.7))
    for t, q, qd, tau, ext in rows[:600]:
        obs.update(t, q, qd, tau)
    held = obs.residual
    t, q, qd, tau, _ = rows[650]  # 50 ms later: a gap
    np.testing.assert_array_equal(obs.update(t, q, qd, tau), held)
    assert obs.gaps == 1
    t2, q2, qd2, tau2, _ = rows[651]  # the sample after a gap: held too (module docstring)
    np.testing.assert_array_equal(obs.update(t2, q2, qd2, tau2), held)
    t3, q3, qd3, tau3, _ = rows[652]
    assert not np.array_equal(obs.update(t3, q3, qd3, tau3), held)  # integrating again
    assert obs.gaps == 1


def test_a_state_stamped_late_is_no_external_torque(panda):
    """The C++ controller's case: a loop that stalls 50 ms between the hardware's read()
    and the controller's update() stamps the state with the stall's end; the next state,
    one period later by the stamps, holds the 50 ms of motion. Without contact the
    residual stays where the discretisation keeps it."""
    model, dyn = panda
    obs = MomentumObserver(dyn, ObserverSettings(gain=50.0, max_step=0.005))
    rows = list(simulate(model, dyn, 0.4))  # the push starts at 0.5 s
    worst = 0.0
    for k, (t, q, qd, tau, ext) in enumerate(rows[:350]):
        if 200 < k < 251:
            continue  # the stall: no state taken
        stamp = t + 0.05 if k == 200 else t  # sampled at t, stamped after the stall
        assert not ext.any()
        worst = max(worst, float(np.max(np.abs(obs.update(stamp, q, qd, tau)))))
    assert obs.gaps == 1
    assert worst < 2e-3, worst  # [N m], as without a stall


def test_a_driver_repeating_its_reading_is_no_external_torque(panda):
    """A frozen stream (the last state repeated bit for bit while the arm moves: the
    hardware's injected 'frozen' fault, a driver that stopped reading its encoders) is no
    new measurement: skipped, counted, never read as an external torque; an arm at rest
    repeating itself with zero velocity is observed as always."""
    model, dyn = panda
    obs = MomentumObserver(dyn, ObserverSettings(gain=50.0, max_step=0.005))
    rows = list(simulate(model, dyn, 0.4))  # the push starts at 0.5 s
    worst = 0.0
    for k, (t, q, qd, tau, ext) in enumerate(rows[:350]):
        if 200 < k <= 260:
            q, qd = rows[200][1], rows[200][2]  # frozen for 60 ms; the commands go on
        assert not ext.any() and np.abs(rows[200][2]).max() > 0.01  # moving
        worst = max(worst, float(np.max(np.abs(obs.update(t, q, qd, tau)))))
    assert worst < 2e-3, worst  # [N m], as without the freeze
    assert obs.repeats == 60 and obs.gaps == 1
    still = MomentumObserver(dyn, ObserverSettings(gain=50.0, max_step=0.005))
    q0, zero = rows[0][1], np.zeros(model.n)
    for k in range(10):
        still.update(k * 1e-3, q0, zero, np.full(model.n, 1.0))  # torque g does not explain
    assert still.repeats == 0 and np.abs(still.residual).max() > 0.05


@pytest.mark.parametrize('kwargs, words', [
    (dict(gain=0.0), 'gain'), (dict(gain=float('nan')), 'gain'),
    (dict(max_step=0.0), 'max_step'), (dict(gain=500.0, max_step=0.005), 'oscillate')])
def test_settings_out_of_range_are_refused_naming_the_value(kwargs, words):
    with pytest.raises(InputError, match=words):
        ObserverSettings(**kwargs)


def test_non_finite_torque_is_refused(panda):
    _, dyn = panda
    obs = MomentumObserver(dyn)
    with pytest.raises(InputError, match='tau'):
        obs.update(0.0, np.zeros(7), np.zeros(7), np.full(7, np.nan))
