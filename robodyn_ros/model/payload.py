"""A payload rigidly attached to the tip link: the model carrying it (its last body lumped
with the payload; its URDF text given a fixed ``robodyn_payload`` link, so that Pinocchio,
reading the text, sees the same arm)."""

from dataclasses import replace
import html
import re
import xml.etree.ElementTree as ET

import numpy as np

from ..errors import ModelError
from .inertial import Inertial, check_physical, lump
from .robot_model import RobotModel

__all__ = ['payload_inertial', 'point_mass', 'with_payload']


def payload_inertial(mass: float, com, inertia) -> Inertial:
    """An Inertial in the tip frame from mass [kg], com (3,) [m] and the inertia about the
    com (xx, xy, xz, yy, yz, zz) [kg m^2]; ModelError naming what is not physical."""
    com = np.asarray(com, dtype=float)
    values = np.asarray(inertia, dtype=float)
    if not (np.isfinite(mass) and mass > 0 and com.shape == (3,) and values.shape == (6,)
            and np.all(np.isfinite(com)) and np.all(np.isfinite(values))):
        raise ModelError(f'payload: expected mass > 0, com (3,) and inertia (6,) finite, got '
                         f'{mass!r}, {com.tolist()}, {values.tolist()}')
    xx, xy, xz, yy, yz, zz = values
    body = Inertial(float(mass), com, np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]))
    check_physical(body, 'payload')
    return body


def point_mass(mass: float, com) -> Inertial:
    """A point mass [kg] at com (3,) [m] in the tip frame, its inertia about itself 1e-6 x
    its mass [kg m^2] on each axis (just above zero: a body the physics accepts)."""
    tiny = 1e-6 * float(mass)
    return payload_inertial(mass, com, [tiny, 0.0, 0.0, tiny, 0.0, tiny])


def _xml_with_link(model, body):
    """The URDF text with the payload link and its fixed joint to the tip added before the
    root's end tag (text inserted, not the whole tree parsed and written again: a payload
    set while running costs microseconds here, not 12 ms)."""
    i = body.inertia
    link = (
        '<link name="robodyn_payload"><inertial>'
        f'<origin xyz="{" ".join(repr(float(v)) for v in body.com)}" rpy="0 0 0"/>'
        f'<mass value="{float(body.mass)!r}"/>'
        '<inertia ' + ' '.join(f'{k}="{float(i[r, c])!r}"' for k, (r, c) in _INERTIA) +
        '/></inertial></link>'
        '<joint name="robodyn_payload_joint" type="fixed">'
        f'<parent link="{html.escape(model.tip_link)}"/>'
        '<child link="robodyn_payload"/></joint>')
    end = _ROOT_END.search(model.xml)
    if end is None:  # text after the root (a comment): the tree, parsed and written again
        root = ET.fromstring(model.xml)
        root.extend(ET.fromstring(f'<robot>{link}</robot>'))
        return ET.tostring(root, encoding='unicode')
    return model.xml[:end.start()] + link + model.xml[end.start():]


_ROOT_END = re.compile(r'</\s*robot\s*>\s*$')
_INERTIA = (('ixx', (0, 0)), ('ixy', (0, 1)), ('ixz', (0, 2)), ('iyy', (1, 1)),
            ('iyz', (1, 2)), ('izz', (2, 2)))


def with_payload(model: RobotModel, body: Inertial | None, xml: bool = True) -> RobotModel:
    """``model`` carrying ``body`` (an Inertial in the tip frame; None: unchanged).
    ``xml``: also add the payload link to the URDF text (for Pinocchio)."""
    if body is None:
        return model
    if 'robodyn_payload' in model.xml and xml:
        raise ModelError('this model already carries a robodyn payload; add it to the plain '
                         'model')
    last = lump([model.bodies[-1], body.transformed(model.tool)])
    return replace(model, bodies=model.bodies[:-1] + (last,),
                   xml=_xml_with_link(model, body) if xml else model.xml)
