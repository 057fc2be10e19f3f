"""Robot registry: the bundled seed arms and arms from example-robot-data, by name.

``load_robot('panda')`` or ``load_robot('/path/arm.urdf.xacro', tip_link=...)``: one call
from a name or a path to a RobotModel, found in the source tree, after ``colcon build``
and after a pip install alike.
"""

from dataclasses import dataclass
import os
import site
import sys
import sysconfig
from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from ..package_share import share_dir

if TYPE_CHECKING:
    from .robot_model import RobotModel

__all__ = ['RobotSpec', 'ROBOTS', 'PANDA_HOME', 'load_robot', 'robot_path', 'bundled_urdf_dir',
           'example_robot_data_dir', 'package_share']

BUNDLED, EXAMPLE_ROBOT_DATA = 'bundled', 'example-robot-data'
#: The Panda's ready pose (franka's own), the start of its demos, simulations and tests;
#: config/panda.yaml's robodyn_sim.q0 repeats it (a test keeps the two equal).
PANDA_HOME = (0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785)


@dataclass(frozen=True)
class RobotSpec:
    """A named robot: its description file relative to its source's directory, the source
    (``BUNDLED``: this package's urdf/; ``EXAMPLE_ROBOT_DATA``: the pip package), the
    default chain ends (None: the URDF root / the unique deepest leaf) and the home pose
    [rad or m] in chain order (None: none named)."""

    name: str
    path: str
    source: str = BUNDLED
    base_link: str | None = None
    tip_link: str | None = None
    home: tuple[float, ...] | None = None

    def file(self) -> str:
        """Absolute path of the description file."""
        root = bundled_urdf_dir() if self.source == BUNDLED else example_robot_data_dir()
        return os.path.join(root, self.path)


ROBOTS = {spec.name: spec for spec in (
    RobotSpec('three_link', 'three_link.urdf'),
    RobotSpec('two_link', 'two_link.urdf'),
    RobotSpec('rp_arm', 'rp_arm.urdf'),
    RobotSpec('panda', 'panda_description/urdf/panda.urdf', EXAMPLE_ROBOT_DATA,
              tip_link='panda_hand', home=PANDA_HOME),
    RobotSpec('ur3', 'ur_description/urdf/ur3_robot.urdf', EXAMPLE_ROBOT_DATA,
              tip_link='tool0'),
    RobotSpec('ur5', 'ur_description/urdf/ur5_robot.urdf', EXAMPLE_ROBOT_DATA,
              tip_link='tool0'),
    RobotSpec('ur10', 'ur_description/urdf/ur10_robot.urdf', EXAMPLE_ROBOT_DATA,
              tip_link='tool0'),
    RobotSpec('kinova', 'kinova_description/robots/kinova.urdf', EXAMPLE_ROBOT_DATA,
              tip_link='j2s6s200_end_effector'),
    RobotSpec('double_pendulum', 'double_pendulum_description/urdf/double_pendulum.urdf',
              EXAMPLE_ROBOT_DATA),
    RobotSpec('double_pendulum_continuous',
              'double_pendulum_description/urdf/double_pendulum_continuous.urdf',
              EXAMPLE_ROBOT_DATA),
    RobotSpec('z1', 'z1_description/urdf/z1.urdf', EXAMPLE_ROBOT_DATA, tip_link='link06'),
    RobotSpec('xarm7', 'xarm_description/urdf/xarm7.urdf', EXAMPLE_ROBOT_DATA,
              tip_link='link7'),
)}


def bundled_urdf_dir() -> str:
    """Directory of the bundled URDFs (source tree or installed share/robodyn_ros/urdf)."""
    return os.path.join(share_dir(), 'urdf')


def example_robot_data_dir() -> str:
    """The example-robot-data robots directory (env ROBODYN_ROBOTS_DIR overrides)."""
    env = os.environ.get('ROBODYN_ROBOTS_DIR')
    if env:
        return env
    roots = {sys.prefix, sysconfig.get_paths()['purelib'], *site.getsitepackages()}
    for root in sorted(roots):
        for sub in ('share/example-robot-data/robots',
                    'cmeel.prefix/share/example-robot-data/robots'):
            path = os.path.join(root, sub)
            if os.path.isdir(path):
                return path
    raise ModelError('example-robot-data not found; pip install example-robot-data '
                     'or set ROBODYN_ROBOTS_DIR')


def package_share(package: str) -> str | None:
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


def is_description(name: str) -> bool:
    """True when ``name`` is a description itself (a .urdf or .xacro path, any path, or
    URDF XML) rather than a robot's name in :data:`ROBOTS`."""
    return name not in ROBOTS and (
        name.endswith(('.urdf', '.xacro')) or os.path.sep in name or
        name.lstrip().startswith('<') or os.path.isfile(name))


def robot_path(name: str) -> tuple[str, str | None, str | None]:
    """(description path, base_link, tip_link) of a named robot, or of a path as given."""
    if name in ROBOTS:
        spec = ROBOTS[name]
        return spec.file(), spec.base_link, spec.tip_link
    if is_description(name):
        return name, None, None
    raise ModelError(f'unknown robot {name!r}; valid: {", ".join(ROBOTS)} or a path to a '
                     '.urdf or .xacro file')


def load_robot(name_or_path: str, base_link: str | None = None, tip_link: str | None = None,
               **kwargs: Any) -> 'RobotModel':
    """The checked RobotModel of a named robot, a description path or URDF XML: the one
    loader every tool, node and launch file calls. ``base_link``/``tip_link`` override
    the registry's; other keywords go to :func:`load_urdf` (``mappings`` for xacro,
    ``effort_limits``, ``locked_joints``, ...)."""
    from .robot_model import load_urdf
    path, base, tip = robot_path(name_or_path)
    return load_urdf(path, base_link or base, tip_link or tip, **kwargs)
