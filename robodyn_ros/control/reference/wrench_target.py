"""A tool wrench target (``~/target_wrench``) as the task-space laws' feed-forward wrench.

A task at the tool (pressing on a surface, an insertion, a teleoperator's haptic channel)
asks the arm to exert a wrench F_ff = [f; m] at the tool point besides its spring:
cartesian_impedance and operational_space add J^T F_ff (J the tool point's geometric
Jacobian at q, seed 000 eqs. 23-24), so that at rest against a surface the tool pushes on
it with F_ff, and in free space it moves by K_x^-1 F_ff off its target.

What the laws receive is never the message itself but a wrench that follows it within
bounds a robot engineer sets:

1. :func:`wrench_target` checks a wrench at the boundary: finite, in the chain's base frame
   (or no frame), its force and moment each scaled down to at most ``max_force`` [N] and
   ``max_torque`` [N m] (and said so), rotated into DH frame 0.
2. :class:`WrenchFeed` moves the applied wrench towards the last accepted one by at most
   ``max_force / rise_time`` [N/s] and ``max_torque / rise_time`` [N m/s] (along the
   difference, so the direction of a change is kept), and towards zero once the last
   target is older than ``timeout`` [s] (a sender that stops must not leave the arm
   pushing). It starts from zero at every start of commanding, and a law that takes no
   wrench (a joint-space law) refuses every target.

Times are those of the cycle's clock (simulated time in simulation): a target is stamped
when it arrives, on the clock the cycle runs on.
"""

from typing import NamedTuple

import numpy as np

from ...errors import InputError

__all__ = ['APPLYING', 'SCALED', 'TIMED_OUT', 'WrenchBounds', 'WrenchFeed', 'wrench_target']

#: What /diagnostics' target_wrench says of a wrench taken, scaled down, or no longer
#: applied (the C++ controller's words: wrench_target_input.cpp).
APPLYING, SCALED = 'applying', 'scaled down to max_force, max_torque'
TIMED_OUT = 'timed out: no target within wrench.timeout, ramped to zero'
#: The longest step one cycle may ramp over [s]: after a pause (a hold, a late cycle) the
#: applied wrench moves as if this much time had passed, not the whole pause.
MAX_STEP = 0.01


class WrenchBounds(NamedTuple):
    """How a target wrench may be applied: ``max_force`` [N] and ``max_torque`` [N m] the
    largest force and moment (norms), ``rise_time`` [s] the time from zero to those,
    ``timeout`` [s] the age at which the last target stops being applied."""

    max_force: float
    max_torque: float
    rise_time: float
    timeout: float


def _scaled(v: np.ndarray, limit: float) -> tuple[np.ndarray, bool]:
    norm = float(np.linalg.norm(v))
    return (v * (limit / norm), True) if norm > limit else (v, False)


def wrench_target(force, torque, frame_id: str, base_link: str, base: np.ndarray,
                  bounds: WrenchBounds) -> tuple[np.ndarray, bool]:
    """(F_ff (6,) [N, N m] in DH frame 0, whether it was scaled down) of ``force`` and
    ``torque`` (3,) at the tool point in frame ``frame_id`` ('' or ``base_link``; ``base``:
    DH frame 0 in the base link, DHTable.base). InputError, one line, when not finite or
    in another frame."""
    f, m = np.array(force, dtype=float), np.array(torque, dtype=float)
    if f.shape != (3,) or m.shape != (3,) or not (np.all(np.isfinite(f)) and
                                                  np.all(np.isfinite(m))):
        raise InputError(f'target wrench not finite: force {f.tolist()}, torque '
                         f'{m.tolist()}')
    if frame_id not in ('', base_link):
        raise InputError(f"target wrench in frame '{frame_id}': wrenches are in the chain's "
                         f"base frame '{base_link}'")
    f, cut_f = _scaled(f, bounds.max_force)
    m, cut_m = _scaled(m, bounds.max_torque)
    to_frame0 = np.asarray(base, dtype=float)[:3, :3].T
    return np.concatenate([to_frame0 @ f, to_frame0 @ m]), cut_f or cut_m


class WrenchFeed:
    """A core's wrench input (module docstring): :meth:`take` on arrival, :meth:`value`
    once per commanded cycle, :meth:`reset` when commanding stops. ``status`` says what
    the last target did ('none' before any). Not thread-safe: the control thread's.

    Args:
        bounds: WrenchBounds.
        base_link, base: the chain's base link and DH frame 0 in it (DHTable.base).
        accepts: whether the law takes a wrench (the task-space laws).
    """

    def __init__(self, bounds: WrenchBounds, base_link: str, base: np.ndarray,
                 accepts: bool):
        self.bounds, self.base_link, self.base = bounds, base_link, base
        self.accepts = accepts
        self.rate = np.array([bounds.max_force, bounds.max_torque]) / bounds.rise_time
        self.target = np.zeros(6)
        self.applied = np.zeros(6)
        self.stamp: float | None = None  # when the last target came [s]
        self.last: float | None = None  # the last cycle's time [s]
        self.status = 'none'

    def take(self, now: float, force, torque, frame_id: str) -> tuple[bool, str]:
        """The target wrench that came at ``now`` [s]: (taken, what it did)."""
        if not self.accepts:
            self.status = 'refused: the law takes no wrench (a task-space mode does)'
            return False, self.status
        try:
            wrench, cut = wrench_target(force, torque, frame_id, self.base_link, self.base,
                                        self.bounds)
        except InputError as exc:
            self.status = f'refused: {exc}'
            return False, self.status
        self.target, self.stamp = wrench, now
        self.status = SCALED if cut else APPLYING
        return True, self.status

    def value(self, now: float) -> np.ndarray | None:
        """The wrench (6,) to apply in the cycle at ``now`` [s], DH frame 0, or None while
        none is applied (no target, or ramped back to zero after the timeout)."""
        if self.stamp is None:
            return None
        step = 0.0 if self.last is None else min(max(now - self.last, 0.0), MAX_STEP)
        self.last = now
        target = self.target
        if now - self.stamp > self.bounds.timeout:
            target = np.zeros(6)
            if self.status in (APPLYING, SCALED):
                self.status = TIMED_OUT
        for part, rate in ((slice(0, 3), self.rate[0]), (slice(3, 6), self.rate[1])):
            change = target[part] - self.applied[part]
            self.applied[part] += _scaled(change, rate * step)[0]
        if not self.applied.any() and not target.any():
            self.stamp = None  # timed out and ramped down: nothing to apply
            return None
        return self.applied

    def applied_text(self) -> str:
        """/diagnostics' applied_wrench: the wrench applied in the last cycle in the base
        link frame, 'fx fy fz [N] mx my mz [N m]', or 'none'."""
        if self.stamp is None:
            return 'none'
        rot = np.asarray(self.base, dtype=float)[:3, :3]
        values = np.concatenate([rot @ self.applied[:3], rot @ self.applied[3:]])
        return ' '.join(f'{v:.3f}' for v in values)

    def reset(self) -> None:
        """Commanding stopped: the next target starts from zero."""
        self.target[:] = 0.0
        self.applied[:] = 0.0
        self.stamp = self.last = None
