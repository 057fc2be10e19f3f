"""Controller settings: one validated, typed record built from plain parameter values.

The node hands over its ROS parameters as a ``{name: value}`` dict; every value is checked
here (type, range, per-joint length, valid options) and a bad one raises
:class:`~robodyn_ros.errors.ConfigError` with a one-line message naming the parameter, the
offending value and what is valid. Integers are accepted where floats are meant (YAML
``kp: [400, 400]``, ``rate: 1000``).
"""

from dataclasses import dataclass, field, fields
import math
import re

import numpy as np

from ..defaults import COMMAND_TOPIC, GRAVITY
from ..errors import ConfigError
from .laws import MODES
from .reference.trajectories import KINDS
from .safety.supervisor import SafetyLimits

__all__ = ['ControllerConfig', 'TRIGGERS', 'SAFE_COMMANDS', 'REFERENCES', 'safety_limits']

TRIGGERS = ('timer', 'state')
SAFE_COMMANDS = ('hold', 'zero')
REFERENCES = ('hold', 'one_minus_cos', 'sum_of_sines')
INTERPOLATIONS = KINDS
#: Control rate range [Hz]: below 100 Hz a torque loop is not a torque loop; above 20 kHz no
#: ROS transport keeps up.
RATE_RANGE = (100.0, 20000.0)
#: Largest accepted torque rate limit [N m/s]: 100 N m per millisecond, beyond any arm's
#: effort range in one 1 kHz step.
MAX_TORQUE_RATE = 1e5
#: The final ramp (deactivate, shutdown, SIGINT) must reach the safe command from any output
#: within this time [s], so a process exits within 2 s of a signal: max_torque_rate must be
#: at least 2 x the largest effort limit / this.
FINAL_RAMP_BUDGET = 1.0
#: Earth's gravity [m/s^2] and the accepted deviation of |gravity| from it (the Earth's
#: surface spans 9.78-9.83) unless ``earth_gravity`` is false.
EARTH_GRAVITY, EARTH_GRAVITY_TOLERANCE = 9.81, 0.1
#: With ``earth_gravity: false``: largest accepted |gravity| [m/s^2] (3 g).
MAX_GRAVITY = 30.0
#: Period range of /diagnostics [s].
DIAGNOSTICS_PERIOD_RANGE = (0.01, 10.0)
#: Largest accepted effort limit [N m or N].
MAX_EFFORT = 1e4
#: Largest JointTrajectory / FollowJointTrajectory goal accepted (points).
MAX_TRAJECTORY_POINTS = 100000
#: A valid ROS 2 topic name (relative, absolute or private), as rcl accepts.
_TOPIC = re.compile(r'^(~/|/)?[A-Za-z_][A-Za-z0-9_]*(/[A-Za-z_][A-Za-z0-9_]*)*$')


