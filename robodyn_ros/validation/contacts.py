"""Contacts in a recording: the momentum observer (dynamics/momentum_observer.py) run over a
bag's joint states, with the collision detector (control/collision.py) on its residual.

The applied torque is the state's effort (what the hardware interface reports it applied;
with a forward effort controller and a drive that applies its command, the command held
since the previous state). States are taken in their header stamps' time, in the model's
joint order; the residual is kept decimated for the plot, never whole (an hour at 1 kHz).
"""

from dataclasses import dataclass, field
import os

import numpy as np

from ..control.collision import CollisionDetector, CollisionSettings, Contact
from ..dynamics.momentum_observer import MomentumObserver, ObserverSettings
from ..dynamics.rigid_body_dynamics import RigidBodyDynamics
from ..errors import BagError, ConfigError
from ..io.bag_reader import BagReader
from ..io.cdr import parse_joint_state
from ..io.collision_file import read_collision_file
from ..model.robot_model import RobotModel

__all__ = ['ContactScan', 'GroundTruth', 'TRUTH_TOPIC', 'scan_bag', 'scan_bag_with_file',
           'write_residual_plot']

#: A simulator's joint torque of the external force (nodes/sim_node.py, robodyn demo
#: --push): when a bag has it, the estimate is compared with it.
TRUTH_TOPIC = '/robodyn_sim/external_torque'

#: Samples kept for the plot (one in every len / PLOT_POINTS).
PLOT_POINTS = 20_000


@dataclass
class GroundTruth:
    """The estimate against a simulator's external torque (the bag's TRUTH_TOPIC).

    Attributes:
        onsets: start of each push [s from the first state] (truth turning non-zero).
        peak: the largest |tau_ext| [N m].
        settled_error: the largest |r - tau_ext| over states at least 3 observer time
            constants into a push [N m] (nan: no such state).
        compared: states compared.
    """

    onsets: list[float] = field(default_factory=list)
    peak: float = 0.0
    settled_error: float = float('nan')
    compared: int = 0
    _on: bool = False

    def add(self, t: float, r: np.ndarray, truth: np.ndarray, settle: float) -> None:
        """One state's estimate ``r`` and the truth ``truth`` at ``t`` [s]."""
        self.compared += 1
        pushing = bool(truth.any())
        if pushing and not self._on:
            self.onsets.append(t)
        self._on = pushing
        if not pushing:
            return
        self.peak = max(self.peak, float(np.max(np.abs(truth))))
        if t >= self.onsets[-1] + settle:
            error = float(np.max(np.abs(r - truth)))
            self.settled_error = error if np.isnan(self.settled_error) else \
                max(self.settled_error, error)


@dataclass
class ContactScan:
    """What the observer saw in a recording.

    Attributes:
        joints: the model's joint names (the order of every array).
        samples: states observed; gaps: state gaps the residual was held across;
            repeats: states skipped as repeats of the one before while moving (a driver
            repeating its reading: dynamics/momentum_observer.py).
        duration: first to last state stamp [s].
        peak: (n,) the largest |r| per joint over the whole run [N m or N].
        contacts: contacts found (empty without thresholds), times from the first state.
        trace_t, trace_r: the residual, decimated, for the plot.
        effort_seen: False when every effort in the recording was zero (a hardware
            interface that does not report it): the residual is then meaningless.
        truth: the comparison with a simulator's ground truth, when the bag has one.
        wrench_at: (t [s], q, r) three time constants into the first push, for the tool
            wrench estimate (None without ground truth).
    """

    joints: tuple[str, ...]
    samples: int = 0
    gaps: int = 0
    repeats: int = 0
    duration: float = 0.0
    peak: np.ndarray = field(default_factory=lambda: np.zeros(0))
    contacts: list[Contact] = field(default_factory=list)
    trace_t: list[float] = field(default_factory=list)
    trace_r: list[np.ndarray] = field(default_factory=list)
    effort_seen: bool = False
    truth: GroundTruth | None = None
    wrench_at: tuple[float, np.ndarray, np.ndarray] | None = None


class _StateOrder:
    """Position, velocity and effort of one JointState in the model's joint order."""

    def __init__(self, model: RobotModel, topic: str, need_velocity: bool = True):
        self.joints, self.topic, self.need_velocity = model.joint_names, topic, need_velocity
        self._names: tuple[str, ...] | None = None
        self._index = np.zeros(model.n, dtype=int)

    def __call__(self, raw):
        stamp, names, pos, vel, eff = parse_joint_state(raw)
        if names != self._names:
            missing = [j for j in self.joints if j not in names]
            if missing:
                raise BagError(f'{self.topic} lacks joints {missing} of the model')
            self._index = np.array([names.index(j) for j in self.joints])
            self._names = names
        if (self.need_velocity and len(vel) != len(names)) or len(eff) != len(names):
            raise BagError(f'{self.topic}: states need a velocity and an effort per joint '
                           f'(got {len(vel)} velocities, {len(eff)} efforts for '
                           f'{len(names)} joints): the observer needs both')
        i = self._index
        return stamp, pos[i] if len(pos) else pos, vel[i] if len(vel) else vel, eff[i]


