"""Effort limits of the chain: given explicitly or from the URDF, never missing or 0."""

from collections.abc import Sequence
from dataclasses import replace
import xml.etree.ElementTree as ET

import numpy as np

from ..errors import ModelError

__all__ = ['EffortLimits', 'with_effort_limits', 'xml_with_efforts']

#: Effort limits [N m or N]: {joint: value}, one value per chain joint, or one for all.
EffortLimits = dict[str, float] | Sequence[float] | float


def xml_with_efforts(xml, joints):
    """The URDF text with the chain joints' effort limits as the model has them (urdfdom
    consumers such as Pinocchio refuse a <limit> without effort)."""
    root = ET.fromstring(xml)
    # urdfdom readers need a number; a missing limit (inf) is written as 0, as exporters do
    effort = {j.name: j.effort if np.isfinite(j.effort) else 0.0 for j in joints}
    for elem in root.findall('joint'):
        limit = elem.find('limit')
        if elem.get('name') in effort and limit is not None:
            limit.set('effort', repr(effort[elem.get('name')]))
    return ET.tostring(root, encoding='unicode')


def with_effort_limits(joints, given, missing, required=True):
    """(the chain joints with the given effort limits applied, warnings). A joint left
    without a positive, finite one: ModelError when ``required``; else its effort is inf
    and a warning says so (kinematics, dynamics, checks and identification need none; a
    controller refuses to start without them)."""
    names = [j.name for j in joints]
    if given is not None:
        if isinstance(given, dict):
            unknown = sorted(set(given) - set(names))
            if unknown:
                raise ModelError(f'effort limits for joints {unknown} not in the chain; '
                                 f'chain joints: {names}')
            values: Sequence[float] = [
                given.get(name, joint.effort) for name, joint in zip(names, joints)]
        else:
            if not (np.ndim(given) == 0 or len(given) in (1, len(names))):
                raise ModelError(f'effort limits: expected 1 or {len(names)} values (one per '
                                 f'chain joint {names}), got {len(given)}')
            values = list(np.broadcast_to(np.asarray(given, dtype=float).reshape(-1),
                                          (len(names),)))
        joints = [replace(j, effort=float(v)) for j, v in zip(joints, values)]
    bad = {j.name: ('missing' if j.name in missing or j.effort == np.inf else f'{j.effort:g}')
           for j in joints if not (np.isfinite(j.effort) and j.effort > 0)}
    if bad and required:
        raise ModelError(f'effort limits missing or not positive for joints {bad}; give them '
                         'explicitly (--effort-limits, or the effort_limits parameter) [N m '
                         'or N]')
    if bad:
        joints = [replace(j, effort=np.inf) if j.name in bad else j for j in joints]
        return joints, [f'effort limits missing or 0 for joints {bad}: used as none here; a '
                        'controller needs them (--effort-limits, or its effort_limits '
                        'parameter) [N m or N]']
    return joints, []

