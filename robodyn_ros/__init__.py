"""robodyn_ros: URDF -> DH + inertials -> M, C, g -> computed-torque commands for ros2_control."""

from .errors import BagError, ConfigError, InputError, ModelError, RobodynError, UrdfError

__version__ = '0.1.0'

__all__ = [
    'BagError',
    'ConfigError',
    'InputError',
    'ModelError',
    'RobodynError',
    'UrdfError',
    '__version__',
]
