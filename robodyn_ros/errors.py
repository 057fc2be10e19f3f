"""Exception hierarchy: one root, one subclass per area.

Every exception carries the offending names/values in its message and, where it
applies, the valid options, so the CLI can print it as one line.
"""

__all__ = [
    'RobodynError',
    'UrdfError',
    'ModelError',
    'InputError',
    'BagError',
    'ConfigError',
    'SimulationError',
    'BenchmarkError',
]


class RobodynError(Exception):
    """Root of every error raised on purpose by robodyn_ros."""


class UrdfError(RobodynError):
    """The URDF cannot be read or is not a valid robot description."""


class ModelError(RobodynError):
    """The URDF is readable but does not give a usable serial-chain model."""


class InputError(RobodynError, ValueError):
    """A state, gain or option handed to the API has the wrong shape or value."""


class BagError(RobodynError):
    """A rosbag2 directory is missing, corrupted or lacks what is needed."""


class ConfigError(RobodynError):
    """A YAML configuration or node parameter is invalid."""


class SimulationError(RobodynError):
    """The simulation diverged, reset or lost its lock step with the controller (its
    state is no longer a result)."""


class BenchmarkError(RobodynError):
    """A benchmark's processes did not come up or answer (nothing was measured)."""


def short_list(items, limit=8):
    """``items`` for a one-line message: the first ``limit`` and how many there are in all
    (a message listing a million joint names would be a 10 MB log line)."""
    items = list(items) if not isinstance(items, (list, tuple)) else items
    if len(items) <= limit:
        return repr(list(items))
    head = ', '.join(repr(item) for item in items[:limit])
    return f'[{head}, ... ({len(items)} in all)]'
