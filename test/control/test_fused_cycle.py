"""The fused active cycle: the same commands and decisions as the general path, bit for
bit, over random state streams (glitches, NaN, guards, stamps, clock jumps)."""

from array import array
import os
import subprocess
import sys
from types import SimpleNamespace

from hypothesis import example, given, settings
from hypothesis import strategies as st
import numpy as np
import pytest

from robodyn_ros.control import ControllerConfig, ControllerCore
from robodyn_ros.control.cycle_events import EVENT_NAMES
from robodyn_ros.control.fused_cycle import FusedCycle
from robodyn_ros.control.safety.supervisor import ACTIVE
from robodyn_ros.io.cdr import JointStateLayout, encode_joint_state
from robodyn_ros.model import load_urdf
from robodyn_ros.model.registry import PANDA_HOME, robot_path

PANDA = load_urdf(robot_path('panda')[0], tip_link='panda_hand')
NAMES = list(PANDA.joint_names)
Q0 = np.array(PANDA_HOME)
DT = 1e-3
CONFIGS = {
    'sim': dict(kp=[400.0], kd=[40.0], include_friction=True, reference='sum_of_sines',
                velocity_lag=0.0005,
                amplitudes=[0.05], periods=[2.0]),
    'franka': dict(kp=[100.0], kd=[20.0], include_gravity=False, include_friction=False,
                   joints=NAMES[::-1], max_torque_rate=200.0),
}

def _perturb_values(names, q, qd, stamp, event):
    """The state of ``event`` (a cycle_events name) from a valid one."""
    if event == 'position_jump':
        q[3] += 0.5
    elif event == 'non_finite_state':
        qd[2] = np.nan
    elif event == 'guard':
        q[1] = 5.0
    elif event == 'repeated_stamp':
        stamp -= DT
    elif event == 'old_stamp':
        stamp -= 0.3
    elif event == 'clock_jump':
        stamp += 5.0
    elif event == 'missing_joint':
        names, q, qd = names[1:], q[1:], qd[1:]
    elif event == 'reordered_joints':
        names, q, qd = names[::-1], q[::-1], qd[::-1]
    return names, q, qd, stamp


#: Every cycle_events rule has a perturbation here, handled by _state (a state), by the
#: property test's loop (no state, a new trajectory), or by its own test below.
STATE_EVENTS = ('position_jump', 'non_finite_state', 'guard', 'repeated_stamp', 'old_stamp',
                'clock_jump', 'missing_joint', 'reordered_joints', 'list_fields')
LOOP_EVENTS = ('missing_state', 'new_trajectory', 'tracking_error')
OWN_TEST = {'non_finite_torque': 'test_a_non_finite_law_torque_faults_on_both_paths',
            'frozen_state': 'test_a_frozen_stream_faults_on_both_paths_alike',
            'collision': 'test_a_collision_faults_on_both_paths_alike'}
EVENTS = st.sampled_from(['ok'] * 12 + list(STATE_EVENTS + LOOP_EVENTS))


def test_every_cycle_event_is_exercised():
    """A rule added to cycle_events.CYCLE_EVENTS fails here until it has a perturbation."""
    covered = STATE_EVENTS + LOOP_EVENTS + tuple(OWN_TEST)
    assert sorted(covered) == sorted(EVENT_NAMES)
    assert all(name in globals() for name in OWN_TEST.values())


def _core(name):
    values = dict(CONFIGS[name], ramp_time=0.01)
    return ControllerCore(PANDA, ControllerConfig.from_parameters(values))


def _state(event, k, rng):
    """(names, position, velocity, stamp [s]) of cycle k for ``event``."""
    q = Q0 + 0.01 * np.sin(0.3 * k + np.arange(7)) + 1e-4 * rng.standard_normal(7)
    qd = 0.1 * np.cos(0.3 * k + np.arange(7))
    names, q, qd, stamp = _perturb_values(list(NAMES), q, qd, 1000.0 + k * DT, event)
    position, velocity = array('d', q), array('d', qd)
    if event == 'list_fields':
        position, velocity = list(q), list(qd)
    return names, position, velocity, stamp


