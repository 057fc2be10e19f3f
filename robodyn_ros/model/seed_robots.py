"""DH and inertial values of the seeds' example robots, the source of the bundled URDFs.

* three_link: seed 000 Table 1 and the Section 5 numbers (l0, r0, m, r_C, I).
* two_link: seed 004's planar arm, point masses m1, m2 at the link ends, moving in a
  vertical plane (frame 0 has y up: base rotated +90 deg about x).
* rp_arm: seed 004's RP arm (revolute theta1 about z0, prismatic d2 along the rotated
  axis); gravity acts along -x0 (frame 0 has x up: base rotated -90 deg about y).
"""

from typing import Any

import numpy as np

from .dh import DHRow
from .inertial import Inertial
from .urdf_writer import dh_to_urdf

__all__ = ['THREE_LINK', 'TWO_LINK', 'RP_ARM', 'seed_urdfs']

THREE_LINK: dict[str, Any] = dict(
    l0=0.294, r0=0.140, m1=5.248, l1=0.190, r1=0.088, m2=2.412, l2=0.170, r2=0.080, m3=1.577,
    I1=(83.5e-3, 30.4e-3, 83.5e-3), I2=(15.9e-3, 40.5e-3, 40.5e-3),
    I3=(7.9e-3, 20.2e-3, 20.2e-3))
TWO_LINK: dict[str, Any] = dict(L1=0.5, L2=0.4, m1=2.0, m2=1.5)
RP_ARM: dict[str, Any] = dict(l1=0.3, m1=2.0, m2=1.0, Ixx1=0.01, Iyy1=0.02, Izz1=0.025,
                              Ixx2=0.03, Iyy2=0.035, Izz2=0.01, d2_min=0.1, d2_max=0.8)


def _rows(*geometry):
    """DHRows joint_1..joint_n from (a, alpha, d, theta_offset, type) tuples."""
    return [DHRow(f'joint_{i}', kind, a, alpha, d, theta)
            for i, (a, alpha, d, theta, kind) in enumerate(geometry, start=1)]


def _three_link():
    p = THREE_LINK
    rows = _rows((0.0, -np.pi / 2, p['l0'], 0.0, 'revolute'), (p['l1'], 0.0, 0.0, 0.0, 'revolute'),
                 (p['l2'], 0.0, 0.0, 0.0, 'revolute'))
    bodies = [Inertial(p['m1'], np.array((0.0, p['l0'] - p['r0'], 0.0)), np.diag(p['I1'])),
              Inertial(p['m2'], np.array((p['r1'] - p['l1'], 0.0, 0.0)), np.diag(p['I2'])),
              Inertial(p['m3'], np.array((p['r2'] - p['l2'], 0.0, 0.0)), np.diag(p['I3']))]
    # Seed 000 eq. (73) moves joint 1 at up to 2 pi rad/s: the velocity limits allow it.
    limits = [dict(effort=60.0, velocity=10.0)] * 2 + [dict(effort=30.0, velocity=10.0)]
    return dh_to_urdf('three_link', rows, bodies, limits)


def _two_link():
    p = TWO_LINK
    zero = np.zeros((3, 3))
    rows = _rows((p['L1'], 0.0, 0.0, 0.0, 'revolute'), (p['L2'], 0.0, 0.0, 0.0, 'revolute'))
    bodies = [Inertial(p['m1'], np.zeros(3), zero), Inertial(p['m2'], np.zeros(3), zero)]
    return dh_to_urdf('two_link', rows, bodies, base_rpy=(np.pi / 2, 0.0, 0.0))


def _rp_arm():
    p = RP_ARM
    # Standard DH: frame 1 = Rz(theta1) Rx(+90 deg); the lecture's COM (0, -l1, 0) and
    # Izz1 in its frame {1} = Rz(theta1) become (0, 0, l1) and the y moment here.
    rows = _rows((0.0, np.pi / 2, 0.0, 0.0, 'revolute'), (0.0, 0.0, 0.0, 0.0, 'prismatic'))
    bodies = [Inertial(p['m1'], np.array((0.0, 0.0, p['l1'])),
                       np.diag((p['Ixx1'], p['Izz1'], p['Iyy1']))),
              Inertial(p['m2'], np.zeros(3), np.diag((p['Ixx2'], p['Iyy2'], p['Izz2'])))]
    limits = [{}, dict(lower=p['d2_min'], upper=p['d2_max'], effort=200.0, velocity=1.0)]
    return dh_to_urdf('rp_arm', rows, bodies, limits, base_rpy=(0.0, -np.pi / 2, 0.0))


def seed_urdfs():
    """{file name: URDF XML} of the bundled seed robots."""
    return {'three_link.urdf': _three_link(), 'two_link.urdf': _two_link(),
            'rp_arm.urdf': _rp_arm()}
