"""Helpers shared by the nodes: parameter declaration and model loading."""

from builtin_interfaces.msg import Time
from rcl_interfaces.msg import ParameterDescriptor
import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from ..errors import RobodynError
from ..model import load_urdf
from ..robots import robot_path

__all__ = ['declare', 'declare_robot', 'model_from_parameters', 'ROBOT_DESCRIPTION_QOS',
           'run_node', 'to_time']

ROBOT_DESCRIPTION_QOS = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                                   reliability=ReliabilityPolicy.RELIABLE)


def declare(node, name, default, description):
    """Declare a parameter with a description and return its value."""
    node.declare_parameter(name, default, ParameterDescriptor(description=description))
    return node.get_parameter(name).value


def declare_robot(node):
    """Declare robot_description / urdf_file / robot / base_link / tip_link."""
    declare(node, 'robot_description', '', 'URDF XML (as robot_state_publisher gets it)')
    declare(node, 'urdf_file', '', 'URDF file path (used when robot_description is empty)')
    declare(node, 'robot', '', 'named robot (panda, ur5, three_link, ...) as a fallback')
    declare(node, 'base_link', '', 'chain base link (default: URDF root)')
    declare(node, 'tip_link', '', 'chain tip link (default: unique deepest leaf)')


def model_from_parameters(node, xml=None):
    """RobotModel from robot_description (or ``xml``), urdf_file or robot; None if none set."""
    get = node.get_parameter
    base = get('base_link').value or None
    tip = get('tip_link').value or None
    source = xml or get('robot_description').value or get('urdf_file').value
    if not source and get('robot').value:
        source, rbase, rtip = robot_path(get('robot').value)
        base, tip = base or rbase, tip or rtip
    if not source:
        return None
    return load_urdf(source, base, tip)


def to_time(seconds):
    """builtin_interfaces/Time from seconds."""
    sec = int(seconds // 1)
    return Time(sec=sec, nanosec=min(int(round((seconds - sec) * 1e9)), 999_999_999))


def run_node(factory, name, args=None):
    """Standard main(): init, build the node (a RobodynError is one line), spin until
    Ctrl-C / SIGTERM, call the node's ``close()`` if it has one, shut down."""
    rclpy.init(args=args)
    try:
        node = factory()
    except RobodynError as exc:
        print(f'{name}: error: {exc}')
        rclpy.shutdown()
        return 2
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        if hasattr(node, 'close'):
            node.close()
        node.destroy_node()
        if rclpy.ok():
            rclpy.shutdown()
    return 0
