"""Write URDF XML from DH parameters (used for the bundled seed robots and tests)."""

from collections.abc import Mapping, Sequence

import numpy as np

from .dh import DHRow
from .inertial import Inertial
from .spatial import axis_angle_matrix, matrix_to_rpy, rot_y

__all__ = ['LIMIT_DEFAULTS', 'dh_to_urdf']


#: Joint limits and friction written when a joint's ``limits`` entry does not give them.
LIMIT_DEFAULTS = {'lower': -3.14159, 'upper': 3.14159, 'effort': 100.0, 'velocity': 5.0,
                  'damping': 0.0, 'friction': 0.0}


def _fmt(values):
    return ' '.join(repr(float(v)) for v in values)


def dh_to_urdf(name: str, rows: Sequence[DHRow], bodies: Sequence[Inertial],
               limits: Sequence[Mapping[str, float]] | None = None,
               base_rpy: Sequence[float] = (0.0, 0.0, 0.0), world: str = 'world') -> str:
    """URDF XML for a standard-DH chain; link ``link_i`` is DH frame i.

    Joint i (named ``rows[i].joint_name``) has origin Rz(theta_offset) Tz(d) and axis z (so
    q adds to theta, or to d for a prismatic joint); a fixed joint Tx(a) Rx(alpha) then
    reaches frame i. ``bodies[i]``: body i in DH frame i (COM [m], inertia about the COM
    [kg m^2]); ``limits[i]``: overrides of :data:`LIMIT_DEFAULTS`. ``base_rpy`` orients
    frame 0 in the ``world`` root link.
    """
    limits = limits if limits is not None else [{}] * len(rows)
    out = [f'<?xml version="1.0"?>\n<robot name="{name}">', f'  <link name="{world}"/>',
           '  <link name="link_0"/>',
           f'  <joint name="{world}_to_link_0" type="fixed"><parent link="{world}"/>'
           f'<child link="link_0"/><origin xyz="0 0 0" rpy="{_fmt(base_rpy)}"/></joint>']
    for i, (row, body, given) in enumerate(zip(rows, bodies, limits, strict=True), start=1):
        lim = {**LIMIT_DEFAULTS, **given}
        inertia = np.asarray(body.inertia, dtype=float)
        ixx, ixy, ixz, iyy, iyz, izz = (float(inertia[r, c]) for r, c in
                                        ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)))
        out.append(f'  <link name="link_{i}_z"/>')
        out.append(
            f'  <link name="link_{i}"><inertial><origin xyz="{_fmt(body.com)}" rpy="0 0 0"/>'
            f'<mass value="{float(body.mass)!r}"/><inertia ixx="{ixx!r}" ixy="{ixy!r}" '
            f'ixz="{ixz!r}" iyy="{iyy!r}" iyz="{iyz!r}" izz="{izz!r}"/></inertial></link>')
        lower, upper, effort, velocity, damping, friction = (float(lim[k]) for k in (
            'lower', 'upper', 'effort', 'velocity', 'damping', 'friction'))
        out.append(
            f'  <joint name="{row.joint_name}" type="{row.joint_type}">'
            f'<parent link="link_{i - 1}"/><child link="link_{i}_z"/>'
            f'<origin xyz="0 0 {float(row.d)!r}" rpy="0 0 {float(row.theta_offset)!r}"/>'
            f'<axis xyz="0 0 1"/><limit lower="{lower!r}" upper="{upper!r}" '
            f'effort="{effort!r}" velocity="{velocity!r}"/>'
            f'<dynamics damping="{damping!r}" friction="{friction!r}"/></joint>')
        # Rx(alpha) Ry(beta) as URDF's Rz Ry Rx (beta: Hayati's, usually 0).
        rpy = _fmt(matrix_to_rpy(axis_angle_matrix([1.0, 0.0, 0.0], row.alpha)
                                 @ rot_y(row.beta))) if row.beta else f'{float(row.alpha)!r} 0 0'
        out.append(
            f'  <joint name="{row.joint_name}_dh" type="fixed"><parent link="link_{i}_z"/>'
            f'<child link="link_{i}"/><origin xyz="{float(row.a)!r} 0 0" '
            f'rpy="{rpy}"/></joint>')
    out.append('</robot>\n')
    return '\n'.join(out)
