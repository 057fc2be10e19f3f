"""The controller's collision watch: the momentum observer fed every cycle with the state
and the torque applied since the previous one, and the detector on its residual.

The applied torque is the controller's own previous output (chain order): a forward effort
controller or the drive holds it until the next one (a zero-order hold), which is what the
observer's discrete form assumes (dynamics/momentum_observer.py).
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
        ``applied`` the torque held since the previous state: a contact while the law
        commands is the reaction (a latched safe mode of ``supervisor``, taking effect next
        cycle as every guard's; or a WARN event in ``events`` with ``report``). Returns
        the contact's line ('' when none); an observer that fails latches safe mode."""
        self.applied[:] = applied
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
