"""Robot description (URDF or xacro) -> serial-chain :class:`RobotModel` (fixed joints
merged, branches lumped)."""

from dataclasses import dataclass, field
import os

import numpy as np

from ..errors import ModelError
from .description import Mappings
from .effort_limits import EffortLimits, with_effort_limits, xml_with_efforts
from .spatial import axis_angle_matrix, invert_transform, transform
from .tree import (
    MOVING,
    chain_path,
    check_locked,
    fixed_anchor,
    kinematic_tree,
    locked_value,
    lumped_bodies,
)
from .urdf import parse_urdf

__all__ = ['Joint', 'RobotModel', 'load_urdf', 'joint_motion']


@dataclass(frozen=True)
class Joint:
    """One moving joint of the chain.

    Attributes:
        name: URDF joint name.
        type: 'revolute', 'continuous' or 'prismatic'.
        origin: 4x4 pose of the joint frame at q = 0 in the previous body frame
            (for the first joint: in the ``base_link`` frame).
        axis: unit axis in the joint frame.
        lower, upper: position limits [rad or m] (+-inf for continuous).
        velocity, effort: limits [rad/s or m/s], [N m or N] (inf when absent).
        damping: viscous friction coefficient [N m s/rad or N s/m].
        friction: Coulomb friction [N m or N].
    """

    name: str
    type: str
    origin: np.ndarray
    axis: np.ndarray
    lower: float
    upper: float
    velocity: float
    effort: float
    damping: float
    friction: float

    @property
    def prismatic(self):
        """True for a prismatic joint."""
        return self.type == 'prismatic'


@dataclass(frozen=True)
class RobotModel:
    """A fixed-base serial chain from ``base_link`` to ``tip_link``.

    Body k is everything rigidly attached after joint k (fixed joints merged,
    off-chain subtrees locked and lumped); its inertial is expressed in joint k's
    frame (the URDF child-link frame of joint k).
    """

    name: str
    root_link: str
    base_link: str
    tip_link: str
    joints: tuple
    bodies: tuple
    tool: np.ndarray
    locked: dict
    xml: str = field(repr=False)
    joint1_parent: np.ndarray = field(default_factory=lambda: np.eye(4), repr=False)
    #: One-line warnings of loading (an inertia used as given although it violates the
    #: triangle inequality); tools print them, nodes log them.
    warnings: tuple = ()

    @property
    def n(self):
        """Degrees of freedom."""
        return len(self.joints)

    @property
    def joint_names(self):
        """Moving joint names in chain order."""
        return tuple(j.name for j in self.joints)

    @property
    def massless(self) -> tuple[str, ...]:
        """Joints whose moving body has no mass (loaded with ``require_inertials=False``):
        the dynamics need inertials; ``robodyn identify`` estimates a payload's."""
        return tuple(j.name for j, b in zip(self.joints, self.bodies) if not b.mass > 0.0)

    @property
    def effort_limits(self):
        """(n,) effort limits [N m or N]."""
        return np.array([j.effort for j in self.joints])

    @property
    def velocity_limits(self):
        """(n,) velocity limits [rad/s or m/s] (inf when absent)."""
        return np.array([j.velocity for j in self.joints])

    @property
    def lower(self):
        """(n,) lower position limits."""
        return np.array([j.lower for j in self.joints])

    @property
    def upper(self):
        """(n,) upper position limits."""
        return np.array([j.upper for j in self.joints])

    @property
    def mid_range(self):
        """(n,) the middle of each joint's range; 0 where a limit is infinite."""
        lo, hi = self.lower, self.upper
        return np.where(np.isfinite(lo) & np.isfinite(hi),
                        0.5 * (np.nan_to_num(lo) + np.nan_to_num(hi)), 0.0)

    def body_poses(self, q):
        """Poses (4x4, base frame) of the n body frames at joint positions ``q``."""
        poses, t = [], np.eye(4)
        for joint, qi in zip(self.joints, q):
            t = t @ joint.origin @ joint_motion(joint, qi)
            poses.append(t)
        return poses

    def fk(self, q):
        """Pose (4x4) of ``tip_link`` in the ``base_link`` frame from the URDF chain."""
        from .kinematics import check_q
        q = check_q(self, q)
        poses = self.body_poses(q)
        return (poses[-1] if poses else np.eye(4)) @ self.tool

    def dh_table(self, convention='standard'):
        """Denavit-Hartenberg table of this chain; see :func:`robodyn_ros.model.dh_table`."""
        from .dh import dh_table
        return dh_table(self, convention)