def _packed(names, position, velocity, stamp):
    """The same state as the node hands it to cycle_packed: (names, CDR bytes, offsets,
    stamp)."""
    data = encode_joint_state(stamp, names, position, velocity)
    return names, data, JointStateLayout(data).offsets, stamp


def _trajectory(k):
    point = SimpleNamespace(positions=list(Q0 + 0.02), velocities=[], accelerations=[],
                            time_from_start=SimpleNamespace(sec=0, nanosec=200_000_000))
    return SimpleNamespace(joint_names=list(NAMES), points=[point])


def _general(core, now, names, position, velocity, stamp):
    if core.on_state(now, names, position, velocity, stamp) and core.supervisor.publishing:
        return core.update(now)
    return None


def _snapshot(core):
    sup = core.supervisor
    return (sup.state, sup.reason, sup.output.tobytes(), sup.rate_limited, sup.clamped,
            sup.faults, core.clock.stamp, core.clock.offset, core.reference.t0,
            core.drain_events())


@pytest.mark.parametrize('name', sorted(CONFIGS))
@settings(max_examples=15, deadline=None)
@given(events=st.lists(EVENTS, min_size=60, max_size=300), seed=st.integers(0, 2**16))
# A fused cycle that declined after taking its reference time once left that time behind
# for the general path (a later trajectory then started at another time on each path).
@example(events=['ok'] * 10 + ['clock_jump', 'new_trajectory', 'old_stamp',
                               'non_finite_state', 'new_trajectory'] + ['ok'] * 45, seed=0)
def test_fused_and_general_paths_agree_bit_for_bit(name, events, seed):
    fused, general = _core(name), _core(name)
    general.fused_cycle = None
    assert fused.fused_cycle is not None
    rngs = [np.random.default_rng(seed) for _ in range(2)]
    for core in (fused, general):
        core.activate(0.0)
    for k, event in enumerate(['ok'] * 40 + events):  # active after 40 cycles
        now = k * DT
        if event == 'missing_state':
            continue  # the watchdog's time keeps running
        if event == 'new_trajectory':
            assert fused.on_trajectory(now, _trajectory(k)) == \
                general.on_trajectory(now, _trajectory(k))
            continue
        if event == 'tracking_error':  # a reference the arm has not followed
            for core in (fused, general):
                core.reference.hold(Q0 + 0.3, now + core.clock.offset)
            event = 'ok'
        a = fused.cycle_packed(now, *_packed(*_state(event, k, rngs[0])))
        b = _general(general, now, *_state(event, k, rngs[1]))
        assert (a is None) == (b is None), (k, event)
        if a is not None:
            assert a.effort.tobytes() == b.effort.tobytes(), (k, event)
            assert a.q_ref.tobytes() == b.q_ref.tobytes() and a.t_ref == b.t_ref
            assert a.state == b.state
            assert np.all(np.isfinite(a.effort))
        assert _snapshot(fused) == _snapshot(general), (k, event)
    assert fused.fused_cycle.cycles >= 25  # the fused path ran (ramp-in is general)


def test_steady_state_runs_fused():
    core = _core('sim')
    core.activate(0.0)
    rng = np.random.default_rng(0)
    for k in range(200):
        assert core.cycle_packed(k * DT, *_packed(*_state('ok', k, rng))) is not None
    assert core.supervisor.state == ACTIVE
    assert core.fused_cycle.cycles > 150  # all but ramp-in