@dataclass(frozen=True)
class ControllerConfig:
    """Every controller setting, in SI units. Per-joint lists hold 1 value (all joints) or n.

    ``effort_limits`` / ``velocity_limits`` empty: taken from the URDF.
    """

    joints: tuple = ()
    rate: float = 1000.0
    trigger: str = 'state'
    mode: str = 'computed_torque'
    reference: str = 'hold'
    amplitudes: tuple = ()
    periods: tuple = ()
    ramp: float = 1.0
    interpolation: str = 'auto'
    kp: tuple = (0.0,)
    kd: tuple = (0.0,)
    include_gravity: bool = True
    include_friction: bool = False
    friction_smoothing: float = 0.01
    feedforward_pd: bool = True
    gravity: tuple = GRAVITY
    earth_gravity: bool = True
    command_topic: str = COMMAND_TOPIC
    max_trajectory_points: int = 10000
    state_timeout: float = 0.05
    diagnostics_period: float = 0.1
    max_torque_rate: float = 1000.0
    ramp_time: float = 0.2
    safe_command: str = 'hold'
    initial_output: str = 'hold'
    damping: tuple = (1.0,)
    viscous: tuple = ()
    coulomb: tuple = ()
    payload_mass: float = 0.0
    payload_com: tuple = (0.0, 0.0, 0.0)
    payload_inertia: tuple = (0.0,) * 6
    effort_limits: tuple = ()
    velocity_limits: tuple = ()
    position_margin: float = 0.02
    reference_margin: float = 0.05
    velocity_margin: float = 0.1
    cross_check_every: int = 0
    cross_check_tolerance: float = 1e-6
    state_publish_rate: float = 50.0
    follow_joint_trajectory: bool = True
    action_feedback_rate: float = 20.0
    goal_time: float = 1.0
    goal_position_tolerance: tuple = (0.0,)
    path_position_tolerance: tuple = (0.0,)
    stopped_velocity_tolerance: float = 0.01
    extra: dict = field(default_factory=dict, compare=False)

    @classmethod
    def from_parameters(cls, values):
        """Validated config from ``{name: value}``; unknown names are kept in ``extra``."""
        known = {f.name: f for f in fields(cls) if f.name != 'extra'}
        kwargs = {}
        values = {name.replace('.', '_'): value for name, value in values.items()}
        for name, value in values.items():
            if name in known:
                kwargs[name] = _coerce(name, value, type(getattr(cls, name)))
        config = cls(**kwargs, extra={k: v for k, v in values.items() if k not in known})
        config._check()
        return config

    def _check(self):
        _choice('trigger', self.trigger, TRIGGERS)
        _choice('mode', self.mode, MODES)
        _choice('reference', self.reference, REFERENCES)
        _choice('safe_command', self.safe_command, SAFE_COMMANDS)
        _choice('initial_output', self.initial_output, SAFE_COMMANDS)
        _choice('interpolation', self.interpolation, INTERPOLATIONS)
        _within('rate', self.rate, *RATE_RANGE, 'Hz')
        _within('state_timeout', self.state_timeout, 2.0 / self.rate, 1.0, 's',
                '(at least 2 control periods)')
        _within('diagnostics_period', self.diagnostics_period, *DIAGNOSTICS_PERIOD_RANGE, 's')
        _positive('max_torque_rate', self.max_torque_rate, upper=MAX_TORQUE_RATE)
        _positive('cross_check_tolerance', self.cross_check_tolerance, upper=1e3)
        _positive('action_feedback_rate', self.action_feedback_rate, upper=1000.0)
        for name, upper in (('ramp', 60.0), ('ramp_time', 10.0), ('friction_smoothing', 10.0),
                            ('position_margin', 1.0), ('reference_margin', 1.0),
                            ('velocity_margin', 10.0), ('state_publish_rate', self.rate),
                            ('goal_time', 3600.0), ('stopped_velocity_tolerance', 10.0)):
            _within(name, getattr(self, name), 0.0, upper)
        _within('max_trajectory_points', self.max_trajectory_points, 2,
                MAX_TRAJECTORY_POINTS, 'points')
        if not _TOPIC.match(self.command_topic):
            raise ConfigError(f'command_topic: {self.command_topic!r} is not a valid topic name '
                              "(letters, digits, '_' and '/', e.g. effort_controller/commands)")
        self._check_gravity()
        if self.cross_check_every < 0:
            raise ConfigError(f'cross_check_every: expected >= 0 (0 = off), '
                              f'got {self.cross_check_every}')
        if len(self.payload_com) != 3 or len(self.payload_inertia) != 6 or \
                self.payload_mass < 0:
            raise ConfigError(f'payload: expected mass >= 0, com 3 and inertia 6 values, got '
                              f'{self.payload_mass}, {list(self.payload_com)}, '
                              f'{list(self.payload_inertia)}')
        if any(v < 0 for v in (*self.viscous, *self.coulomb)):
            raise ConfigError(f'viscous, coulomb: expected values >= 0, got '
                              f'{list(self.viscous)}, {list(self.coulomb)}')
        for name in ('kp', 'kd', 'damping', 'goal_position_tolerance',
                     'path_position_tolerance'):
            values = getattr(self, name)
            if not values or any(v < 0 for v in values):
                raise ConfigError(f'{name}: expected values >= 0, got {list(values)}')
        for name, upper in (('effort_limits', MAX_EFFORT), ('velocity_limits', 1e3)):
            if any(not 0 < v <= upper for v in getattr(self, name)):
                raise ConfigError(f'{name}: expected values > 0 and <= {upper:g}, got '
                                  f'{list(getattr(self, name))}')
        if self.reference_margin < self.position_margin:
            raise ConfigError(f'reference_margin ({self.reference_margin}) must be >= '
                              f'position_margin ({self.position_margin})')

    def _check_gravity(self):
        if len(self.gravity) != 3:
            raise ConfigError(f'gravity: expected 3 values [m/s^2], got {list(self.gravity)}')
        norm = math.sqrt(sum(g * g for g in self.gravity))
        if self.earth_gravity and abs(norm - EARTH_GRAVITY) > EARTH_GRAVITY_TOLERANCE:
            raise ConfigError(f'gravity: |{list(self.gravity)}| = {norm:.4g} m/s^2 is not '
                              f"Earth's ({EARTH_GRAVITY} +- {EARTH_GRAVITY_TOLERANCE}); set "
                              'earth_gravity: false to allow another magnitude')
        if norm > MAX_GRAVITY:
            raise ConfigError(f'gravity: |{list(self.gravity)}| = {norm:.4g} m/s^2 is above '
                              f'{MAX_GRAVITY} m/s^2')

    def goal_defaults(self, n):
        """Default tolerances of FollowJointTrajectory goals ((n,) arrays, inf = not
        checked): path and goal position, stopped velocity, goal_time."""
        from .reference.trajectory_goal import GoalTolerances

        def checked(name):
            values = self.per_joint(name, n)
            return np.where(values > 0, values, np.inf)
        stopped = self.stopped_velocity_tolerance
        return GoalTolerances(checked('path_position_tolerance'), np.full(n, np.inf),
                              checked('goal_position_tolerance'),
                              np.full(n, stopped if stopped > 0 else np.inf), self.goal_time)

    def per_joint(self, name, n, default=None):
        """Parameter ``name`` as an (n,) array (1 value broadcast); ``default`` if empty."""
        values = getattr(self, name)
        if not values:
            if default is None:
                raise ConfigError(f'{name}: expected 1 or {n} values, got none')
            return np.asarray(default, dtype=float).copy()
        if len(values) == 1:
            return np.full(n, float(values[0]))
        if len(values) != n:
            raise ConfigError(f'{name}: expected 1 or {n} values (one per joint), got '
                              f'{len(values)}: {list(values)}')
        return np.asarray(values, dtype=float)


