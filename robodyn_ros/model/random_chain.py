"""Random URDF chains for tests and benchmarks: random axes, rpy offsets, fixed joints
between moving ones, off-chain branches, revolute/continuous/prismatic joints."""

import numpy as np


def _f(*values):
    return ' '.join(repr(float(v)) for v in values)


def _inertia(rng):
    moments = np.sort(rng.uniform(0.01, 0.1, 3))
    moments[2] = min(moments[2], moments[0] + moments[1] - 1e-3)
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return q @ np.diag(moments) @ q.T


def _link(name, rng, mass=None):
    i = _inertia(rng)
    com = rng.uniform(-0.1, 0.1, 3)
    rpy = rng.uniform(-np.pi, np.pi, 3)
    from .spatial import rpy_to_matrix
    r = rpy_to_matrix(rpy)
    i_local = r.T @ i @ r
    m = rng.uniform(0.5, 3.0) if mass is None else mass
    return (f'<link name="{name}"><inertial><origin xyz="{_f(*com)}" '
            f'rpy="{_f(*rpy)}"/><mass value="{_f(m)}"/>'
            f'<inertia ixx="{_f(i_local[0, 0])}" ixy="{_f(i_local[0, 1])}" '
            f'ixz="{_f(i_local[0, 2])}" iyy="{_f(i_local[1, 1])}" iyz="{_f(i_local[1, 2])}" '
            f'izz="{_f(i_local[2, 2])}"/></inertial></link>')


def _joint(name, jtype, parent, child, rng, axis=None, tilt=None):
    """URDF joint; ``tilt``: rpy within +-tilt instead of any orientation."""
    xyz = rng.uniform(-0.3, 0.3, 3)
    rpy = rng.uniform(-np.pi, np.pi, 3) if tilt is None else rng.uniform(-tilt, tilt, 3)
    if axis is None:
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
    limit = ''
    if jtype in ('revolute', 'prismatic'):
        limit = '<limit lower="-3" upper="3" effort="200" velocity="10"/>'
    elif jtype == 'continuous':
        limit = '<limit effort="200" velocity="10"/>'
    return (f'<joint name="{name}" type="{jtype}"><parent link="{parent}"/>'
            f'<child link="{child}"/><origin xyz="{_f(*xyz)}" '
            f'rpy="{_f(*rpy)}"/><axis xyz="{_f(*axis)}"/>{limit}'
            '<dynamics damping="0.1" friction="0.05"/></joint>')


def random_chain(n, seed=0, branches=True, special_axes=False, nearly_parallel=0.0):
    """URDF XML of a random n-joint chain from 'base' to 'tip'. ``nearly_parallel`` > 0:
    every odd joint's axis is the previous joint's tilted by up to that angle [rad] (as
    rounded or calibrated vendor descriptions have them)."""
    rng = np.random.default_rng(seed)
    parts = ['<robot name="random_chain">', '<link name="base"/>']
    parent, axis = 'base', None
    for k in range(n):
        jtype = rng.choice(['revolute', 'revolute', 'continuous', 'prismatic'])
        link = f'l{k}'
        parts.append(_link(link, rng))
        tilt = nearly_parallel if nearly_parallel and k % 2 else None
        if nearly_parallel and not k % 2:  # the odd joint after it keeps this axis
            axis = rng.normal(size=3)
            axis /= np.linalg.norm(axis)
        elif not nearly_parallel:
            axis = np.eye(3)[k % 3] if special_axes and k % 2 else None
        parts.append(_joint(f'j{k}', jtype, parent, link, rng, axis, tilt))
        parent = link
        if not nearly_parallel and rng.uniform() < 0.5:  # fixed joint between moving ones
            parts.append(_link(f'l{k}_fixed', rng))
            parts.append(_joint(f'j{k}_fixed', 'fixed', parent, f'l{k}_fixed', rng))
            parent = f'l{k}_fixed'
        if branches and rng.uniform() < 0.4:  # off-chain branch, locked
            parts.append(_link(f'b{k}', rng))
            parts.append(_joint(f'jb{k}', 'revolute', parent, f'b{k}', rng))
            parts.append('<link name="b{0}_leaf"/>'.format(k))
            parts.append(_joint(f'jb{k}_leaf', 'fixed', f'b{k}', f'b{k}_leaf', rng))
    parts.append('<link name="tip"/>')
    parts.append(_joint('tip_joint', 'fixed', parent, 'tip', rng))
    parts.append('</robot>')
    return '\n'.join(parts)