def test_a_cycle_never_overwrites_the_last_valid_state():
    """The fused cycle writes its state into the buffer that is not the last valid state,
    so a rejected or guarded state leaves the hold command's state as it was, and every
    accepted state is the one sent."""
    core = _core('sim')
    core.activate(0.0)
    rng = np.random.default_rng(1)
    events = ['ok'] * 20 + ['non_finite_state', 'ok', 'repeated_stamp', 'ok', 'ok',
                            'non_finite_state', 'non_finite_state', 'ok'] * 3
    kept = 0
    for k, event in enumerate(events):
        last = core.supervisor.q_valid
        value = None if last is None else last.copy()
        names, position, velocity, stamp = _state(event, k, rng)
        core.cycle_packed(k * DT, *_packed(names, position, velocity, stamp))
        if core.supervisor.q_valid is last:
            kept += last is not None
            assert last is None or np.array_equal(last, value)
        else:
            assert np.array_equal(core.supervisor.q_valid, position)
    assert core.fused_cycle.cycles > 20 and kept >= 6  # fused cycles, and rejections after them


@pytest.mark.parametrize('params', [dict(mode='gravity'), dict(cross_check_every=10)])
def test_no_fused_cycle_where_it_has_no_form(params):
    core = ControllerCore(PANDA, ControllerConfig.from_parameters(dict(kp=[1.0], **params)))
    assert core.fused_cycle is None and FusedCycle.build(core) is None


def test_payload_change_rebuilds_the_fused_cycle():
    core = _core('sim')
    before = core.fused_cycle
    core.set_payload(1.0, [0.0, 0.0, 0.05], [1e-3, 0, 0, 1e-3, 0, 1e-3])
    assert core.fused_cycle is not before
    assert core.fused_cycle.params is core.dyn.kernel_workspace()[0]


def test_a_non_finite_law_torque_faults_on_both_paths():
    """Finite inputs, overflowing gains: the law's torque is inf; neither path sends it."""
    cores = [ControllerCore(PANDA, ControllerConfig.from_parameters(
        dict(kp=[1e308], kd=[1e308], ramp_time=0.0))) for _ in range(2)]
    cores[1].fused_cycle = None
    for core in cores:
        core.activate(0.0)
        for k in range(5):
            e = np.eye(7)[0] if k == 4 else np.zeros(7)  # 1e308 (5 mrad + 2 rad/s) = inf
            state = (NAMES, array('d', Q0 + 0.005 * e), array('d', 2.0 * e), 1.0 + k * DT)
            command = core.cycle_packed(k * DT, *_packed(*state)) if core.fused_cycle else \
                core.cycle(k * DT, *state)
            assert command is None or np.all(np.isfinite(command.effort))
    assert cores[0].fused_cycle.cycles == 3
    assert [c.supervisor.state for c in cores] == ['safe', 'safe']
    assert _snapshot(cores[0]) == _snapshot(cores[1])
    assert 'non-finite torque' in cores[0].supervisor.reason


def test_a_frozen_stream_faults_on_both_paths_alike():
    """The same positions and velocities, fresh stamps, for 300 ms while the velocities say
    0.1 rad/s: both paths fault on the same cycle with the same commands."""
    fused, general = _core('sim'), _core('sim')
    general.fused_cycle = None
    rngs = [np.random.default_rng(1) for _ in range(2)]
    for core in (fused, general):
        core.activate(0.0)
    frozen = None
    for k in range(340):
        now = k * DT
        states = [_state('ok', k, rng) for rng in rngs]
        if k >= 40:  # from here the driver repeats one state with fresh stamps
            frozen = frozen or states[0]
            states = [(*frozen[:3], 1000.0 + k * DT)] * 2
        a = fused.cycle_packed(now, *_packed(*states[0]))
        b = _general(general, now, *states[1])
        assert (a is None) == (b is None) and (a is None or
                                               a.effort.tobytes() == b.effort.tobytes()), k
        assert _snapshot(fused) == _snapshot(general), k
    assert fused.supervisor.state == 'safe' and 'repeated themselves' in \
        fused.supervisor.reason
    assert fused.fused_cycle.cycles >= 25


