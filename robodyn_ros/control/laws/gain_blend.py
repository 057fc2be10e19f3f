"""Gains changed while the controller runs: a requested (kp, kd) is blended in over
``gain_ramp_time`` [s] with a raised cosine, so the law's torque changes smoothly (and the
supervisor's rate limit bounds every cycle's step besides). Why a blend and not a swap: a
stiffer spring switched in at once is a torque step of (K1 - K0) e on every joint.

The request comes from the parameter services' thread; the control thread takes it
between two cycles with a non-blocking acquire (it never waits), so the newest request
wins and none is half-read."""

import math
import threading

import numpy as np

from ...errors import InputError

__all__ = ['GainBlend', 'checked_gains']


def checked_gains(n: int, kp, kd) -> tuple[np.ndarray, np.ndarray]:
    """(kp, kd) as (n,) arrays from 1 or n finite values >= 0 each; InputError (a
    ValueError) naming the one that is not. The one check of a law's gains: at
    construction (ControlLaw) and when set while running."""
    out = []
    for name, values in (('kp', kp), ('kd', kd)):
        array = np.asarray(values, dtype=float).ravel()
        if array.size not in (1, n) or not np.all(np.isfinite(array)) or np.any(array < 0):
            raise InputError(f'{name}: expected 1 or {n} finite values >= 0, got '
                             f'{array.tolist()}')
        out.append(np.broadcast_to(array, (n,)).copy())
    return out[0], out[1]


class GainBlend:
    """The pending request and the blend under way for one ControlLaw's kp and kd."""

    def __init__(self):
        self._lock = threading.Lock()
        self._requested: tuple[np.ndarray, np.ndarray] | None = None
        self._blend: tuple | None = None  # (t0, kp0, kd0, kp1, kd1)

    def request(self, kp: np.ndarray, kd: np.ndarray) -> None:
        """New target gains (any thread; checked before: :func:`checked_gains`)."""
        with self._lock:
            self._requested = (kp, kd)

    @property
    def active(self) -> bool:
        """A blend is under way or a request waits."""
        return self._blend is not None or self._requested is not None

    def step(self, now: float, kp: np.ndarray, kd: np.ndarray, duration: float) -> bool:
        """Between cycles at ``now`` [s]: start a waiting request from the gains ``kp``,
        ``kd`` (updated in place), advance the blend; True when they changed."""
        if self._requested is not None and self._lock.acquire(blocking=False):
            try:
                target, self._requested = self._requested, None
            finally:
                self._lock.release()
            if target is not None:
                self._blend = (now, kp.copy(), kd.copy(), *target)
        if self._blend is None:
            return False
        t0, kp0, kd0, kp1, kd1 = self._blend
        s = 1.0 if duration <= 0.0 else min(max((now - t0) / duration, 0.0), 1.0)
        w = 0.5 - 0.5 * math.cos(math.pi * s)
        kp[:] = kp0 + w * (kp1 - kp0)
        kd[:] = kd0 + w * (kd1 - kd0)
        if s >= 1.0:
            self._blend = None
        return True
