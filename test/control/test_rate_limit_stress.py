"""The rate limit is the controller's invariant: thousands of random runs through every
transition the node makes (activate, the final ramp of deactivate / shutdown, cleanup and
a new core continuing from the last command, faults of each kind, stale and returning
states, the tracking guard, trajectories, payload swaps), and every pair of consecutive
published commands checked: |tau_k - tau_k-1| <= max_torque_rate x min(t_k - t_k-1,
period). ROBODYN_STRESS_RUNS sets the number of runs (default 150; 3000 measured:
docs/reliability.md)."""

import os
from types import SimpleNamespace

import numpy as np

from robodyn_ros.control import ControllerConfig, ControllerCore
from robodyn_ros.model import load_urdf
from robodyn_ros.model.registry import PANDA_HOME, robot_path

PANDA = load_urdf(robot_path('panda')[0], tip_link='panda_hand')
NAMES = list(PANDA.joint_names)
Q0 = np.array(PANDA_HOME)
DT = 1e-3
RATE = 1000.0
RUNS = int(os.environ.get('ROBODYN_STRESS_RUNS', '150'))
ACTIONS = ('state', 'state', 'state', 'state', 'state', 'timer', 'silence', 'jump', 'nan',
           'guard', 'trajectory', 'payload', 'deactivate', 'reconfigure', 'fault', 'far')


def _core(rng):
    params = dict(kp=[400.0], kd=[40.0], max_torque_rate=RATE,
                  ramp_time=float(rng.choice([0.0, 0.01, 0.05])),
                  include_gravity=bool(rng.random() < 0.8),
                  trigger=str(rng.choice(['state', 'timer'])))
    return ControllerCore(PANDA, ControllerConfig.from_parameters(params))


def _trajectory(rng):
    point = SimpleNamespace(positions=list(Q0 + rng.uniform(-0.05, 0.05, 7)),
                            velocities=[], accelerations=[],
                            time_from_start=SimpleNamespace(sec=0, nanosec=300_000_000))
    return SimpleNamespace(joint_names=NAMES, points=[point])


class _Run:
    """One random run: the node's publishing, as plain calls on the core."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.core = _core(self.rng)
        self.now = 0.0
        self.sent = []  # (time, torque)
        self.core.activate(self.now)

    def publish(self, command, now):
        if command is not None:
            self.sent.append((now, command.effort.copy()))

    def state(self, q, qd=None):
        qd = np.zeros(7) if qd is None else qd
        self.publish(self.core.cycle(self.now, NAMES, q, qd, self.now + 50.0), self.now)

    def step(self, action):
        core, rng = self.core, self.rng
        self.now += DT * float(rng.choice([1.0, 1.0, 1.0, 0.3, 2.5]))
        q = Q0 + 0.01 * np.sin(self.now)
        if action == 'state':
            self.state(q)
        elif action == 'timer':
            self.publish(core.update(self.now), self.now)
        elif action == 'silence':
            self.now += 0.06
            self.publish(core.update(self.now), self.now)
        elif action == 'jump':
            self.state(q + 0.5)
        elif action == 'nan':
            self.state(q, np.full(7, np.nan))
        elif action == 'guard':
            self.state(np.where(np.arange(7) == 3, -3.05, q))
        elif action == 'trajectory':
            core.on_trajectory(self.now, _trajectory(rng))
        elif action == 'payload':
            core.set_payload(float(rng.uniform(0.0, 2.0)), [0.0, 0.0, 0.05], [0.0] * 6)
        elif action == 'fault':
            core.supervisor.fault(self.now, 'stress', bool(rng.random() < 0.5),
                                  bool(rng.random() < 0.5))
        elif action == 'far':
            core.reference.hold(Q0 + 0.3, self.now + core.clock.offset)
        elif action in ('deactivate', 'reconfigure'):
            self.deactivate(action == 'reconfigure')

    def deactivate(self, reconfigure):
        """The node's publish_final (one command per period), then activate again, after a
        cleanup and configure (a new core continuing from the last command) or not."""
        start = self.now
        for k, tau in enumerate(self.core.final_commands(self.now, 'stress')):
            self.now = start + (k + 1) * DT
            self.sent.append((self.now, tau.copy()))
        if reconfigure and self.sent:
            last_time, last = self.sent[-1]
            self.core = _core(self.rng)
            self.core.supervisor.continue_from(self.core.chain_order(last), last_time)
        self.now += 0.01
        self.core.activate(self.now)


def _worst_excess(sent):
    """Largest |step| beyond max_torque_rate x min(elapsed, period) over consecutive
    commands [N m] (<= 0: within the limit everywhere)."""
    times = np.array([t for t, _ in sent])
    values = np.array([v for _, v in sent])
    allowed = RATE * np.minimum(np.diff(times), DT)
    steps = np.abs(np.diff(values, axis=0)).max(axis=1)
    return float((steps - allowed).max())


def test_no_pair_of_published_commands_steps_beyond_the_rate_limit():
    worst, pairs = -np.inf, 0
    for seed in range(RUNS):
        run = _Run(seed)
        actions = run.rng.choice(ACTIONS, size=150)
        for action in ['state'] * 20 + list(actions):
            run.step(action)
        assert all(np.all(np.isfinite(v)) for _, v in run.sent)
        if len(run.sent) > 1:
            excess = _worst_excess(run.sent)
            assert excess <= 1e-9, f'run {seed}: a step {excess:.3g} N m beyond the limit'
            worst, pairs = max(worst, excess), pairs + len(run.sent) - 1
    assert pairs > 50 * RUNS  # the runs published
