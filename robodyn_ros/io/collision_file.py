"""The collision settings file: observer gain, debounce and per-joint thresholds (YAML).

    collision:
      gain: 50.0          # K_O [1/s]
      debounce: 3         # samples over threshold before a contact is declared
      margin: 2.0         # how the thresholds were derived (informative)
      thresholds:         # [N m or N], one per joint of the chain
        panda_joint1: 1.25
        ...

``robodyn contacts BAG --derive FILE`` writes it from a collision-free recording; the same
file is read back by ``--thresholds FILE``.
"""

import os

import numpy as np
import yaml

from ..errors import ConfigError

__all__ = ['read_collision_file', 'write_collision_file']


def write_collision_file(path: str | os.PathLike, joints, thresholds, gain: float,
                         debounce: int, margin: float) -> None:
    """Write the settings (refuses to replace an existing file)."""
    body = {'collision': {'gain': float(gain), 'debounce': int(debounce),
                          'margin': float(margin),
                          'thresholds': {j: round(float(v), 6)
                                         for j, v in zip(joints, thresholds)}}}
    with open(path, 'x', encoding='utf-8') as handle:
        yaml.safe_dump(body, handle, sort_keys=False)


def read_collision_file(path: str | os.PathLike, joints) -> tuple[np.ndarray, float, int]:
    """(thresholds in ``joints`` order, gain, debounce); ConfigError naming what is wrong."""
    try:
        with open(path, encoding='utf-8') as handle:
            data = yaml.safe_load(handle)
    except yaml.YAMLError as exc:
        raise ConfigError(f'{path}: not YAML ({str(exc).splitlines()[0]})') from None
    body = data.get('collision') if isinstance(data, dict) else None
    if not isinstance(body, dict) or not isinstance(body.get('thresholds'), dict):
        raise ConfigError(f'{path}: expected a "collision:" mapping with "thresholds:" '
                          '{joint: N m}')
    given = body['thresholds']
    missing = [j for j in joints if j not in given]
    unknown = [j for j in given if j not in joints]
    if missing or unknown:
        raise ConfigError(f'{path}: thresholds for joints {missing} missing, {unknown} not in '
                          f'the chain; the chain is {list(joints)}')
    try:
        thresholds = np.array([float(given[j]) for j in joints])
        gain, debounce = float(body.get('gain', 50.0)), body.get('debounce', 3)
    except (TypeError, ValueError):
        raise ConfigError(f'{path}: thresholds and gain must be numbers') from None
    if not isinstance(debounce, int) or isinstance(debounce, bool):
        raise ConfigError(f'{path}: debounce must be an integer number of samples, got '
                          f'{debounce!r}')
    return thresholds, gain, debounce
