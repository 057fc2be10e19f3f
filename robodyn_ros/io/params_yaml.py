"""ROS 2 parameter files as rcl reads them: YAML without anchors or aliases.

PyYAML writes an anchor and an alias for any object it meets twice (the joint list two
controllers share); rcl's parser refuses them ("Will not support aliasing"), and
controller_manager would then start without its controllers.
"""

import yaml

__all__ = ['dump_parameters']


class _PlainDumper(yaml.SafeDumper):
    """SafeDumper that writes every repeated object again instead of aliasing it."""

    def ignore_aliases(self, data):
        return True


def dump_parameters(data: dict, stream=None) -> str | None:
    """``data`` ({node: {'ros__parameters': {...}}}) as YAML rcl parses; into ``stream``
    when given (returns None), else as a string."""
    return yaml.dump(data, stream, Dumper=_PlainDumper, sort_keys=False)
