"""rosbag2 input/output: streaming reader, writer, CDR codecs, batched JointState decoding;
ROS 2 parameter files rcl can parse.

No rclpy here: bags are read and written with rosbags.

The names below are imported when first used (PEP 562), not with the package: the
controller's process needs only the CDR codecs (``io.cdr``), and importing the bag
reader and writer with them (rosbags, ruamel) cost every controller start about 50 ms.
"""

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .bag_reader import BagReader
    from .bag_writer import BagWriter, typestore
    from .cdr import encode_joint_state, float64_multi_array, parse_joint_state
    from .joint_state_batch import JointStateBatch
    from .params_yaml import dump_parameters

__all__ = ['BagReader', 'BagWriter', 'JointStateBatch', 'dump_parameters', 'encode_joint_state',
           'float64_multi_array', 'parse_joint_state', 'typestore']

#: The module of each exported name.
_HOMES = {'BagReader': 'bag_reader', 'BagWriter': 'bag_writer', 'typestore': 'bag_writer',
          'encode_joint_state': 'cdr', 'float64_multi_array': 'cdr',
          'parse_joint_state': 'cdr', 'JointStateBatch': 'joint_state_batch',
          'dump_parameters': 'params_yaml'}


def __getattr__(name: str):
    """An exported name, imported from its module at first use."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    value = getattr(import_module(f'.{home}', __name__), name)
    globals()[name] = value
    return value
