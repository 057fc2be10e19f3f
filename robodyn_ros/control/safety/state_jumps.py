"""A joint state beyond reach of the last valid one: a glitch, a lagging stream, or two
sources that disagree.

Why three verdicts: with two or more publishers of the joint states (or an unknown number)
a single jump is a glitch (the state is rejected), and JUMPS_TO_FAULT of them within
JUMP_WINDOW seconds are two sources that disagree: safe mode, latched, on an untrusted
state (neither may drive the arm). With one publisher there is no other source: its stamps
lag its motion (a starved driver catching up), and its state is the only one of the arm:
accepted (the velocity guard still reads its velocities), the lag said as a WARN event.
"""

from ..events import EventKind, emit
from ..levels import Level
from .kernels import JUMP_TOLERANCE, position_jump

__all__ = ['JUMPS_TO_FAULT', 'JUMP_WINDOW', 'judge_jump']

#: This many position jumps within JUMP_WINDOW [s]: two joint_states sources disagree.
JUMPS_TO_FAULT, JUMP_WINDOW = 3, 1.0


def judge_jump(sup, now, q, names, elapsed, publishers=None) -> str:
    """The verdict on state ``q`` received at ``now`` [s], ``elapsed`` [s] after the
    supervisor ``sup``'s last valid state (kernels.position_jump at its velocity guard):
    '' (within reach, or a lagging single stream: accepted), else the reason to reject it
    (``sup`` latched when it is the JUMPS_TO_FAULT-th within JUMP_WINDOW). ``names``: the
    chain's joints; ``publishers``: how many publish the states (None: unknown)."""
    j = position_jump(q, sup.q_valid, sup.limits.velocity, sup.wrap, elapsed, JUMP_TOLERANCE)
    if j < 0:
        return ''
    text = (f'joint {names[j]} jumped {q[j] - sup.q_valid[j]:+.4g} in '
            f'{elapsed * 1e3:.1f} ms, beyond its velocity guard')
    if publishers == 1:
        emit(sup.events, EventKind.LAGGING_STREAM, Level.WARN,
             f"{text}: accepted, the one joint_states publisher's stamps lag its "
             'motion (a starved driver catching up?)')
        sup.accepted_jump = (now, text)  # a guard it trips next names it (JUMP_WINDOW)
        return ''
    sup.jumps.append(now)
    if len(sup.jumps) == JUMPS_TO_FAULT and now - sup.jumps[0] < JUMP_WINDOW and \
            not (sup.state == 'safe' and sup.latched):
        sup.fault(now, f'{JUMPS_TO_FAULT} joint states within {JUMP_WINDOW:g} s jumped '
                       'beyond the velocity guard: two joint_states publishers that '
                       f'disagree ({publishers or "an unknown number of"} publishers; '
                       f'{text})', latch=True, trusted=False)
    return text