def scan_bag(bag_path: str | os.PathLike, model: RobotModel, dyn: RigidBodyDynamics,
             observer: ObserverSettings, collision: CollisionSettings | None = None,
             state_topic: str = '/joint_states') -> ContactScan:
    """Run the observer (and, with ``collision``, the detector) over a bag's states; with
    a simulator's ground truth (TRUTH_TOPIC) in the bag, compare with it."""
    scan = ContactScan(model.joint_names, peak=np.zeros(model.n))
    run = _Run(scan, MomentumObserver(dyn, observer),
               CollisionDetector(collision) if collision is not None else None,
               3.0 / observer.gain)
    order = _StateOrder(model, state_topic)
    with BagReader(bag_path) as bag:
        bag.require(state_topic, 'state')
        topics = [state_topic]
        if bag.topics.get(TRUTH_TOPIC) == 'sensor_msgs/msg/JointState':
            topics.append(TRUTH_TOPIC)
            scan.truth = GroundTruth()
            truth_order = _StateOrder(model, TRUTH_TOPIC, need_velocity=False)
        run.every = max(1, bag.counts.get(state_topic, 0) // PLOT_POINTS)
        for topic, _, _, raw in bag.messages(topics):
            if topic == state_topic:
                run.state(*order(raw))
            else:
                stamp, _, _, truth = truth_order(raw)
                run.truth(stamp, truth)
    if scan.samples < 2:
        raise BagError(f'{state_topic}: {scan.samples} usable states; the observer needs two')
    scan.gaps, scan.repeats = run.observer.gaps, run.observer.repeats
    return scan


def scan_bag_with_file(bag_path: str | os.PathLike, model: RobotModel,
                       thresholds_file: str | os.PathLike | None,
                       state_topic: str = '/joint_states', gain: float | None = None,
                       debounce: int | None = None
                       ) -> tuple[ContactScan, np.ndarray | None, float, int]:
    """scan_bag with a collision file's settings (robodyn contacts --derive writes it; None:
    the observer alone, gain 50 1/s, debounce 3), ``gain`` [1/s] / ``debounce`` [states]
    overriding the file's. Returns (scan, thresholds [N m or N] or None, gain, debounce).

    ConfigError when every effort in the bag is 0: the observer is fed the applied torque,
    and a hardware interface that does not report it would give a residual of pure model
    torque (confident contacts, or none, and both wrong)."""
    thresholds, file_gain, file_debounce = (
        read_collision_file(thresholds_file, model.joint_names) if thresholds_file
        else (None, 50.0, 3))
    gain = file_gain if gain is None else gain
    debounce = file_debounce if debounce is None else debounce
    collision = CollisionSettings(thresholds, debounce) if thresholds is not None else None
    scan = scan_bag(bag_path, model, RigidBodyDynamics(model), ObserverSettings(gain=gain),
                    collision, state_topic)
    if not scan.effort_seen:
        raise ConfigError(f'{state_topic}: every effort in the bag is 0 (the hardware '
                          'interface does not report the applied torque): no observer')
    return scan, thresholds, gain, debounce


class _Run:
    """One pass: states through the observer and detector, truths matched by stamp."""

    def __init__(self, scan, observer, detector, settle):
        self.scan, self.observer, self.detector, self.settle = scan, observer, detector, settle
        self.t0: float | None = None
        self.every = 1
        self.recent: dict[float, tuple[np.ndarray, np.ndarray]] = {}  # stamp -> (q, r)

    def state(self, stamp, q, qd, tau):
        if not (np.isfinite(q).all() and np.isfinite(qd).all() and np.isfinite(tau).all()):
            return  # a non-finite state is no measurement; the next one is a gap
        scan = self.scan
        self.t0 = stamp if self.t0 is None else self.t0
        r = self.observer.update(stamp, q, qd, tau)
        scan.effort_seen |= bool(tau.any())
        np.maximum(scan.peak, np.abs(r), out=scan.peak)
        if self.detector is not None:
            found = self.detector.update(stamp - self.t0, r)
            if found is not None:
                scan.contacts.append(found)
        if scan.samples % self.every == 0:
            scan.trace_t.append(stamp - self.t0)
            scan.trace_r.append(r.copy())
        scan.samples += 1
        scan.duration = stamp - self.t0
        if scan.truth is not None:
            self.recent[stamp] = (q, r.copy())
            if len(self.recent) > 50:
                del self.recent[next(iter(self.recent))]

    def truth(self, stamp, tau_ext):
        seen = self.recent.pop(stamp, None)
        if seen is None or self.t0 is None or self.scan.truth is None:
            return
        q, r = seen
        t = stamp - self.t0
        self.scan.truth.add(t, r, tau_ext, self.settle)
        onsets = self.scan.truth.onsets
        if self.scan.wrench_at is None and onsets and t >= onsets[0] + self.settle and \
                tau_ext.any():
            self.scan.wrench_at = (t, q, r)


def write_residual_plot(scan: ContactScan, thresholds: np.ndarray | None,
                        path: str | os.PathLike) -> None:
    """One axis per joint: the residual and, given, its threshold band; contacts shaded."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    t, r = np.array(scan.trace_t), np.array(scan.trace_r)
    n = len(scan.joints)
    fig, axes = plt.subplots(n, 1, figsize=(8, 1.5 * n + 1), sharex=True, squeeze=False)
    for j, ax in enumerate(axes[:, 0]):
        ax.plot(t, r[:, j], lw=0.7)
        if thresholds is not None and np.isfinite(thresholds[j]):
            for sign in (-1, 1):
                ax.axhline(sign * thresholds[j], color='red', lw=0.7, ls='--')
        for c in scan.contacts:
            ax.axvspan(c.start, c.end if c.end is not None else t[-1], color='orange',
                       alpha=0.3)
        ax.set_ylabel(f'{scan.joints[j]}\nr [N m]', fontsize=7)
    axes[-1, 0].set_xlabel('t [s] from the first state (state stamps)')
    fig.suptitle('external torque estimate (momentum observer) and thresholds')
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
