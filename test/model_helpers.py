"""Loading the named robots in tests."""

from robodyn_ros.model import load_robot as registry_load_robot

#: example-robot-data's double pendulums have effort="0" in their URDF: the model refuses
#: them unless effort limits are given, as a user must.
UNRATED = {'double_pendulum': 10.0, 'double_pendulum_continuous': 10.0}


def load_robot(name):
    """RobotModel of a named robot (effort limits supplied where its URDF has none)."""
    return registry_load_robot(name, effort_limits=UNRATED.get(name))
