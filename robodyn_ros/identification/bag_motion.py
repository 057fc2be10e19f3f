"""Motion and torques for identification from a rosbag2: /joint_states positions and the
measured effort, or, when the states carry none, the commanded effort (held between
commands), said in the result."""

import numpy as np

from ..defaults import JOINT_STATES
from ..errors import BagError, InputError
from ..io import BagReader, JointStateBatch, float64_multi_array

__all__ = ['motion_from_bag']


def motion_from_bag(path, joints, state_topic='/' + JOINT_STATES, command_topic=None):
    """(t [s], q (m, n), tau (m, n), 'measured' or 'commanded <topic>').

    Raises:
        InputError: no effort in the states and no command topic to fall back on.
    """
    batch = JointStateBatch(list(joints))
    commands = []
    with BagReader(path) as bag:
        bag.require(state_topic, 'state')
        command_topic = command_topic or bag.effort_command_topic()
        topics = [state_topic] + ([command_topic] if command_topic else [])
        for topic, _, stamp_ns, raw in bag.messages(topics):
            if topic == state_topic:
                batch.add(raw, stamp_ns)
            else:
                commands.append((stamp_ns * 1e-9, float64_multi_array(raw)))
    if not len(batch):
        raise BagError(f'{state_topic} has no messages')
    states = batch.take()
    if not len(states.t):
        raise InputError(f"identify: no message on {state_topic} names all the chain's joints "
                         f'{list(joints)}; wrong --robot or --tip?')
    if np.all(np.isfinite(states.effort)):
        return states.t, states.q, states.effort, 'measured'
    if not commands:
        raise InputError(f'identify: {state_topic} carries no effort and the bag has no '
                         'effort command topic (std_msgs/Float64MultiArray */commands)')
    times = np.array([c[0] for c in commands])
    values = np.array([c[1] for c in commands])
    if values.ndim != 2 or values.shape[1] != len(joints):
        raise InputError(f'identify: commands on {command_topic} do not have {len(joints)} '
                         'values')
    index = np.searchsorted(times, states.t, side='right') - 1
    ok = index >= 0
    return states.t[ok], states.q[ok], values[index[ok]], f'commanded ({command_topic})'