def test_a_frozen_stream_heard_late_trips_on_its_stamps_after_50_ms():
    """A node that hears its topic late (the repeats arrive 0.1 ms apart while their
    stamps are 1 ms apart) counts the stream's own time: both paths trip once the repeats
    span 50 ms of stamps (kernels.FROZEN_SECONDS, the C++ controller's too)."""
    cores = [_core('sim'), _core('sim')]
    cores[1].fused_cycle = None
    rngs = [np.random.default_rng(2) for _ in range(2)]
    tripped = []
    for core, rng in zip(cores, rngs):
        core.activate(0.0)
        frozen, trip = None, None
        for k in range(200):
            state = _state('ok', k, rng)
            now = k * DT if k < 40 else 40 * DT + (k - 40) * 1e-4
            if k >= 40:
                frozen = frozen or state
                state = (*frozen[:3], 1000.0 + k * DT)
            if core.fused_cycle is not None:
                core.cycle_packed(now, *_packed(*state))
            else:
                _general(core, now, *state)
            if trip is None and core.supervisor.state == 'safe':
                trip = k
        tripped.append(trip)
        assert 'repeated themselves for 50 ms' in core.supervisor.reason, core.supervisor.reason
    assert tripped[0] == tripped[1] and 40 + 50 <= tripped[0] <= 40 + 52, tripped


def test_a_collision_faults_on_both_paths_alike():
    """From cycle 60 joint 2 accelerates at 20 rad/s^2, which the commands do not explain
    (something pushes it): the collision watch trips both paths on the same cycle, with the
    same commands."""
    cores = [ControllerCore(PANDA, ControllerConfig.from_parameters(
        dict(CONFIGS['sim'], ramp_time=0.01, **{'collision.thresholds': [20.0]})))
        for _ in range(2)]
    fused, general = cores
    general.fused_cycle = None
    rngs = [np.random.default_rng(2) for _ in range(2)]
    for core in cores:
        core.activate(0.0)
    for k in range(120):
        now = k * DT
        states = [list(_state('ok', k, rng)) for rng in rngs]
        t = max(0, k - 60) * DT
        for state in states:
            state[1][1] += 10.0 * t * t
            state[2][1] += 20.0 * t
        a = fused.cycle_packed(now, *_packed(*states[0]))
        b = general.cycle(now, *states[1])
        assert (a is None) == (b is None) and (a is None or
                                               a.effort.tobytes() == b.effort.tobytes()), k
        assert _snapshot(fused) == _snapshot(general), k
    assert fused.supervisor.state == 'safe' and 'collision' in fused.supervisor.reason
    assert fused.fused_cycle.cycles >= 10


NO_COMPILE_SCRIPT = """
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from test_fused_cycle import DT, _core, _packed, _state, _trajectory
from robodyn_ros.control import fused_cycle
from robodyn_ros.control.safety import kernels as safety_kernels
from robodyn_ros.dynamics.recursive import composite_rigid_body

def compiled():
    modules = (fused_cycle, safety_kernels, composite_rigid_body)
    return sum(len(getattr(v, 'signatures', ())) for m in modules for v in vars(m).values())

for name in ('sim', 'franka'):
    core = _core(name)
    core.warm_up()
    before = compiled()
    core.activate(0.0)
    rng = np.random.default_rng(0)
    for k in range(400):
        if k == 150:
            core.on_trajectory(k * DT, _trajectory(k))
        if not 250 <= k < 320:  # a 70 ms gap: safe mode, then recovery on a hold
            core.cycle_packed(k * DT, *_packed(*_state('ok', k, rng)))
        elif core.supervisor.publishing:
            core.update(k * DT)
    assert core.supervisor.state == 'active' and core.reference.kind == 'hold', name
    print(name, before, compiled())
"""


def test_no_kernel_compiles_inside_a_cycle_after_warm_up():
    """numba specialises per argument type, read-only arrays included (Hold's): a type the
    warm-up missed compiles inside a control cycle, a stall of seconds on a fresh machine.
    A fresh process, so that no other test has compiled the type already."""
    proc = subprocess.run([sys.executable, '-c', NO_COMPILE_SCRIPT, os.path.dirname(__file__)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for line in proc.stdout.splitlines():
        name, before, after = line.split()
        assert before == after, line
    assert len(proc.stdout.splitlines()) == 2
