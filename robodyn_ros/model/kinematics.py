"""Input validation for joint vectors and forward kinematics helpers."""

import numpy as np

from ..errors import InputError

__all__ = ['check_vector', 'check_q']


def check_vector(value, n, name='q'):
    """Return ``value`` as a finite float (n,) array or raise :class:`InputError`.

    The message names the argument and the shapes: "q: expected (7,), got (6,)".
    """
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f'{name}: expected ({n},) numbers, got {type(value).__name__}') from None
    if arr.shape != (n,):
        raise InputError(f'{name}: expected ({n},), got {arr.shape}')
    if not np.all(np.isfinite(arr)):
        bad = [int(i) for i in np.flatnonzero(~np.isfinite(arr))]
        raise InputError(f'{name}: non-finite values at indices {bad}')
    return arr


def check_q(model, q):
    """Validate a joint-position vector against a model's number of joints."""
    return check_vector(q, model.n, 'q')
