"""Named robots: the bundled seed arms and arms from example-robot-data."""

import os
import site
import sys

from .errors import ModelError
from .share import share_dir

__all__ = ['ROBOTS', 'robot_path', 'bundled_urdf_dir', 'example_robot_data_dir',
           'package_share']

# name: (path relative to a robots directory, base_link, tip_link, source)
ROBOTS = {
    'three_link': ('three_link.urdf', None, None, 'bundled'),
    'two_link': ('two_link.urdf', None, None, 'bundled'),
    'rp_arm': ('rp_arm.urdf', None, None, 'bundled'),
    'panda': ('panda_description/urdf/panda.urdf', None, 'panda_hand', 'erd'),
    'ur3': ('ur_description/urdf/ur3_robot.urdf', None, 'tool0', 'erd'),
    'ur5': ('ur_description/urdf/ur5_robot.urdf', None, 'tool0', 'erd'),
    'ur10': ('ur_description/urdf/ur10_robot.urdf', None, 'tool0', 'erd'),
    'kinova': ('kinova_description/robots/kinova.urdf', None, 'j2s6s200_end_effector', 'erd'),
    'double_pendulum': ('double_pendulum_description/urdf/double_pendulum.urdf', None, None,
                        'erd'),
    'double_pendulum_continuous': (
        'double_pendulum_description/urdf/double_pendulum_continuous.urdf', None, None, 'erd'),
    'z1': ('z1_description/urdf/z1.urdf', None, 'link06', 'erd'),
    'xarm7': ('xarm_description/urdf/xarm7.urdf', None, 'link7', 'erd'),
}


def bundled_urdf_dir():
    """Directory of the bundled URDFs (source tree or installed share/robodyn_ros/urdf)."""
    return os.path.join(share_dir(), 'urdf')


def example_robot_data_dir():
    """The example-robot-data robots directory (env ROBODYN_ROBOTS_DIR overrides)."""
    env = os.environ.get('ROBODYN_ROBOTS_DIR')
    if env:
        return env
    roots = [sys.prefix] + site.getsitepackages()
    for root in roots:
        for sub in ('cmeel.prefix/share/example-robot-data/robots',
                    'lib/python3.11/site-packages/cmeel.prefix/share/example-robot-data/robots'):
            path = os.path.join(root, sub)
            if os.path.isdir(path):
                return path
    raise ModelError('example-robot-data not found; pip install example-robot-data '
                     'or set ROBODYN_ROBOTS_DIR')


def package_share(package):
    """Share directory of a package named in ``package://`` URIs, or None: robodyn_ros,
    example-robot-data (pip), else the ament index when ROS is sourced."""
    if package == 'robodyn_ros':
        return share_dir()
    if package == 'example-robot-data':
        try:
            return os.path.dirname(example_robot_data_dir())
        except ModelError:
            return None
    try:
        from ament_index_python.packages import get_package_share_directory
        return get_package_share_directory(package)
    except (ImportError, LookupError, ValueError, OSError):  # OSError: no AMENT_PREFIX_PATH
        return None


def robot_path(name):
    """(description path, base_link, tip_link) of a named robot, or of a path as given."""
    if name in ROBOTS:
        rel, base, tip, source = ROBOTS[name]
        root = bundled_urdf_dir() if source == 'bundled' else example_robot_data_dir()
        return os.path.join(root, rel), base, tip
    if name.endswith(('.urdf', '.xacro')) or os.path.sep in name or \
            name.lstrip().startswith('<') or os.path.isfile(name):
        return name, None, None
    raise ModelError(f'unknown robot {name!r}; valid: {", ".join(ROBOTS)} or a path to a '
                     '.urdf or .xacro file')
