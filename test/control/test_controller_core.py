"""ControllerCore: every guard on plain arrays and monotonic time (no ROS)."""

from types import SimpleNamespace

import numpy as np
import pytest

from robodyn_ros.control import ControllerConfig, ControllerCore
from robodyn_ros.control.events import EventKind
from robodyn_ros.control.safety.supervisor import ACTIVE, RAMP_IN, SAFE
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.errors import ConfigError
from robodyn_ros.model import load_urdf
from robodyn_ros.model.registry import PANDA_HOME, robot_path

PANDA = load_urdf(robot_path('panda')[0], tip_link='panda_hand')
NAMES = list(PANDA.joint_names)
Q0 = np.array(PANDA_HOME)
DT = 1e-3


def _core(**params):
    values = dict(kp=[400.0], kd=[40.0], ramp_time=0.0)
    values.update(params)
    return ControllerCore(PANDA, ControllerConfig.from_parameters(values))


def _run(core, steps, t0=0.0, q=Q0, stamp_offset=100.0, states=True):
    """Feed ``steps`` cycles of the state ``q`` (at rest) and collect the commands."""
    out = []
    for k in range(steps):
        now = t0 + k * DT
        if states:
            core.on_state(now, NAMES, q, np.zeros(7), now + stamp_offset)
        command = core.update(now)
        out.append(None if command is None else command.effort)
    return out


def _started(**params):
    core = _core(**params)
    core.activate(0.0)
    _run(core, 10)
    return core


def _point(t, positions, velocities=(), accelerations=()):
    return SimpleNamespace(positions=list(positions), velocities=list(velocities),
                           accelerations=list(accelerations),
                           time_from_start=SimpleNamespace(sec=int(t),
                                                           nanosec=int((t % 1) * 1e9)))


def _trajectory(names, points):
    return SimpleNamespace(joint_names=list(names), points=list(points))


def _safe_within(commands, limit_cycles):
    return all(c is not None for c in commands[:limit_cycles])


@pytest.mark.parametrize('case', ['stopped', 'nan', 'repeated_stamp', 'missing_joint'])
def test_bad_stream_gives_safe_command_within_timeout_plus_3_cycles_and_keeps_it(case):
    core = _started(state_timeout=0.05)
    t0 = 10 * DT
    commands, modes = [], []
    for k in range(300):
        now = t0 + k * DT
        if case == 'nan':
            core.on_state(now, NAMES, np.full(7, np.nan), np.zeros(7), now + 100.0)
        elif case == 'repeated_stamp':
            core.on_state(now, NAMES, Q0, np.zeros(7), 100.0 + t0)
        elif case == 'missing_joint':
            core.on_state(now, NAMES[:-1], Q0[:-1], np.zeros(6), now + 100.0)
        command = core.update(now)
        commands.append(command)
        modes.append(command.state)
    first_safe = modes.index(SAFE)
    assert first_safe * DT <= 0.05 + 3 * DT
    assert all(m == SAFE for m in modes[first_safe:])  # kept up, every cycle
    hold = core.dyn.gravity_vector(Q0)
    np.testing.assert_allclose(commands[-1].effort, hold, atol=1e-9)


def test_future_stamped_states_do_not_disable_the_watchdog():
    core = _core(state_timeout=0.05)
    core.activate(0.0)
    _run(core, 100, stamp_offset=10.0)  # robot clock 10 s ahead of ours
    assert core.supervisor.state == ACTIVE
    late = _run(core, 60, t0=0.1, states=False)
    assert late[-1] is not None and core.supervisor.state == SAFE


def test_torque_equals_the_law_with_reordered_and_extra_joints():
    core = _started(reference='hold', max_torque_rate=1e5)
    rng = np.random.default_rng(0)
    q = Q0 + rng.uniform(-0.01, 0.01, 7)
    qd = rng.uniform(-0.1, 0.1, 7)
    order = rng.permutation(7)
    names = ['extra'] + [NAMES[i] for i in order]
    core.on_state(0.011, names, [9.0] + list(q[order]), [0.0] + list(qd[order]), 100.011)
    tau = core.update(0.011).effort
    dyn = RigidBodyDynamics(PANDA, friction_smoothing=0.01)
    expected = dyn.computed_torque(q, qd, Q0, np.zeros(7), np.zeros(7), np.full(7, 400.0),
                                   np.full(7, 40.0), friction=False)
    np.testing.assert_allclose(tau, expected, atol=1e-9)


