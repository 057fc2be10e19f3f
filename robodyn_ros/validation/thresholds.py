"""Pass/fail thresholds of ``robodyn validate``: from the command line, a YAML file, or,
when neither gives any, the stated defaults. Every value is checked (finite, >= 0).

YAML file::

    max_rms: 0.002          # [rad or m], every joint
    max_abs: 0.01
    joints:                 # per-joint overrides
      panda_joint1: {max_rms: 0.001}
"""

from dataclasses import dataclass, field
import math

from ..errors import ConfigError

__all__ = ['Thresholds', 'DEFAULT_MAX_RMS', 'DEFAULT_MAX_ABS', 'resolve_thresholds']

#: Without any threshold a bag is judged against these [rad or m]: a sanity bound that an
#: arm under control meets and a flailing or falling one does not; not a tracking spec.
DEFAULT_MAX_RMS = 0.05
DEFAULT_MAX_ABS = 0.2
KEYS = ('max_rms', 'max_abs')


@dataclass(frozen=True)
class Thresholds:
    """Global ``max_rms``/``max_abs`` (None: not checked), per-joint overrides, and where
    they came from ('given' or 'default')."""

    max_rms: float | None
    max_abs: float | None
    joints: dict = field(default_factory=dict)
    source: str = 'given'

    def for_joint(self, name: str) -> dict[str, float | None]:
        """{'max_rms': ..., 'max_abs': ...} for one joint."""
        limits = dict(max_rms=self.max_rms, max_abs=self.max_abs)
        limits.update({k: v for k, v in self.joints.get(name, {}).items() if v is not None})
        return limits


def _value(where, value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not math.isfinite(value) or value < 0:
        raise ConfigError(f'threshold {where}: expected a finite number >= 0 [rad or m], '
                          f'got {value!r}')
    return float(value)


def _from_yaml(path):
    import yaml
    try:
        with open(path, encoding='utf-8') as handle:
            data = yaml.safe_load(handle) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f'thresholds file {path}: {" ".join(str(exc).split())}') from None
    if not isinstance(data, dict):
        raise ConfigError(f'thresholds file {path}: expected a mapping with max_rms, max_abs '
                          f'and joints, got a {type(data).__name__}')
    unknown = sorted(set(data) - {*KEYS, 'joints'})
    joints = data.get('joints') or {}
    if unknown or not isinstance(joints, dict):
        raise ConfigError(f'thresholds file {path}: unknown keys {unknown} or joints not a '
                          'mapping; valid: max_rms, max_abs, joints: {name: {max_rms, '
                          'max_abs}}')
    per_joint = {}
    for name, limits in joints.items():
        if not isinstance(limits, dict) or set(limits) - set(KEYS):
            raise ConfigError(f'thresholds file {path}: joints.{name} must map max_rms / '
                              f'max_abs to numbers, got {limits!r}')
        per_joint[str(name)] = {k: _value(f'{path}: joints.{name}.{k}', v)
                                for k, v in limits.items()}
    return (_value(f'{path}: max_rms', data.get('max_rms')),
            _value(f'{path}: max_abs', data.get('max_abs')), per_joint)


def resolve_thresholds(max_rms: float | None = None, max_abs: float | None = None,
                       path: str | None = None) -> Thresholds:
    """Thresholds from the command line (they win), the YAML at ``path``, else defaults.

    Raises:
        ConfigError: a non-finite or negative value, an unreadable or malformed file.
    """
    max_rms, max_abs = _value('--max-rms', max_rms), _value('--max-abs', max_abs)
    joints = {}
    if path:
        y_rms, y_abs, joints = _from_yaml(path)
        max_rms = max_rms if max_rms is not None else y_rms
        max_abs = max_abs if max_abs is not None else y_abs
    if max_rms is None and max_abs is None and not joints:
        return Thresholds(DEFAULT_MAX_RMS, DEFAULT_MAX_ABS, {}, 'default')
    return Thresholds(max_rms, max_abs, joints, 'given')
