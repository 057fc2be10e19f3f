"""rosbag2 input/output: streaming reader, writer, CDR codecs, batched JointState decoding;
ROS 2 parameter files rcl can parse.

No rclpy here: bags are read and written with rosbags.
"""

from .bag_reader import BagReader
from .bag_writer import BagWriter, typestore
from .cdr import encode_joint_state, float64_multi_array, parse_joint_state
from .joint_state_batch import JointStateBatch
from .params_yaml import dump_parameters

__all__ = ['BagReader', 'BagWriter', 'JointStateBatch', 'dump_parameters', 'encode_joint_state',
           'float64_multi_array', 'parse_joint_state', 'typestore']
