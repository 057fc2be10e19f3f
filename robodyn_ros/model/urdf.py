"""Parse URDF XML with the ROS URDF parser (urdf_parser_py, urdfdom-py) into plain,
validated element records (no chain logic here).

urdf_parser_py reads the file as urdfdom does; the checks it lacks are added here: finite
numbers, unique names, known links, one parent per link, no self-loop, lower <= upper,
non-negative limits, damping and friction. Its warnings about tags outside the URDF core
(``ros2_control``, ``gazebo``, ``transmission``) are collected in ``UrdfRobot.warnings``
instead of being printed. A ``<limit>`` without ``effort`` (which urdfdom rejects) is read
as effort 0 and listed in ``UrdfRobot.missing_effort``: the model refuses it unless effort
limits are given explicitly.
"""

from dataclasses import dataclass
import os
import xml.etree.ElementTree as ET

import numpy as np

from ..errors import UrdfError
from .description import Mappings, read_description
from .inertial import Inertial
from .spatial import rpy_to_matrix, transform

__all__ = ['UrdfJoint', 'UrdfLink', 'UrdfRobot', 'parse_urdf']

JOINT_TYPES = ('revolute', 'continuous', 'prismatic', 'fixed', 'floating', 'planar')


@dataclass(frozen=True)
class UrdfLink:
    """A URDF link and its inertial (``None`` when the link has no <inertial>)."""

    name: str
    inertial: Inertial | None


@dataclass(frozen=True)
class UrdfJoint:
    """A URDF joint as written in the file (axis normalised, origin as a 4x4)."""

    name: str
    type: str
    parent: str
    child: str
    origin: np.ndarray
    axis: np.ndarray
    lower: float
    upper: float
    velocity: float
    effort: float
    damping: float
    friction: float
    mimic: tuple | None


@dataclass(frozen=True)
class UrdfRobot:
    """All links and joints of a URDF, keyed by name, plus the source XML."""

    name: str
    links: dict
    joints: dict
    xml: str
    warnings: tuple = ()
    missing_effort: tuple = ()


def _vector(values, count, default, what):
    if values is None:
        return np.array(default, dtype=float)
    out = np.asarray(values, dtype=float)
    if out.shape != (count,) or not np.all(np.isfinite(out)):
        raise UrdfError(f'{what}: expected {count} finite numbers, got {list(values)!r}')
    return out


def _scalar(value, default, what, key):
    if value is None:
        return default
    value = float(value)
    if np.isnan(value):
        raise UrdfError(f'{what}: {key} is NaN')
    return value


def _pose(pose, what):
    if pose is None:
        return np.eye(4)
    xyz = _vector(pose.xyz, 3, (0.0, 0.0, 0.0), f'{what} origin xyz')
    rpy = _vector(pose.rpy, 3, (0.0, 0.0, 0.0), f'{what} origin rpy')
    return transform(rpy_to_matrix(rpy), xyz)


def _link(link):
    if link.inertial is None:
        return UrdfLink(link.name, None)
    what = f'link {link.name!r} inertial'
    elem = link.inertial
    if elem.inertia is None:
        raise UrdfError(f'{what}: missing <inertia>')
    inertia = np.array(elem.inertia.to_matrix(), dtype=float)
    mass = _scalar(elem.mass, 0.0, what, 'mass')
    if not np.all(np.isfinite(inertia)) or not np.isfinite(mass):
        raise UrdfError(f'{what}: mass and inertia must be finite')
    frame = _pose(elem.origin, what)
    rot = frame[:3, :3]
    return UrdfLink(link.name, Inertial(mass, frame[:3, 3].copy(), rot @ inertia @ rot.T))


