"""Loading the named robots in tests."""

from robodyn_ros.model import load_robot as registry_load_robot

#: example-robot-data's double pendulums have effort="0" in their URDF: the model refuses
#: them unless effort limits are given, as a user must.
UNRATED = {'double_pendulum': 10.0, 'double_pendulum_continuous': 10.0}


def load_robot(name):
    """RobotModel of a named robot (effort limits supplied where its URDF has none)."""
    return registry_load_robot(name, effort_limits=UNRATED.get(name))


def bag_tool_points(bag_path, model):
    """The tool point (base link frame [m]) of every /joint_states of a bag, in its order."""
    import numpy as np

    from robodyn_ros.dynamics import RigidBodyDynamics
    from robodyn_ros.dynamics.recursive.tip_frame import TipFrame
    from robodyn_ros.io import BagReader
    from robodyn_ros.io.cdr import parse_joint_state
    frame, base = TipFrame(RigidBodyDynamics(model)), model.dh_table('standard').base
    points = []
    with BagReader(bag_path) as bag:
        for _, _, _, raw in bag.messages(['/joint_states']):
            _, names, q, _, _ = parse_joint_state(raw)
            order = [names.index(j) for j in model.joint_names]
            points.append(base[:3, :3] @ frame.at(q[order])[2] + base[:3, 3])
    return np.array(points)
