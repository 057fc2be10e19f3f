"""Collision detection on the momentum observer's residual: per-joint thresholds and a
debounce in samples, and what the controller does on a detection.

A joint is over its threshold when |r_j| > threshold_j. A contact starts when at least one
joint has been over its threshold for ``debounce`` consecutive samples (the first of them
is the contact's start), and ends at the first sample where no joint is over. Thresholds
come from a collision-free recording (:func:`derive_thresholds`): the residual's largest
magnitude there is what the model's error, the sensors' noise and the filter leave in r
without a contact, times a margin.
"""

from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError

__all__ = ['CollisionDetector', 'CollisionSettings', 'Contact', 'Reaction',
           'derive_thresholds']


class Reaction(StrEnum):
    """What the controller does on a detection."""

    HOLD = 'hold'  # the position hold at the detection point (latched, as any trip)
    COMPLIANT = 'compliant'  # gravity, friction and damping only: the arm yields
    REPORT = 'report'  # keep going; diagnostics only


@dataclass(frozen=True)
class CollisionSettings:
    """thresholds: (n,) [N m or N], each > 0 (inf: the joint never detects); debounce:
    consecutive samples over threshold before a contact is declared (1: at once)."""

    thresholds: np.ndarray
    debounce: int = 3
    reaction: Reaction = Reaction.HOLD

    def __post_init__(self):
        th = np.asarray(self.thresholds, dtype=float)
        if th.ndim != 1 or th.size == 0 or np.isnan(th).any() or (th <= 0).any():
            raise InputError(f'collision thresholds must be a list of numbers > 0 [N m], one '
                             f'per joint, got {np.asarray(self.thresholds).tolist()}')
        if not (isinstance(self.debounce, (int, np.integer)) and 1 <= self.debounce <= 1000):
            raise InputError(f'collision debounce must be an integer within [1, 1000] '
                             f'samples, got {self.debounce!r}')
        try:
            reaction = Reaction(self.reaction)
        except ValueError:
            raise InputError(f'collision reaction {self.reaction!r} is not one of '
                             f'{", ".join(r.value for r in Reaction)}') from None
        object.__setattr__(self, 'thresholds', th)
        object.__setattr__(self, 'reaction', reaction)


@dataclass
class Contact:
    """One contact: start and end [s] (end None while it lasts), the joints over threshold
    at any time in it (chain indices) and each joint's peak |r| [N m or N] in it."""

    start: float
    joints: set[int] = field(default_factory=set)
    peak: dict[int, float] = field(default_factory=dict)
    end: float | None = None
    detected: float = 0.0  # when the debounce completed [s]


class CollisionDetector:
    """Feed r sample by sample; :attr:`contact` is the contact in progress, if any."""

    def __init__(self, settings: CollisionSettings):
        self.settings = settings
        self._over = np.zeros(settings.thresholds.size, dtype=bool)
        self._count = 0
        self._first = 0.0
        self.contact: Contact | None = None

    def update(self, stamp: float, r: np.ndarray) -> Contact | None:
        """Advance to sample ``stamp`` [s] with residual ``r`` (n,); returns the contact when
        it is declared on this sample (once per contact), else None."""
        np.greater(np.abs(r), self.settings.thresholds, out=self._over)
        if not self._over.any():
            if self.contact is not None:
                self.contact.end = stamp
            self.contact, self._count = None, 0
            return None
        if self._count == 0:
            self._first = stamp
        self._count += 1
        contact = self.contact
        if contact is None and self._count >= self.settings.debounce:
            contact = self.contact = Contact(self._first, detected=stamp)
            self._note(contact, r)
            return contact
        if contact is not None:
            self._note(contact, r)
        return None

    def _note(self, contact: Contact, r: np.ndarray) -> None:
        for j in np.flatnonzero(self._over).tolist():
            contact.joints.add(j)
            contact.peak[j] = max(contact.peak.get(j, 0.0), abs(float(r[j])))


def derive_thresholds(peak: ArrayLike, margin: float, floor: float = 0.1) -> np.ndarray:
    """Per-joint thresholds from a collision-free run's largest |r| per joint: peak x
    margin, at least ``floor`` [N m] (a joint the run never moved still has noise)."""
    if not (np.isfinite(margin) and 1.0 <= margin <= 100.0):
        raise InputError(f'threshold margin must be within [1, 100], got {margin}')
    peak = np.asarray(peak, dtype=float)
    if not np.isfinite(peak).all():
        raise InputError('the residual is not finite: no thresholds derived')
    return np.maximum(peak * margin, floor)
