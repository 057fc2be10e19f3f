"""The URDF kinematic tree -> one serial chain: cycle check, root, chain path, default
tip, locked off-chain joints, and every link's inertial lumped into its chain body."""

from typing import Any

import numpy as np

from ..errors import ModelError
from .inertial import check_physical, lump

__all__ = ['MOVING', 'kinematic_tree', 'chain_path', 'check_locked', 'lumped_bodies',
           'locked_value', 'fixed_anchor']

MOVING = ('revolute', 'continuous', 'prismatic')


def check_acyclic(parent_joint):
    """ModelError naming the links of a cycle (each link has at most one parent)."""
    done: set[str] = set()
    for start in parent_joint:
        seen: dict[str, None] = {}
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


def kinematic_tree(robot):
    """(root link, {link: child joints}, {link: parent joint}); ModelError for a cycle or
    several roots."""
    children: dict[str, list] = {name: [] for name in robot.links}
    parent_joint: dict[str, Any] = {}
    for joint in robot.joints.values():
        children[joint.parent].append(joint)
        parent_joint[joint.child] = joint
    check_acyclic(parent_joint)
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
                         'choose one (--tip on the command line, tip_link as a parameter)')
    return leaves[0]


def locked_value(joint, locked, robot):
    if joint.mimic is not None:
        target, mult, offset = joint.mimic
        if target not in robot.joints:
            raise ModelError(f'joint {joint.name!r} mimics unknown joint {target!r}')
        return mult * locked.get(target, 0.0) + offset
    return locked.get(joint.name, 0.0)


def fixed_anchor(robot, children, parent_joint, base, tip_link):
    """(anchor link, pose of ``base`` in it) when ``base`` is a fixed frame beside the
    chain (REP-103's ``base`` under UR's ``base_link``): the nearest ancestor reached from
    ``base`` through fixed joints only that has moving joints (and the tip) below it;
    (base, identity) otherwise. The chain is then built from the anchor and expressed in
    ``base`` by that constant transform."""
    if base not in robot.links or (tip_link is not None and tip_link not in robot.links):
        return base, np.eye(4)
    link, pose = base, np.eye(4)
    while True:
        below = _path_to(tip_link, link, parent_joint) if tip_link else \
            _has_moving_below(link, children)
        if below or link not in parent_joint:
            return (link, pose) if below else (base, np.eye(4))
        joint = parent_joint[link]
        if joint.type != 'fixed':
            return base, np.eye(4)
        pose = joint.origin @ pose
        link = joint.parent


def _has_moving_below(link, children):
    stack = [link]
    while stack:
        for joint in children[stack.pop()]:
            if joint.type in MOVING:
                return True
            stack.append(joint.child)
    return False


def chain_path(robot, children, parent_joint, base, tip_link):
    """(tip, the joints from ``base`` to the tip): the tip given or the unique deepest
    leaf; ModelError for unknown links or joints the chain cannot hold."""
    valid = ', '.join(sorted(robot.links))
    if base not in robot.links:
        raise ModelError(f'unknown base link {base!r}; links: {valid}')
    if tip_link is not None and tip_link not in robot.links:
        raise ModelError(f'unknown tip link {tip_link!r}; links: {valid}')
    tip = tip_link or _default_tip(base, children)
    path = _path_to(tip, base, parent_joint)
    if path is None:
        raise ModelError(f'tip link {tip!r} is not below base link {base!r}')
    for joint in path:
        if joint.type in ('floating', 'planar'):
            raise ModelError(f'joint {joint.name!r} in the chain is {joint.type}; only revolute,'
                             ' continuous, prismatic and fixed joints are supported')
        if joint.mimic is not None and joint.type in MOVING:
            raise ModelError(f'joint {joint.name!r} in the chain is a mimic joint; mimic joints '
                             'are only supported off the chain (locked)')
    return tip, path


def check_locked(robot, locked, on_path):
    """ModelError unless every locked joint is an off-chain moving joint."""
    for name in locked:
        if name not in robot.joints or name in on_path:
            options = sorted(n for n in robot.joints if n not in on_path
                             and robot.joints[n].type in MOVING)
            raise ModelError(f'cannot lock {name!r}: not an off-chain moving joint; '
                             f'valid: {", ".join(options) or "none"}')


def _inertial_part(robot, link, pose, notes, strict):
    """The link's inertial in its body frame (None when massless); checked (warnings
    appended to ``notes``)."""
    inertial = robot.links[link].inertial
    if inertial is None:
        return None
    what = f'link {link!r}'
    if inertial.mass < 0:
        raise ModelError(f'{what}: negative mass {inertial.mass!r}')
    if inertial.mass > 0 or np.abs(inertial.inertia).max() > 0:
        notes.extend(check_physical(inertial, what, strict=strict))
        return inertial.transformed(pose)
    return None


def lumped_bodies(robot, base, children, path, chain_links, joints, locked, motion,
                  strict=True, require_mass=True):
    """(one Inertial per moving joint, warnings): every link below ``base`` lumped into the
    chain body it is rigidly attached to (off-chain joints at their locked positions;
    ``motion``: callable(joint, q) -> 4x4). ModelError for a massless moving body; a
    violated triangle inequality is a warning unless ``strict``."""
    on_path = {j.name for j in path}
    parts: list[list] = [[] for _ in joints]
    notes: list[str] = []
    stack = [(base, -1, np.eye(4))]
    while stack:
        link, body, pose = stack.pop()
        part = _inertial_part(robot, link, pose, notes, strict) if body >= 0 else None
        if part is not None:
            parts[body].append(part)
        for joint in children[link]:
            if joint.name in on_path:
                moving = joint.type in MOVING
                stack.append((joint.child, chain_links[joint.child] if moving else body,
                              np.eye(4) if moving else pose @ joint.origin))
            elif body >= 0:  # below the base; a subtree fixed to the ground does not count
                if joint.type in ('floating', 'planar'):
                    raise ModelError(f'joint {joint.name!r} below the base is {joint.type}; '
                                     'it cannot be locked into a fixed-base chain')
                q = locked_value(joint, locked, robot)
                step = motion(joint, q) if joint.type in MOVING else np.eye(4)
                stack.append((joint.child, body, pose @ joint.origin @ step))
    bodies = []
    for k, joint in enumerate(joints):
        body = lump(parts[k])
        if body.mass <= 0.0:
            if require_mass:
                raise ModelError(f'moving body after joint {joint.name!r} has no mass '
                                 '(no link with a positive-mass <inertial>)')
            bodies.append(body)
            continue
        lumped = check_physical(body, f'body after joint {joint.name!r}', strict=strict)
        if not notes:  # a link already named is not said again as its lumped body
            notes.extend(lumped)
        bodies.append(body)
    massless = [j.name for j, b in zip(joints, bodies) if not b.mass > 0.0]
    if massless:
        notes.append(f'no <inertial> with mass after joints {massless}: kinematics and DH '
                     'only; the dynamics need inertials')
    return bodies, notes