def _joint(joint):
    name, jtype = joint.name, joint.type
    what = f'joint {name!r}'
    if not joint.parent or not joint.child:
        raise UrdfError(f'{what}: needs <parent link=...> and <child link=...>')
    if joint.parent == joint.child:
        raise UrdfError(f'{what}: link {joint.parent!r} is its own parent (self-loop)')
    axis = _vector(joint.axis, 3, (1.0, 0.0, 0.0), f'{what} axis')
    norm = np.linalg.norm(axis)
    if jtype in ('revolute', 'continuous', 'prismatic') and norm < 1e-12:
        raise UrdfError(f'{what}: axis is the zero vector')
    axis = axis / norm if norm > 0 else axis
    limit = joint.limit
    if jtype in ('revolute', 'prismatic') and limit is None:
        raise UrdfError(f'{what}: a {jtype} joint needs a <limit> element')
    def get(key, default):
        return _scalar(getattr(limit, key, None), default, what, key)
    lower, upper = get('lower', 0.0), get('upper', 0.0)
    if jtype == 'continuous':
        lower, upper = -np.inf, np.inf
    elif lower > upper:
        raise UrdfError(f'{what}: lower limit {lower:g} > upper limit {upper:g}')
    velocity, effort = get('velocity', np.inf), get('effort', np.inf)
    if effort < 0 or velocity < 0:
        raise UrdfError(f'{what}: negative effort or velocity limit '
                        f'(effort {effort:g}, velocity {velocity:g})')
    dyn = joint.dynamics
    damping = _scalar(getattr(dyn, 'damping', None), 0.0, what, 'damping')
    friction = _scalar(getattr(dyn, 'friction', None), 0.0, what, 'friction')
    if damping < 0 or friction < 0:
        raise UrdfError(f'{what}: damping and friction must be >= 0')
    mimic = None
    if joint.mimic is not None:
        m = joint.mimic
        mimic = (m.joint, _scalar(m.multiplier, 1.0, what, 'multiplier'),
                 _scalar(m.offset, 0.0, what, 'offset'))
    return UrdfJoint(name, jtype, joint.parent, joint.child, _pose(joint.origin, what), axis,
                     lower, upper, velocity, effort, damping, friction, mimic)


def _fill_missing_effort(xml):
    """(xml, joints whose <limit> lacks effort): those get effort="0" so urdf_parser_py
    (which, like urdfdom, requires the attribute) reads them; the model decides."""
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise UrdfError(f'invalid URDF XML: {exc}') from None
    if root.tag != 'robot':
        raise UrdfError(f'not a URDF: root element is <{root.tag}>, expected <robot>')
    missing = []
    for joint in root.findall('joint'):
        limit = joint.find('limit')
        if limit is not None and limit.get('effort') is None:
            limit.set('effort', '0')
            missing.append(joint.get('name'))
    return (ET.tostring(root, encoding='unicode') if missing else xml), tuple(missing)


def _read(xml):
    from urdf_parser_py import urdf
    from urdf_parser_py.xml_reflection import core
    warnings: list[str] = []
    previous, core.on_error = core.on_error, warnings.append
    try:
        return urdf.URDF.from_xml_string(xml.encode('utf-8')), tuple(warnings)
    except Exception as exc:  # noqa: BLE001 - urdf_parser_py raises bare Exceptions
        raise UrdfError(f'invalid URDF: {" ".join(str(exc).split())}') from None
    finally:
        core.on_error = previous


def parse_urdf(source: str | os.PathLike, mappings: Mappings | None = None) -> UrdfRobot:
    """Parse a robot description (path or text, URDF or xacro) into a :class:`UrdfRobot`.

    Raises:
        UrdfError: invalid XML or URDF, duplicate names, unknown links, non-finite
            numbers, a link with two parents, a self-loop, lower > upper.
    """
    original = read_description(source, mappings)
    xml, missing = _fill_missing_effort(original)
    robot, warnings = _read(xml)
    links = {}
    for link in robot.links:
        if link.name in links:
            raise UrdfError(f'duplicate link name {link.name!r}')
        links[link.name] = _link(link)
    if not links:
        raise UrdfError('URDF has no <link>')
    joints: dict[str, UrdfJoint] = {}
    children: dict[str, str] = {}
    for elem in robot.joints:
        joint = _joint(elem)
        if joint.name in joints:
            raise UrdfError(f'duplicate joint name {joint.name!r}')
        for link in (joint.parent, joint.child):
            if link not in links:
                raise UrdfError(f'joint {joint.name!r} refers to unknown link {link!r}')
        if joint.child in children:
            raise UrdfError(f'link {joint.child!r} has two parent joints: '
                            f'{children[joint.child]!r} and {joint.name!r}')
        children[joint.child] = joint.name
        joints[joint.name] = joint
    return UrdfRobot(robot.name or 'robot', links, joints, original, warnings, missing)