def test_a_half_radian_glitch_moves_the_torque_at_most_the_rate_limit():
    core = _started(max_torque_rate=1000.0)
    before = core.update(0.0105).effort
    glitch = Q0.copy()
    glitch[1] += 0.5
    core.on_state(0.011, NAMES, glitch, np.zeros(7), 100.011)
    after = core.update(0.011).effort
    assert np.max(np.abs(after - before)) <= 1000.0 * DT + 1e-9


def test_commands_in_the_joints_parameter_order():
    order = NAMES[::-1]
    core = _started(joints=order, reference='hold')
    plain = _started(reference='hold')
    np.testing.assert_allclose(core.update(0.011).effort, plain.update(0.011).effort[::-1])


def test_effort_limits_zero_or_missing_are_a_configure_error_unless_given():
    joints = [j if j.name != 'panda_joint3' else j.__class__(**{**j.__dict__, 'effort': 0.0})
              for j in PANDA.joints]
    model = PANDA.__class__(**{**PANDA.__dict__, 'joints': tuple(joints)})
    with pytest.raises(ConfigError, match=r'panda_joint3.*effort_limits'):
        ControllerCore(model, ControllerConfig.from_parameters({}))
    core = ControllerCore(model, ControllerConfig.from_parameters(dict(effort_limits=[10.0])))
    np.testing.assert_array_equal(core.supervisor.limits.effort, np.full(7, 10.0))


def test_joints_parameter_must_match_the_chain():
    with pytest.raises(ConfigError, match='does not match the chain'):
        _core(joints=NAMES[:-1])


def test_reference_outside_the_limits_is_rejected_and_the_arm_holds():
    core = _core(reference='sum_of_sines', amplitudes=[1.0], periods=[2.0])
    core.activate(0.0)
    _run(core, 2)  # joint 4 at -2.356 +- 1 leaves [-3.07, -0.07] shrunk by 0.05
    events = [e for e in core.drain_events() if e.kind == EventKind.REFERENCE_REJECTED]
    assert events and 'panda_joint' in events[0].text
    assert core.reference.kind == 'hold'


def test_trajectories_malformed_or_outside_limits_are_rejected_and_the_reference_stays():
    core = _started(reference='hold')
    bad = [
        _trajectory(NAMES, [_point(1.0, [0.0] * 3)]),               # 3 positions for 7 names
        _trajectory(NAMES + ['x'], [_point(1.0, [0.0] * 8)]),        # unknown joint
        _trajectory(NAMES, []),                                      # no points
        _trajectory(NAMES, [_point(1.0, Q0 + [0, 0, 0, 2.5, 0, 0, 0])]),  # q4 = 0.14 > -0.07
        _trajectory(NAMES, [_point(1.0, Q0), _point(0.5, Q0)]),      # time goes back
        _trajectory(NAMES, [_point(1.0, [np.nan] * 7)]),
        _trajectory(NAMES, [_point(1.0, Q0, velocities=[1.0])]),     # 1 velocity for 7
        _trajectory(NAMES, [_point(0.0, Q0 + 0.5)]),                 # jump at t = 0
    ]
    for msg in bad:
        accepted, text = core.on_trajectory(0.02, msg)
        assert not accepted and text.startswith('trajectory rejected'), text
        assert core.reference.kind == 'hold'
    ok, text = core.on_trajectory(0.02, _trajectory(['panda_joint1'], [_point(1.0, [0.3])]))
    assert ok, text
    q_end = core.reference(1e9)[0]
    np.testing.assert_allclose(q_end, np.r_[0.3, Q0[1:]])  # other joints hold


