"""The nodes' parameters: declared with their descriptions, and the robot they name (a
robot_description, a URDF or xacro file, or a bundled robot) loaded into a RobotModel."""

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from ..control.parameters import ROBOT_PARAMETERS
from ..errors import ConfigError
from ..model import load_robot

__all__ = ['declare', 'declare_robot', 'model_from_parameters', 'robot_named',
           'ROBOT_DESCRIPTION_QOS']

ROBOT_DESCRIPTION_QOS = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                                   reliability=ReliabilityPolicy.RELIABLE)


def declare(node, name, default, description, dynamic=False, read_only=True):
    """Declare a parameter (read-only unless said) with a description; return its value.

    ``dynamic``: accept any type (numbers: an integer where a float is meant; the caller
    validates the value).
    """
    node.declare_parameter(name, default, ParameterDescriptor(
        description=description, read_only=read_only, dynamic_typing=dynamic))
    return node.get_parameter(name).value


def declare_robot(node):
    """Declare where the robot's description comes from (ROBOT_PARAMETERS:
    robot_description, urdf_file, robot, base_link, tip_link, xacro_args)."""
    for parameter in ROBOT_PARAMETERS:
        declare(node, parameter.name, parameter.default, parameter.description, True)


def model_from_parameters(node, xml=None):
    """RobotModel from robot_description (or ``xml``), urdf_file or robot (URDF or xacro,
    with ``xacro_args``; ``effort_limits`` when the node declares it); None if none set."""
    get = _string_parameter(node)
    source = xml or get('robot_description') or get('urdf_file') or get('robot')
    if not source:
        return None
    mappings = node.get_parameter('xacro_args').value or []
    if isinstance(mappings, str):
        mappings = mappings.split()
    if not isinstance(mappings, (list, tuple)) or \
            not all(isinstance(m, str) and ':=' in m for m in mappings):
        raise ConfigError(f"xacro_args: expected 'name:=value' strings, got {mappings!r}")
    # The controller checked effort_limits (ControllerConfig) before loading the model.
    effort = node.get_parameter('effort_limits').value \
        if node.has_parameter('effort_limits') else None
    return load_robot(source, get('base_link') or None, get('tip_link') or None,
                      mappings=list(mappings), effort_limits=list(effort) if effort else None)


def _string_parameter(node):
    """get(name) -> the string parameter's value; ConfigError naming a non-string."""
    def get(name):
        value = node.get_parameter(name).value
        if value is None:
            return ''
        if not isinstance(value, str):
            raise ConfigError(f'{name}: expected a string, got {value!r}')
        return value
    return get


def robot_named(node):
    """True when a parameter names the robot (no robot_description topic needed)."""
    return any(isinstance(node.get_parameter(k).value, str) and node.get_parameter(k).value
               for k in ('robot_description', 'urdf_file', 'robot'))
