"""rosbag2 input/output: streaming reader, writer, CDR codecs, batched JointState decoding.

No rclpy here: bags are read and written with rosbags.
"""

from .bag_reader import BagReader
from .bag_writer import BagWriter, typestore
from .cdr import encode_joint_state, float64_multi_array, parse_joint_state
from .joint_state_batch import JointStateBatch

__all__ = ['BagReader', 'BagWriter', 'JointStateBatch', 'encode_joint_state',
           'float64_multi_array', 'parse_joint_state', 'typestore']