def test_trajectory_before_activation_is_rejected():
    core = _core()
    accepted, text = core.on_trajectory(0.0, _trajectory(['panda_joint1'],
                                                         [_point(1.0, [0.3])]))
    assert not accepted and 'inactive' in text


def test_the_reference_acceleration_is_bounded_as_the_cpp_controller_bounds_it():
    """The node derives the C++ controller's acceleration limits (effort limit / the
    largest M_jj over the spread configurations) and refuses a goal that needs more
    (0.1 rad in 0.1 s from rest to rest: 57.7 rad/s^2 on joint 1, within its position and
    velocity limits), naming the limit; a given acceleration_limits entry overrides the
    derivation."""
    from robodyn_ros.control.controller_config import spread_configurations
    core = _started()
    most = np.max([np.diag(core.dyn.mass_matrix(q))
                   for q in spread_configurations(PANDA.lower, PANDA.upper)], axis=0)
    np.testing.assert_allclose(core.reference.acceleration, PANDA.effort_limits / most)
    assert 10.0 < core.reference.acceleration[0] < 57.0  # 24.3 rad/s^2
    hard = _point(0.1, Q0 + np.eye(7)[0] * 0.1, [0.0] * 7, [0.0] * 7)
    accepted, text = core.on_trajectory(0.01, _trajectory(NAMES, [hard]))
    assert not accepted and 'accelerates too hard: panda_joint1' in text
    gentle = _point(2.0, Q0 + 0.1, [0.0] * 7, [0.0] * 7)
    assert core.on_trajectory(0.01, _trajectory(NAMES, [gentle]))[0]
    given = _core(acceleration_limits=[0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    assert given.reference.acceleration[1] == 5.0
    assert given.reference.acceleration[0] == core.reference.acceleration[0]


def test_a_sum_of_sines_beyond_the_acceleration_limit_does_not_start():
    core = _core(reference='sum_of_sines', amplitudes=[0.1], periods=[2.0], ramp=1.0,
                 acceleration_limits=[0.5])
    core.activate(0.0)
    _run(core, 5)
    events = core.drain_events()
    assert core.reference.kind == 'hold'
    assert any(e.kind == EventKind.REFERENCE_REJECTED and 'acceleration limit 0.5' in e.text
               for e in events), events


def test_recovery_ramps_in_and_holds_the_current_position():
    core = _started(reference='sum_of_sines', amplitudes=[0.1], periods=[2.0], ramp=0.1,
                    ramp_time=0.05)
    _run(core, 500, t0=0.01)
    _run(core, 80, t0=0.51, states=False)
    assert core.supervisor.state == SAFE
    q_now = Q0 + 0.01
    core.on_state(0.6, NAMES, q_now, np.zeros(7), 200.0)
    assert core.supervisor.state == RAMP_IN and core.reference.kind == 'hold'
    np.testing.assert_allclose(core.reference(200.5)[0], q_now)


def test_state_clock_jump_shifts_the_reference_without_a_step():
    core = _started(reference='sum_of_sines', amplitudes=[0.1], periods=[2.0])
    _run(core, 300, t0=0.01)
    before = core.update(0.3095).q_ref
    core.on_state(0.31, NAMES, Q0, np.zeros(7), 5.0)  # robot clock reset from ~100 s to 5 s
    after = core.update(0.31).q_ref
    assert np.max(np.abs(after - before)) < 1e-3
    assert EventKind.CLOCK_JUMP in [e.kind for e in core.drain_events()]


def test_non_finite_law_output_latches_safe():
    core = _started()
    core.law = lambda *args: np.full(7, np.nan)
    command = core.update(0.011)
    assert command.state == SAFE and core.supervisor.latched
    assert np.all(np.isfinite(command.effort))


def test_online_cross_check_reports_and_trips_on_a_wrong_model():
    from robodyn_ros.dynamics.verification.pinocchio_chain import PinocchioChain
    core = _started(cross_check_every=5, cross_check_tolerance=1e-9)
    _run(core, 50, t0=0.01)
    assert core.cross_check.checks >= 9 and core.cross_check.worst < 1e-9
    assert core.supervisor.state == ACTIVE
    core.cross_check.reference = PinocchioChain(PANDA, (0.0, 0.0, -9.0))  # wrong gravity
    _run(core, 10, t0=0.06)
    assert core.supervisor.state == SAFE and 'cross-check' in core.supervisor.reason
    assert 'cross_check_max_nm' in core.diagnostics(0.1)[2]


def test_deactivate_ramps_to_the_final_hold_within_the_rate_limit():
    core = _started(reference='sum_of_sines', amplitudes=[0.1], periods=[1.0], ramp=0.1)
    commands = [c for c in _run(core, 400, t0=0.01)]
    ramp = core.final_commands(0.5, 'shutdown')
    sequence = np.vstack(commands + ramp)
    assert np.max(np.abs(np.diff(sequence, axis=0))) <= 1000.0 * DT + 1e-9
    np.testing.assert_allclose(ramp[-1], core.dyn.gravity_vector(core.q))
    assert core.update(0.6) is None  # inactive: nothing more goes out


def test_warm_up_runs_every_path():
    core = _core(cross_check_every=10)
    assert core.warm_up() >= 0.0 and core.cross_check.checks == 1


def test_no_step_above_the_rate_limit_over_start_glitch_stall_and_recovery():
    core = _core(reference='sum_of_sines', amplitudes=[0.2], periods=[2.0], ramp=0.2,
                 ramp_time=0.1, max_torque_rate=1000.0)
    core.activate(0.0)
    efforts, modes = [], []
    for k in range(1500):
        now = k * DT
        q = Q0 + (0.5 * np.eye(7)[1] if k == 400 else 0.0)  # one 0.5 rad glitch
        if not 700 <= k < 800:  # a 100 ms stall
            core.on_state(now, NAMES, q, np.zeros(7), 100.0 + now)
        command = core.update(now)
        if command is not None:
            efforts.append(command.effort)
            modes.append(command.state)
    steps = np.abs(np.diff(np.array(efforts), axis=0))
    assert steps.max() <= 1000.0 * DT + 1e-9
    assert {'ramp_in', 'active', 'safe'} <= set(modes) and modes[-1] == 'active'


def test_payload_at_runtime_changes_the_model_between_cycles():
    from robodyn_ros.control import ControllerConfig, ControllerCore
    from robodyn_ros.errors import ConfigError
    config = ControllerConfig.from_parameters({'kp': [400.0], 'kd': [40.0],
                                               'payload.mass': 0.0})
    core = ControllerCore(PANDA, config)
    q = np.array(PANDA_HOME)
    plain = core.dyn.gravity_vector(q)
    core.set_payload(1.5, [0.0, 0.0, 0.05], [1e-3, 0.0, 0.0, 1e-3, 0.0, 1e-3])
    loaded = core.dyn.gravity_vector(q)
    assert np.abs(loaded - plain).max() > 0.5  # 1.5 kg at the hand: visible on the wrist
    np.testing.assert_array_equal(core.supervisor.gravity(q), loaded)  # the hold command too
    with pytest.raises(ConfigError, match='payload'):
        core.set_payload(1.0, [0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.01, 0.0, 0.01])  # not physical
    np.testing.assert_array_equal(core.dyn.gravity_vector(q), loaded)  # unchanged
    core.set_payload(0.0, [0.0] * 3, [0.0] * 6)
    np.testing.assert_allclose(core.dyn.gravity_vector(q), plain)


@pytest.mark.parametrize('offsets, size', [((4, 60), 100), ((-8, 4), 200), ((4, 4), 40)])
def test_packed_state_outside_its_bytes_is_rejected_not_read(offsets, size):
    core = _started()
    before = core.stats.counters.get('rejected_states', 0)
    data = np.full(size // 8, 0.1).tobytes()
    assert core.cycle_packed(11 * DT, NAMES, data, offsets, 111.0) is None
    assert core.stats.counters['rejected_states'] == before + 1
    assert 'do not fit' in core.last_rejection


def test_reference_effort_in_chain_order_when_the_command_order_differs():
    core = _core(joints=NAMES[::-1])
    effort = np.arange(7.0)  # command order: joint 7 first
    np.testing.assert_array_equal(core.chain_order(effort), effort[::-1])
    assert _core().chain_order(effort) is effort


def test_an_arm_that_does_not_follow_trips_the_tracking_guard_into_a_position_hold():
    """A paused simulation: the states stay at Q0 while a trajectory moves the reference
    away; at max_tracking_error the controller holds where the arm is (it would otherwise
    push the arm into its limits once the physics runs)."""
    core = _started(max_tracking_error=0.05)
    _run(core, 40, t0=0.01)
    accepted, _ = core.on_trajectory(0.05, SimpleNamespace(
        joint_names=NAMES, points=[SimpleNamespace(
            positions=list(Q0 + 0.3), velocities=[], accelerations=[],
            time_from_start=SimpleNamespace(sec=1, nanosec=0))]))
    assert accepted
    _run(core, 1000, t0=0.05)
    sup = core.supervisor
    assert sup.state == SAFE and 'tracking error' in sup.reason
    assert 'position hold' in sup.reason and np.allclose(sup.hold_q, Q0)
    gravity = _core(mode='gravity', max_tracking_error=0.05)
    assert gravity.tracking_limit is None


def test_reference_stamps_stay_ordered_through_a_stall_and_its_late_backlog():
    core = _started(reference='sum_of_sines', amplitudes=[0.1], periods=[2.0])
    stamps = [core.update(0.01 + k * DT).t_ref for k in range(60)]  # no states: a stall
    for k in range(20):  # the backlog: states stamped during the stall, delivered now
        core.on_state(0.07 + k * 1e-5, NAMES, Q0, np.zeros(7), 100.010 + k * DT)
        stamps.append(core.update(0.07 + k * 1e-5).t_ref)
    assert min(np.diff(stamps)) >= 0.0


def _stale_reason(nan_then_valid):
    """The watchdog's reason after NaN states, then (``nan_then_valid``) valid ones, then
    silence."""
    core = _started(state_timeout=0.05)
    bad = Q0.copy()
    bad[2] = np.nan
    for k in range(10, 20):
        core.on_state(k * DT, NAMES, bad, np.zeros(7), 100.0 + k * DT)
        core.update(k * DT)
    if nan_then_valid:
        _run(core, 10, t0=20 * DT)
    _run(core, 100, t0=30 * DT, states=False)
    assert core.supervisor.state == SAFE
    return core.supervisor.reason


def test_the_watchdog_names_rejected_states_only_when_they_came_since_the_last_valid_one():
    assert 'last rejected state: non-finite' in _stale_reason(nan_then_valid=False)
    reason = _stale_reason(nan_then_valid=True)
    assert reason.startswith('no valid joint state') and 'rejected' not in reason, reason


def test_a_tracking_trip_after_an_accepted_jump_names_the_jump():
    """One publisher whose joint 2 reads 0.5 rad off for good: its jump is accepted (a
    lagging stream), the tracking guard trips on it, and the reason says the states jumped
    rather than only that the arm does not follow."""
    core = _started(max_tracking_error=0.2)
    core.state_publishers = 1
    jumped = Q0.copy()
    jumped[1] += 0.5
    _run(core, 5, t0=10 * DT, q=jumped)
    reason = core.supervisor.reason
    assert core.supervisor.state == SAFE, reason
    assert 'tracking error 0.5 on panda_joint2' in reason, reason
    assert 'after joint panda_joint2 jumped +0.5' in reason and 'joint states jumped' in reason
    late = _started(max_tracking_error=0.2)  # no jump: the usual cause
    late.reference.hold(Q0 + 0.3, 0.0)
    _run(late, 3, t0=10 * DT)
    assert 'jumped' not in late.supervisor.reason and 'does not follow' in late.supervisor.reason
