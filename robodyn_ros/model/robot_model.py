"""Robot description (URDF or xacro) -> serial-chain :class:`RobotModel` (fixed joints
merged, branches lumped)."""

from dataclasses import dataclass, field, replace
import xml.etree.ElementTree as ET

import numpy as np

from ..errors import ModelError
from .inertial import check_physical, lump
from .spatial import axis_angle_matrix, transform
from .urdf import parse_urdf

__all__ = ['Joint', 'RobotModel', 'load_urdf', 'joint_motion']

MOVING = ('revolute', 'continuous', 'prismatic')


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

    @property
    def n(self):
        """Degrees of freedom."""
        return len(self.joints)

    @property
    def joint_names(self):
        """Moving joint names in chain order."""
        return tuple(j.name for j in self.joints)

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


def _check_acyclic(parent_joint):
    """ModelError naming the links of a cycle (each link has at most one parent)."""
    done = set()
    for start in parent_joint:
        seen = {}
        link = start
        while link in parent_joint and link not in done:
            if link in seen:
                cycle = list(seen)[list(seen).index(link):]
                raise ModelError(f'the joints form a cycle through links '
                                 f'{" -> ".join(reversed(cycle))} -> {cycle[-1]}; a URDF '
                                 'must be a tree')
            seen[link] = None
            link = parent_joint[link].parent
        done.update(seen)


def _tree(robot):
    children = {name: [] for name in robot.links}
    parent_joint = {}
    for joint in robot.joints.values():
        children[joint.parent].append(joint)
        parent_joint[joint.child] = joint
    _check_acyclic(parent_joint)
    roots = [name for name in robot.links if name not in parent_joint]
    if len(roots) != 1:
        raise ModelError(f'URDF must have exactly one root link, found {len(roots)}: '
                         f'{", ".join(sorted(roots)) or "none (the joints form a cycle)"}')
    return roots[0], children, parent_joint


def _path_to(link, stop, parent_joint):
    path = []
    while link != stop:
        if link not in parent_joint:
            return None
        joint = parent_joint[link]
        path.append(joint)
        link = joint.parent
    return path[::-1]


def _default_tip(base, children):
    best, leaves = -1, []
    stack = [(base, 0)]
    while stack:
        link, depth = stack.pop()
        if not children[link]:
            if depth > best:
                best, leaves = depth, [link]
            elif depth == best:
                leaves.append(link)
        for joint in children[link]:
            stack.append((joint.child, depth + (joint.type in MOVING)))
    if len(leaves) != 1:
        raise ModelError(f'no unique tip link below {base!r}: candidates '
                         f'{", ".join(sorted(leaves))} (each after {best} moving joints); '
                         'pass tip_link')
    return leaves[0]


def _locked_value(joint, locked, robot):
    if joint.mimic is not None:
        target, mult, offset = joint.mimic
        if target not in robot.joints:
            raise ModelError(f'joint {joint.name!r} mimics unknown joint {target!r}')
        return mult * locked.get(target, 0.0) + offset
    return locked.get(joint.name, 0.0)


