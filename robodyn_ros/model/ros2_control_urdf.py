"""Add a <ros2_control> block (effort command interfaces) and the gz_ros2_control plugin
to a URDF, for Gazebo (gz sim) bringup. Pure string/XML processing, no ROS imports."""

import xml.etree.ElementTree as ET

from ..errors import UrdfError
from .urdf import read_urdf_source

__all__ = ['add_ros2_control']


def add_ros2_control(source, joints, controllers_yaml,
                     plugin='gz_ros2_control/GazeboSimSystem'):
    """URDF XML with a ros2_control system exposing effort commands and
    position/velocity/effort states for ``joints``, plus the Gazebo plugin loading
    ``controllers_yaml``. An existing <ros2_control> block is kept as is."""
    xml = read_urdf_source(source)
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise UrdfError(f'invalid URDF XML: {exc}') from None
    if root.find('ros2_control') is not None:
        return xml
    known = {j.get('name') for j in root.findall('joint')}
    missing = [j for j in joints if j not in known]
    if missing:
        raise UrdfError(f'joints {missing} are not in the URDF')
    control = ET.SubElement(root, 'ros2_control', name='RobodynEffortSystem', type='system')
    hardware = ET.SubElement(control, 'hardware')
    ET.SubElement(hardware, 'plugin').text = plugin
    for name in joints:
        joint = ET.SubElement(control, 'joint', name=name)
        ET.SubElement(joint, 'command_interface', name='effort')
        for interface in ('position', 'velocity', 'effort'):
            ET.SubElement(joint, 'state_interface', name=interface)
    gazebo = ET.SubElement(root, 'gazebo')
    gz_plugin = ET.SubElement(gazebo, 'plugin', filename='gz_ros2_control-system',
                              name='gz_ros2_control::GazeboSimROS2ControlPlugin')
    ET.SubElement(gz_plugin, 'parameters').text = str(controllers_yaml)
    return ET.tostring(root, encoding='unicode')
