"""Parse URDF XML into plain, validated element records (no chain logic here)."""

from dataclasses import dataclass
import os
import xml.etree.ElementTree as ET

import numpy as np

from ..errors import UrdfError
from .inertial import Inertial
from .spatial import rpy_to_matrix, transform

__all__ = ['UrdfJoint', 'UrdfLink', 'UrdfRobot', 'parse_urdf', 'read_urdf_source']

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


def read_urdf_source(source):
    """Return URDF XML text from a file path or an XML string.

    Raises:
        UrdfError: the path does not exist or cannot be read.
    """
    text = str(source)
    if text.lstrip().startswith('<'):
        return text
    if not os.path.isfile(text):
        raise UrdfError(f'URDF file not found: {text!r}')
    try:
        with open(text, encoding='utf-8') as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise UrdfError(f'cannot read URDF file {text!r}: {exc}') from None


def _floats(text, count, what):
    try:
        values = [float(v) for v in text.split()]
    except ValueError:
        raise UrdfError(f'{what}: expected {count} numbers, got {text!r}') from None
    if len(values) != count or not all(np.isfinite(values)):
        raise UrdfError(f'{what}: expected {count} finite numbers, got {text!r}')
    return np.array(values)


def _attr_float(elem, key, default, what):
    raw = elem.get(key) if elem is not None else None
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise UrdfError(f'{what}: {key}={raw!r} is not a number') from None
    if np.isnan(value):
        raise UrdfError(f'{what}: {key} is NaN')
    return value


def _origin(elem, what):
    if elem is None:
        return np.eye(4)
    xyz = _floats(elem.get('xyz', '0 0 0'), 3, f'{what} origin xyz')
    rpy = _floats(elem.get('rpy', '0 0 0'), 3, f'{what} origin rpy')
    return transform(rpy_to_matrix(rpy), xyz)


def _parse_inertial(link_elem, name):
    elem = link_elem.find('inertial')
    if elem is None:
        return None
    what = f'link {name!r} inertial'
    mass_elem = elem.find('mass')
    if mass_elem is None or mass_elem.get('value') is None:
        raise UrdfError(f'{what}: missing <mass value=...>')
    mass = _attr_float(mass_elem, 'value', 0.0, what)
    inertia_elem = elem.find('inertia')
    if inertia_elem is None:
        raise UrdfError(f'{what}: missing <inertia>')
    keys = ('ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz')
    ixx, ixy, ixz, iyy, iyz, izz = (_attr_float(inertia_elem, k, 0.0, what) for k in keys)
    frame = _origin(elem.find('origin'), what)
    inertia = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    rot = frame[:3, :3]
    return Inertial(mass, frame[:3, 3].copy(), rot @ inertia @ rot.T)


def _parse_joint(elem):
    name = elem.get('name')
    if not name:
        raise UrdfError('a <joint> has no name')
    jtype = elem.get('type')
    if jtype not in JOINT_TYPES:
        raise UrdfError(f'joint {name!r}: unknown type {jtype!r}; valid: {", ".join(JOINT_TYPES)}')
    parent, child = elem.find('parent'), elem.find('child')
    if parent is None or child is None or not parent.get('link') or not child.get('link'):
        raise UrdfError(f'joint {name!r}: needs <parent link=...> and <child link=...>')
    what = f'joint {name!r}'
    axis = np.array([1.0, 0.0, 0.0])
    if elem.find('axis') is not None:
        axis = _floats(elem.find('axis').get('xyz', '1 0 0'), 3, f'{what} axis')
    norm = np.linalg.norm(axis)
    if jtype in ('revolute', 'continuous', 'prismatic') and norm < 1e-12:
        raise UrdfError(f'{what}: axis is the zero vector')
    axis = axis / norm if norm > 0 else axis
    limit = elem.find('limit')
    if jtype in ('revolute', 'prismatic') and limit is None:
        raise UrdfError(f'{what}: a {jtype} joint needs a <limit> element')
    lower = _attr_float(limit, 'lower', -np.inf if jtype == 'continuous' else 0.0, what)
    upper = _attr_float(limit, 'upper', np.inf if jtype == 'continuous' else 0.0, what)
    if jtype == 'continuous':
        lower, upper = -np.inf, np.inf
    velocity = _attr_float(limit, 'velocity', np.inf, what)
    effort = _attr_float(limit, 'effort', np.inf, what)
    if effort < 0 or velocity < 0:
        raise UrdfError(f'{what}: negative effort or velocity limit')
    dyn = elem.find('dynamics')
    damping = _attr_float(dyn, 'damping', 0.0, what)
    friction = _attr_float(dyn, 'friction', 0.0, what)
    if damping < 0 or friction < 0:
        raise UrdfError(f'{what}: damping and friction must be >= 0')
    mimic = None
    if elem.find('mimic') is not None:
        m = elem.find('mimic')
        mimic = (m.get('joint'), _attr_float(m, 'multiplier', 1.0, what),
                 _attr_float(m, 'offset', 0.0, what))
    return UrdfJoint(name, jtype, parent.get('link'), child.get('link'),
                     _origin(elem.find('origin'), what), axis, lower, upper, velocity, effort,
                     damping, friction, mimic)


def parse_urdf(source):
    """Parse URDF XML (path or string) into a :class:`UrdfRobot`.

    Raises:
        UrdfError: invalid XML, missing elements, duplicate names, unknown links,
            non-finite numbers or a link with two parents.
    """
    xml = read_urdf_source(source)
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise UrdfError(f'invalid URDF XML: {exc}') from None
    if root.tag != 'robot':
        raise UrdfError(f'not a URDF: root element is <{root.tag}>, expected <robot>')
    links = {}
    for elem in root.findall('link'):
        name = elem.get('name')
        if not name:
            raise UrdfError('a <link> has no name')
        if name in links:
            raise UrdfError(f'duplicate link name {name!r}')
        links[name] = UrdfLink(name, _parse_inertial(elem, name))
    if not links:
        raise UrdfError('URDF has no <link>')
    joints = {}
    children = {}
    for elem in root.findall('joint'):
        joint = _parse_joint(elem)
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
    return UrdfRobot(root.get('name', 'robot'), links, joints, xml)