def load_urdf(source, base_link=None, tip_link=None, locked_joints=None, *, mappings=None,
              effort_limits=None):
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

    Raises:
        UrdfError: unreadable or invalid XML, failed xacro expansion.
        ModelError: unknown links, a cycle, no unique tip, floating/planar or mimic
            joints in the chain, non-physical inertials, a massless moving body, effort
            limits missing or 0 (and not given).
    """
    robot = parse_urdf(source, mappings)
    root, children, parent_joint = _tree(robot)
    valid = ', '.join(sorted(robot.links))
    base = base_link or root
    if base not in robot.links:
        raise ModelError(f'unknown base link {base!r}; links: {valid}')
    if tip_link is not None and tip_link not in robot.links:
        raise ModelError(f'unknown tip link {tip_link!r}; links: {valid}')
    tip = tip_link or _default_tip(base, children)
    path = _path_to(tip, base, parent_joint)
    if path is None:
        raise ModelError(f'tip link {tip!r} is not below base link {base!r}')
    locked = dict(locked_joints or {})
    on_path = {j.name for j in path}
    for name in locked:
        if name not in robot.joints or name in on_path:
            options = sorted(n for n in robot.joints if n not in on_path
                             and robot.joints[n].type in MOVING)
            raise ModelError(f'cannot lock {name!r}: not an off-chain moving joint; '
                             f'valid: {", ".join(options) or "none"}')
    for joint in path:
        if joint.type in ('floating', 'planar'):
            raise ModelError(f'joint {joint.name!r} in the chain is {joint.type}; only revolute,'
                             ' continuous, prismatic and fixed joints are supported')
        if joint.mimic is not None and joint.type in MOVING:
            raise ModelError(f'joint {joint.name!r} in the chain is a mimic joint; mimic joints '
                             'are only supported off the chain (locked)')

    # Moving joints of the chain and the fixed offsets between them.
    joints, offset, chain_links = [], np.eye(4), {base: -1}
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
    tool = offset

    # Every link below base: its body index and pose in that body's frame.
    parts = [[] for _ in joints]
    stack = [(base, -1, np.eye(4))]
    while stack:
        link, body, pose = stack.pop()
        inertial = robot.links[link].inertial
        if body >= 0 and inertial is not None:
            what = f'link {link!r}'
            if inertial.mass < 0:
                raise ModelError(f'{what}: negative mass {inertial.mass!r}')
            if inertial.mass > 0 or np.abs(inertial.inertia).max() > 0:
                check_physical(inertial, what)
                parts[body].append(inertial.transformed(pose))
        for joint in children[link]:
            if joint.name in on_path:
                idx = chain_links[joint.child]
                if joint.type in MOVING:
                    stack.append((joint.child, idx, np.eye(4)))
                else:
                    stack.append((joint.child, body, pose @ joint.origin))
                continue
            if body < 0:
                continue  # fixed to the ground: no effect on the chain dynamics
            if joint.type in ('floating', 'planar'):
                raise ModelError(f'joint {joint.name!r} below the base is {joint.type}; '
                                 'it cannot be locked into a fixed-base chain')
            motion = np.eye(4)
            if joint.type in MOVING:
                motion = joint_motion(joint, _locked_value(joint, locked, robot))
            stack.append((joint.child, body, pose @ joint.origin @ motion))

    bodies = []
    for k, joint in enumerate(joints):
        body = lump(parts[k])
        if body.mass <= 0.0:
            raise ModelError(f'moving body after joint {joint.name!r} has no mass '
                             '(no link with a positive-mass <inertial>)')
        check_physical(body, f'body after joint {joint.name!r}')
        bodies.append(body)
    if not joints:
        raise ModelError(f'no moving joint between {base!r} and {tip!r}')
    locked_all = {name: _locked_value(j, locked, robot) for name, j in robot.joints.items()
                  if j.type in MOVING and name not in on_path}
    joints = _with_effort_limits(joints, effort_limits, robot.missing_effort)
    xml = robot.xml
    if effort_limits is not None or robot.missing_effort:
        xml = _xml_with_efforts(xml, joints)
    return RobotModel(robot.name, root, base, tip, tuple(joints), tuple(bodies), tool,
                      locked_all, xml, joint1_parent)


def _xml_with_efforts(xml, joints):
    """The URDF text with the chain joints' effort limits as the model has them (urdfdom
    consumers such as Pinocchio refuse a <limit> without effort)."""
    root = ET.fromstring(xml)
    effort = {j.name: j.effort for j in joints}
    for elem in root.findall('joint'):
        limit = elem.find('limit')
        if elem.get('name') in effort and limit is not None:
            limit.set('effort', repr(effort[elem.get('name')]))
    return ET.tostring(root, encoding='unicode')


def _with_effort_limits(joints, given, missing):
    """The chain joints with the given effort limits applied; ModelError when a joint is
    left without a positive, finite one."""
    names = [j.name for j in joints]
    if given is not None:
        if isinstance(given, dict):
            unknown = sorted(set(given) - set(names))
            if unknown:
                raise ModelError(f'effort limits for joints {unknown} not in the chain; '
                                 f'chain joints: {names}')
            values = [given.get(name, joint.effort) for name, joint in zip(names, joints)]
        else:
            values = np.broadcast_to(np.asarray(given, dtype=float), (len(names),)) \
                if np.ndim(given) == 0 or len(given) == len(names) else None
            if values is None:
                raise ModelError(f'effort limits: expected 1 or {len(names)} values (one per '
                                 f'chain joint {names}), got {len(given)}')
        joints = [replace(j, effort=float(v)) for j, v in zip(joints, values)]
    bad = {j.name: ('missing' if j.name in missing or j.effort == np.inf else f'{j.effort:g}')
           for j in joints if not (np.isfinite(j.effort) and j.effort > 0)}
    if bad:
        raise ModelError(f'effort limits missing or not positive for joints {bad}; give them '
                         'explicitly (--effort-limits, or the effort_limits parameter) [N m '
                         'or N]')
    return joints

