"""Write URDF XML from DH parameters (used for the bundled seed robots and tests)."""

from dataclasses import dataclass

import numpy as np

__all__ = ['DHLink', 'dh_to_urdf']


@dataclass(frozen=True)
class DHLink:
    """A standard-DH row with the body's inertial in DH frame i.

    com [m] and inertia (about the COM, frame-i axes) [kg m^2] describe body i.
    """

    a: float
    alpha: float
    d: float
    theta_offset: float
    joint_type: str
    mass: float
    com: tuple
    inertia: tuple
    lower: float = -3.14159
    upper: float = 3.14159
    effort: float = 100.0
    velocity: float = 5.0
    damping: float = 0.0
    friction: float = 0.0


def _fmt(values):
    return ' '.join(repr(float(v)) for v in values)


def dh_to_urdf(name, links, base_rpy=(0.0, 0.0, 0.0), world='world'):
    """URDF XML for a standard-DH chain; link ``link_i`` is DH frame i.

    Joint i has origin Rz(theta_offset) Tz(d) and axis z (so q adds to theta, or to d
    for a prismatic joint); a fixed joint Tx(a) Rx(alpha) then reaches frame i.
    ``base_rpy`` orients frame 0 in the ``world`` root link.
    """
    out = [f'<?xml version="1.0"?>\n<robot name="{name}">', f'  <link name="{world}"/>',
           '  <link name="link_0"/>',
           f'  <joint name="{world}_to_link_0" type="fixed"><parent link="{world}"/>'
           f'<child link="link_0"/><origin xyz="0 0 0" rpy="{_fmt(base_rpy)}"/></joint>']
    for i, link in enumerate(links, start=1):
        inertia = np.asarray(link.inertia, dtype=float)
        ixx, ixy, ixz, iyy, iyz, izz = (float(inertia[r, c]) for r, c in
                                        ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)))
        out.append(f'  <link name="link_{i}_z"/>')
        out.append(
            f'  <link name="link_{i}"><inertial><origin xyz="{_fmt(link.com)}" rpy="0 0 0"/>'
            f'<mass value="{float(link.mass)!r}"/><inertia ixx="{ixx!r}" ixy="{ixy!r}" '
            f'ixz="{ixz!r}" iyy="{iyy!r}" iyz="{iyz!r}" izz="{izz!r}"/></inertial></link>')
        jtype = link.joint_type
        out.append(
            f'  <joint name="joint_{i}" type="{jtype}"><parent link="link_{i - 1}"/>'
            f'<child link="link_{i}_z"/>'
            f'<origin xyz="0 0 {float(link.d)!r}" rpy="0 0 {float(link.theta_offset)!r}"/>'
            f'<axis xyz="0 0 1"/><limit lower="{link.lower!r}" upper="{link.upper!r}" '
            f'effort="{link.effort!r}" velocity="{link.velocity!r}"/>'
            f'<dynamics damping="{link.damping!r}" friction="{link.friction!r}"/></joint>')
        out.append(
            f'  <joint name="joint_{i}_dh" type="fixed"><parent link="link_{i}_z"/>'
            f'<child link="link_{i}"/><origin xyz="{float(link.a)!r} 0 0" '
            f'rpy="{float(link.alpha)!r} 0 0"/></joint>')
    out.append('</robot>\n')
    return '\n'.join(out)
