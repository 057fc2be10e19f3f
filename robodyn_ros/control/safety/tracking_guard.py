"""The tracking guard: a joint further than max_tracking_error from its reference.

Why a guard: the arm does not do what it is commanded (commands not applied, or a model
far from the arm), and a law that keeps pushing would drive it into its limits once it
does. The reason names the likelier cause: a jump of the joint states accepted just
before (state_jumps: one publisher catching up, or a glitch) is named first.
"""

from collections.abc import Sequence

import numpy as np

__all__ = ['tracking_fault']


def tracking_fault(q_r: np.ndarray, q: np.ndarray, limit: float, names: Sequence[str],
                   jump: str = '') -> str:
    """'' while every |q_r - q| [rad or m] is within ``limit``, else the reason for safe
    mode naming the worst joint; ``jump``: SafetySupervisor.recent_jump's text."""
    error = np.abs(q_r - q)
    j = int(np.argmax(error))
    if not error[j] > limit:
        return ''
    if jump:
        cause = (': the joint states jumped (a glitch, or a driver catching up), or the arm '
                 'does not follow the commands')
    else:
        cause = (': the arm does not follow the commands (not applied: a paused simulation, '
                 'an inactive effort controller, a joint not in effort mode; or a model far '
                 'from the arm)')
    return f'tracking error {error[j]:.3g} on {names[j]} above max_tracking_error ' \
           f'{limit:g}{jump}{cause}'