def _coerce(name, value, kind):
    """``value`` as ``kind`` (float accepts int; tuple of float accepts int arrays)."""
    if kind is bool:
        if isinstance(value, bool):
            return value
        raise ConfigError(f'{name}: expected true or false, got {value!r}')
    if kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise ConfigError(f'{name}: expected an integer, got {value!r}')
    if kind is float:
        return _number(name, value)
    if kind is str:
        if isinstance(value, str):
            return value
        raise ConfigError(f'{name}: expected a string, got {value!r}')
    if isinstance(value, (str, bytes)) or not hasattr(value, '__iter__'):
        raise ConfigError(f'{name}: expected a list, got {value!r}')
    items = list(value)
    if name == 'joints':
        if not all(isinstance(v, str) for v in items):
            raise ConfigError(f'joints: expected joint names, got {items!r}')
        return tuple(v for v in items if v)
    return tuple(_number(name, v) for v in items)


def _number(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f'{name}: expected a number, got {value!r}')
    value = float(value)
    if not math.isfinite(value):
        raise ConfigError(f'{name}: expected a finite number, got {value!r}')
    return value


def _choice(name, value, options):
    if value not in options:
        raise ConfigError(f'{name}: unknown value {value!r}; valid: {", ".join(options)}')


def _positive(name, value, upper=math.inf):
    if not 0.0 < value <= upper:
        bound = '' if upper == math.inf else f' and <= {upper:g}'
        raise ConfigError(f'{name}: expected a value > 0{bound}, got {value!r}')


def _within(name, value, lower, upper, unit='', why=''):
    if not lower <= value <= upper:
        unit = f' {unit}' if unit else ''
        why = f' {why}' if why else ''
        raise ConfigError(f'{name}: expected {lower:g} to {upper:g}{unit}{why}, got {value!r}')


def safety_limits(model, config: ControllerConfig) -> SafetyLimits:
    """The supervisor's limits for ``model`` under ``config``: effort (parameter or URDF;
    ConfigError when missing or 0), guard bands, rate limit, timeouts."""
    cfg, n = config, model.n
    effort = cfg.per_joint('effort_limits', n, model.effort_limits)
    bad = [model.joint_names[i] for i in np.flatnonzero(~np.isfinite(effort) | (effort <= 0))]
    if bad:
        raise ConfigError(f'effort limits missing or 0 in the URDF for joints {bad}; '
                          'give them with the effort_limits parameter [N m or N]')
    if np.any(effort > MAX_EFFORT):
        raise ConfigError(f'effort limits {list(effort)} above {MAX_EFFORT:g} [N m or N]; give '
                          'the real ones with the effort_limits parameter')
    need = 2.0 * float(np.max(effort, initial=0.0)) / FINAL_RAMP_BUDGET
    if cfg.max_torque_rate < need:
        raise ConfigError(f'max_torque_rate: {cfg.max_torque_rate:g} N m/s cannot ramp the '
                          f'largest effort range (2 x {need * FINAL_RAMP_BUDGET / 2:g}) to the '
                          f'safe command within {FINAL_RAMP_BUDGET:g} s on shutdown; expected '
                          f'>= {need:g}')
    velocity = cfg.per_joint('velocity_limits', n, model.velocity_limits)
    velocity = np.where(velocity > 0, velocity * (1.0 + cfg.velocity_margin), np.inf)
    return SafetyLimits(
        effort=effort, max_torque_rate=cfg.max_torque_rate, period=1.0 / cfg.rate,
        ramp_time=cfg.ramp_time, state_timeout=cfg.state_timeout,
        lower=model.lower + cfg.position_margin, upper=model.upper - cfg.position_margin,
        velocity=velocity, damping=cfg.per_joint('damping', n),
        safe_command=cfg.safe_command, initial_output=cfg.initial_output)