def joint_motion(joint, q):
    """4x4 motion of a joint at position ``q`` (rotation about or translation along axis)."""
    if joint.type == 'prismatic':
        return transform(None, joint.axis * q)
    return transform(axis_angle_matrix(joint.axis, q))


def load_urdf(source: str | os.PathLike, base_link: str | None = None,
              tip_link: str | None = None, locked_joints: dict[str, float] | None = None, *,
              mappings: Mappings | None = None,
              effort_limits: EffortLimits | None = None,
              strict_inertia: bool = False, require_effort_limits: bool = True,
              require_inertials: bool = True) -> 'RobotModel':
    """Build a :class:`RobotModel` from a robot description (URDF or xacro).

    Args:
        source: path to a .urdf or .xacro file, or the XML text itself.
        base_link: chain base (default: the URDF root link).
        tip_link: chain tip (default: the unique deepest leaf below ``base_link``,
            depth counted in moving joints).
        locked_joints: {joint name: position} for joints off the chain (default 0);
            their subtrees are lumped into the chain body they hang from.
        mappings: xacro arguments ({name: value} or ``['name:=value']``).
        effort_limits: effort limits [N m or N] replacing the URDF's: {joint: value} or
            one value per chain joint. Without them, every chain joint needs a positive,
            finite effort limit in the URDF.
        strict_inertia: refuse an inertia that violates the triangle inequality (by
            default it is used as given and named in ``RobotModel.warnings``).
        require_effort_limits: False: a chain joint without a positive effort limit
            gets inf and a warning instead of the ModelError (tools that need none).
        require_inertials: False: a massless moving body is kept (mass 0) with a warning
            instead of the ModelError; the dynamics then refuse the model
            (:attr:`RobotModel.massless`), kinematics and DH tables work.

    Raises:
        UrdfError: unreadable or invalid XML, failed xacro expansion.
        ModelError: unknown links, a cycle, no unique tip, floating/planar or mimic
            joints in the chain, non-physical inertials, a massless moving body, effort
            limits missing or 0 (and not given).
    """
    robot = parse_urdf(source, mappings)
    root, children, parent_joint = kinematic_tree(robot)
    base = base_link or root
    anchor, base_pose = fixed_anchor(robot, children, parent_joint, base, tip_link)
    tip, path = chain_path(robot, children, parent_joint, anchor, tip_link)
    locked = dict(locked_joints or {})
    on_path = {j.name for j in path}
    check_locked(robot, locked, on_path)
    joints, chain_links, tool, joint1_parent = _moving_joints(
        path, anchor, invert_transform(base_pose))
    if not joints:
        raise ModelError(f'no moving joint between {base!r} and {tip!r}')
    bodies, warnings = lumped_bodies(robot, anchor, children, path, chain_links, joints,
                                     locked, joint_motion, strict_inertia, require_inertials)
    locked_all = {name: locked_value(j, locked, robot) for name, j in robot.joints.items()
                  if j.type in MOVING and name not in on_path}
    joints, notes = with_effort_limits(joints, effort_limits, robot.missing_effort,
                                       require_effort_limits)
    warnings = list(warnings) + notes
    xml = robot.xml
    if effort_limits is not None or robot.missing_effort:
        xml = xml_with_efforts(xml, joints)
    return RobotModel(robot.name, root, base, tip, tuple(joints), tuple(bodies), tool,
                      locked_all, xml, joint1_parent, tuple(warnings))


def _moving_joints(path, base, offset):
    """The chain's moving joints (fixed offsets folded into the next joint's origin,
    starting with ``offset``, the pose of the path's first link in the base frame),
    {link: body index}, the tool transform and the pose of joint 1's parent."""
    joints, chain_links = [], {base: -1}
    joint1_parent = None
    for joint in path:
        if joint.type in MOVING:
            if joint1_parent is None:
                joint1_parent = offset
            joints.append(Joint(joint.name, joint.type, offset @ joint.origin, joint.axis,
                                joint.lower, joint.upper, joint.velocity, joint.effort,
                                joint.damping, joint.friction))
            offset = np.eye(4)
        else:
            offset = offset @ joint.origin
        chain_links[joint.child] = len(joints) - 1
    return joints, chain_links, offset, joint1_parent
