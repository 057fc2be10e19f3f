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
from ..errors import BagError
from ..io.bag_reader import BagReader
from ..io.cdr import parse_joint_state
from ..model.robot_model import RobotModel

__all__ = ['ContactScan', 'scan_bag', 'write_residual_plot']

#: Samples kept for the plot (one in every len / PLOT_POINTS).
PLOT_POINTS = 20_000


@dataclass
class ContactScan:
    """What the observer saw in a recording.

    Attributes:
        joints: the model's joint names (the order of every array).
        samples: states observed; gaps: state gaps the residual was held across.
        duration: first to last state stamp [s].
        peak: (n,) the largest |r| per joint over the whole run [N m or N].
        contacts: contacts found (empty without thresholds), times from the first state.
        trace_t, trace_r: the residual, decimated, for the plot.
        effort_seen: False when every effort in the recording was zero (a hardware
            interface that does not report it): the residual is then meaningless.
    """

    joints: tuple[str, ...]
    samples: int = 0
    gaps: int = 0
    duration: float = 0.0
    peak: np.ndarray = field(default_factory=lambda: np.zeros(0))
    contacts: list[Contact] = field(default_factory=list)
    trace_t: list[float] = field(default_factory=list)
    trace_r: list[np.ndarray] = field(default_factory=list)
    effort_seen: bool = False


class _StateOrder:
    """Position, velocity and effort of one JointState in the model's joint order."""

    def __init__(self, model: RobotModel, topic: str):
        self.joints, self.topic = model.joint_names, topic
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
        if len(vel) != len(names) or len(eff) != len(names):
            raise BagError(f'{self.topic}: states need a velocity and an effort per joint '
                           f'(got {len(vel)} velocities, {len(eff)} efforts for '
                           f'{len(names)} joints): the observer needs both')
        i = self._index
        return stamp, pos[i], vel[i], eff[i]


def scan_bag(bag_path: str | os.PathLike, model: RobotModel, dyn: RigidBodyDynamics,
             observer: ObserverSettings, collision: CollisionSettings | None = None,
             state_topic: str = '/joint_states') -> ContactScan:
    """Run the observer (and, with ``collision``, the detector) over a bag's states."""
    obs = MomentumObserver(dyn, observer)
    detector = CollisionDetector(collision) if collision is not None else None
    order = _StateOrder(model, state_topic)
    scan = ContactScan(model.joint_names, peak=np.zeros(model.n))
    with BagReader(bag_path) as bag:
        bag.require(state_topic, 'state')
        every = max(1, bag.counts.get(state_topic, 0) // PLOT_POINTS)
        t0 = None
        for _, _, _, raw in bag.messages([state_topic]):
            stamp, q, qd, tau = order(raw)
            if not (np.isfinite(q).all() and np.isfinite(qd).all() and np.isfinite(tau).all()):
                continue  # a non-finite state is no measurement; the next one is a gap
            t0 = stamp if t0 is None else t0
            r = obs.update(stamp, q, qd, tau)
            scan.effort_seen |= bool(tau.any())
            np.maximum(scan.peak, np.abs(r), out=scan.peak)
            if detector is not None:
                found = detector.update(stamp - t0, r)
                if found is not None:
                    scan.contacts.append(found)
            if scan.samples % every == 0:
                scan.trace_t.append(stamp - t0)
                scan.trace_r.append(r.copy())
            scan.samples += 1
            scan.duration = stamp - t0
    if scan.samples < 2:
        raise BagError(f'{state_topic}: {scan.samples} usable states; the observer needs two')
    scan.gaps = obs.gaps
    return scan


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
