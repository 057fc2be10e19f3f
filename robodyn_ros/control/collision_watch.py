"""The controller's collision watch: the momentum observer fed every cycle with the state
and the torque applied since the previous one, and the detector on its residual.

The applied torque is held until the next state (a zero-order hold), which is what the
observer's discrete form assumes (dynamics/momentum_observer.py). It is the effort the state
reports when it has one per joint (:meth:`CollisionWatch.note_state_effort`: what the hardware
applied since the previous state), else the controller's own previous output (chain order).
The C++ controller writes its output in the same loop as the hardware applies it, so its own
output is what was applied; the node's output reaches the arm through a forward controller
a cycle or more after it is published, and while the command moves at the rate limit its
own output is off the applied torque by that limit times the lag (1.07-1.09 N m read on the
Panda with no contact): the node takes the state's effort.
"""

import numpy as np

from ..dynamics.momentum_observer import MomentumObserver, ObserverSettings
from ..dynamics.rigid_body_dynamics import RigidBodyDynamics
from ..errors import RobodynError
from .collision import CollisionDetector, CollisionSettings, Contact, Reaction
from .controller_config import ControllerConfig
from .events import EventKind, emit
from .levels import Level

__all__ = ['CollisionWatch', 'MAX_STEP']

#: A state further than this from the previous one [s] is a gap the estimate is held across.
MAX_STEP = 0.005


class CollisionWatch:
    """Observer + detector of one controller (None when collision.thresholds is empty)."""

    def __init__(self, dyn: RigidBodyDynamics, settings: CollisionSettings, gain: float,
                 joints: tuple[str, ...]) -> None:
        self.observer = MomentumObserver(dyn, ObserverSettings(gain, MAX_STEP))
        self.detector = CollisionDetector(settings)
        self.settings = settings
        self.joints = joints
        self.applied = np.zeros(dyn.n)  # chain order [N m or N]
        #: the last state's effort when it reported one per joint (chain order), else None
        self.reported: np.ndarray | None = None
        self.source = 'the controller output'  # of the last cycle's applied torque

    @classmethod
    def from_config(cls, dyn: RigidBodyDynamics, config: ControllerConfig,
                    joints: tuple[str, ...]) -> 'CollisionWatch | None':
        """The watch the configuration asks for; ConfigError/InputError naming a bad value."""
        if not config.collision_thresholds:
            return None
        thresholds = config.per_joint('collision_thresholds', dyn.n)
        settings = CollisionSettings(thresholds, config.collision_debounce,
                                     Reaction(config.collision_reaction))
        return cls(dyn, settings, config.collision_gain, joints)

    @property
    def reaction(self) -> Reaction:
        return self.settings.reaction

    def restart(self) -> None:
        """Forget the estimate (a new activation: what was applied before is unknown)."""
        self.observer.reset()
        self.detector.contact = None

    def note_state_effort(self, joint_map, names, effort) -> None:
        """The effort field (``names``' order) of the state about to be cycled: taken as the
        torque applied since the previous state when JointMap.reported_effort finds it
        usable; else the controller's own previous output is."""
        self.reported = joint_map.reported_effort(names, effort)[0]

    def observe(self, stamp: float, q: np.ndarray, qd: np.ndarray,
                detect: bool) -> Contact | None:
        """One cycle: the observer advanced with the torque held since the last state;
        with ``detect``, a contact declared on this state."""
        r = self.observer.update(stamp, q, qd, self.applied)
        return self.detector.update(stamp, r) if detect else None

    def describe(self, contact: Contact) -> str:
        """One line: the joints over their thresholds and their estimates."""
        joints = ', '.join(f'{self.joints[j]} {contact.peak[j]:.3g} N m (threshold '
                           f'{self.settings.thresholds[j]:.3g})' for j in sorted(contact.joints))
        return f'collision: external torque estimate {joints}'

    def react(self, now: float, stamp: float, q: np.ndarray, qd: np.ndarray,
              applied: np.ndarray, supervisor, events: list) -> str:
        """The watch on one cycle's valid state (``stamp`` [s], 0: unset, ``now`` used),
        ``applied`` the controller's output held since the previous state (unless the state
        reported its effort, :meth:`note_state_effort`): a contact while the law
        commands is the reaction (a latched safe mode of ``supervisor``, taking effect next
        cycle as every guard's; or a WARN event in ``events`` with ``report``). Returns
        the contact's line ('' when none); an observer that fails latches safe mode."""
        if self.reported is None:
            self.applied[:] = applied
            self.source = 'the controller output'
        else:
            self.applied[:] = self.reported
            self.source = 'the effort the joint states report'
        try:
            contact = self.observe(stamp if stamp > 0.0 else now, q, qd,
                                   supervisor.commanding)
        except RobodynError as exc:
            supervisor.fault(now, f'collision observer failed: {exc}', latch=True)
            return ''
        if contact is None:
            return ''
        text = self.describe(contact)
        if self.reaction == Reaction.REPORT:
            emit(events, EventKind.COLLISION, Level.WARN, text)
        else:
            supervisor.fault(now, text, latch=True,
                             compliant=self.reaction == Reaction.COMPLIANT)
        return f'{text} (state stamp {stamp:.3f} s)'
