"""A recorded stream of tool pose targets (geometry_msgs/PoseStamped) read from a rosbag2:
what a policy or a teleoperator sent, to be sent again (RobodynClient.replay_poses).

Why a stream of its own: a replay needs the messages' timing (the bag's receive times, the
header stamps of a policy are often zero) and their values as plain arrays, without ROS.
Nothing is checked here beyond being a PoseStamped: the controller checks each target at
its boundary as it would the original (a NaN or another frame is refused there, and said).
"""

from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..errors import BagError

__all__ = ['MAX_POSES', 'PoseStream', 'read_pose_stream']

POSE_TYPE = 'geometry_msgs/msg/PoseStamped'
#: The most poses a stream holds (an hour at 30 Hz is 108 000): a larger topic is refused.
MAX_POSES = 200_000


class PoseStream(NamedTuple):
    """``times`` (k,) [s] from the first message (the bag's receive times), ``positions``
    (k, 3) [m] and ``quaternions`` (k, 4) (x, y, z, w) as sent, ``frame_ids`` (k,), and the
    ``topic`` they came from."""

    times: np.ndarray
    positions: np.ndarray
    quaternions: np.ndarray
    frame_ids: tuple[str, ...]
    topic: str


def _topic(bag, topic: str | None) -> str:
    poses = sorted(t for t, m in bag.topics.items() if m == POSE_TYPE)
    if topic is not None:
        bag.require(topic, 'pose stream')
        if bag.topics[topic] != POSE_TYPE:
            raise BagError(f'pose stream topic {topic!r} is {bag.topics[topic]}, not '
                           f'{POSE_TYPE}')
        return topic
    targets = [t for t in poses if t.endswith('target_pose')]
    if len(targets) == 1 or len(poses) == 1:
        return (targets or poses)[0]
    raise BagError(f'{len(poses)} PoseStamped topics in the bag ({", ".join(poses) or "none"})'
                   f': name one (topic=...)')


def read_pose_stream(path: str | Path, topic: str | None = None) -> PoseStream:
    """The PoseStamped messages on ``topic`` of the bag at ``path`` (None: its only
    PoseStamped topic, or its only ``*target_pose`` one). BagError, one line, when the bag
    cannot be read, has no such topic, or holds none or more than MAX_POSES poses."""
    from .bag_reader import BagReader
    with BagReader(path) as bag:
        name = _topic(bag, topic)
        if bag.counts.get(name, 0) > MAX_POSES:
            raise BagError(f'{name}: {bag.counts[name]} poses, more than {MAX_POSES}')
        stamps, values, frames = [], [], []
        for _, msgtype, stamp, raw in bag.messages([name]):
            msg = bag.store.deserialize_cdr(raw, msgtype)
            p, o = msg.pose.position, msg.pose.orientation
            stamps.append(stamp)
            values.append((p.x, p.y, p.z, o.x, o.y, o.z, o.w))
            frames.append(msg.header.frame_id)
    if not values:
        raise BagError(f'{name}: no poses in the bag')
    data = np.array(values, dtype=float)
    times = (np.array(stamps, dtype=np.int64) - stamps[0]) * 1e-9
    return PoseStream(times, data[:, :3], data[:, 3:], tuple(frames), name)
