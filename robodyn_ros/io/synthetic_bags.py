"""Synthetic rosbag2 bags with known tracking errors (tests and the validation benchmark).

JointState messages are encoded directly in CDR (robodyn_ros.io.cdr), so that writing
millions of them stays fast.
"""

import numpy as np

from ..defaults import JOINT_STATES, REFERENCE_TOPIC
from .bag_writer import BagWriter
from .cdr import encode_joint_state

__all__ = ['write_tracking_bag']

STATES = '/' + JOINT_STATES


def write_tracking_bag(path, storage='mcap', duration=10.0, rate=1000.0, joints=None,
                       amplitude=0.01, period=0.1, error_joint=1, ref_offset=0.00037,
                       drop_state_every=10, drop_ref_every=7, reorder=True, seed=0,
                       t_base=1000.0):
    """Write a bag whose reference minus measured error is A sin(2 pi t / T) on one joint.

    States are stamped at t_base + k / rate; references at that + ``ref_offset``; every
    ``drop_state_every``-th state (index k % N == N - 1) and every ``drop_ref_every``-th
    reference are dropped; state joint names are shuffled per message when ``reorder``.

    Returns:
        dict(rms, max_abs, joints, error_joint, states, references): the analytic values.
    """
    joints = joints or [f'joint_{i}' for i in range(1, 8)]
    n = len(joints)
    rng = np.random.default_rng(seed)
    bag = BagWriter(path, storage)
    bag.add_topic(STATES, 'sensor_msgs/msg/JointState')
    bag.add_topic(REFERENCE_TOPIC, 'sensor_msgs/msg/JointState')
    steps = int(round(duration * rate))
    base_amp = np.linspace(0.3, 0.5, n)
    base_w = 2 * np.pi / np.linspace(2.0, 5.0, n)

    def ref(t):
        return base_amp * np.sin(base_w * t), base_amp * base_w * np.cos(base_w * t)

    perms = [rng.permutation(n) for _ in range(16)] if reorder else [np.arange(n)]
    errs = []
    states = refs = 0
    for k in range(-1, steps + 1):  # references bracket every state
        t = k / rate
        tr = t + ref_offset
        if drop_ref_every and k % drop_ref_every == drop_ref_every - 1 and 0 < k < steps - 1:
            pass
        else:
            q_r, qd_r = ref(tr)
            bag.write(REFERENCE_TOPIC, int((t_base + tr) * 1e9),
                      encode_joint_state(t_base + tr, joints, q_r, qd_r, np.zeros(n)))
            refs += 1
        if k < 0 or k >= steps or (drop_state_every
                                    and k % drop_state_every == drop_state_every - 1):
            continue
        q_r, qd_r = ref(t)
        e = np.zeros(n)
        e[error_joint] = amplitude * np.sin(2 * np.pi * t / period)
        q = q_r - e
        perm = perms[k % len(perms)]
        bag.write(STATES, int((t_base + t) * 1e9) + 1000,
                  encode_joint_state(t_base + t, [joints[i] for i in perm], q[perm],
                                     qd_r[perm], np.zeros(n)))
        errs.append(e[error_joint])
        states += 1
    bag.close()
    error = np.asarray(errs)
    return dict(rms=float(np.sqrt(np.mean(error ** 2))), max_abs=float(np.abs(error).max()),
                analytic_rms=amplitude / np.sqrt(2), analytic_max=amplitude, joints=joints,
                error_joint=joints[error_joint], states=states, references=refs)
