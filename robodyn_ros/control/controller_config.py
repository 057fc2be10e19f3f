"""Controller settings: one validated, typed record built from plain parameter values.

The node hands over its ROS parameters as a ``{name: value}`` dict; every value is checked
here (type, range, per-joint length, valid options) and a bad one raises
:class:`~robodyn_ros.errors.ConfigError` with a one-line message naming the parameter, the
offending value and what is valid. Integers are accepted where floats are meant (YAML
``kp: [400, 400]``, ``rate: 1000``).
"""

from dataclasses import dataclass
import math
import re
from typing import cast

import numpy as np

from ..errors import ConfigError
from .options import OPTION_TYPES, InitialOutput, SafeCommand, Trigger
from .parameters import NODE_ONLY, PARAMETERS, Parameter, config_name
from .safety.limits import SafetyLimits

__all__ = ['ControllerConfig', 'RULES', 'MODEL_RULES', 'diagnostics_period_or_default',
           'safety_limits', 'velocity_limits', 'acceleration_limits', 'SPREAD_SAMPLES',
           'tracking_limit']

#: The final ramp (deactivate, shutdown, SIGINT) must reach the safe command from any output
#: within this time [s], so a process exits within 2 s of a signal: max_torque_rate must be
#: at least 2 x the largest effort limit / this.
FINAL_RAMP_BUDGET = 1.0
#: Earth's gravity [m/s^2] and the accepted deviation of |gravity| from it (the Earth's
#: surface spans 9.78-9.83) unless ``earth_gravity`` is false.
EARTH_GRAVITY, EARTH_GRAVITY_TOLERANCE = 9.81, 0.1
#: With ``earth_gravity: false``: largest accepted |gravity| [m/s^2] (3 g).
MAX_GRAVITY = 30.0
#: Period range of /diagnostics [s] (the node's diagnostics timer outlives a bad value).
DIAGNOSTICS_PERIOD_RANGE = (cast(float, PARAMETERS['diagnostics_period'].low),
                            cast(float, PARAMETERS['diagnostics_period'].high))
#: Largest accepted effort limit [N m or N].
MAX_EFFORT = PARAMETERS['effort_limits'].high
#: A valid ROS 2 topic name (relative, absolute or private), as rcl accepts.
_TOPIC = re.compile(r'^(~/|/)?[A-Za-z_][A-Za-z0-9_]*(/[A-Za-z_][A-Za-z0-9_]*)*$')
#: Python type of each parameter type (control/parameters.py).
_TYPE = {'bool': bool, 'int': int, 'float': float, 'str': str, 'float list': tuple,
         'string list': tuple}


def diagnostics_period_or_default(period: object) -> float:
    """The diagnostics timer's period [s]: ``period`` (the parameter's value) when valid,
    else the default: the node's diagnostics timer starts before configure, which then
    fails naming the parameter, and the diagnostics say so."""
    lower, upper = DIAGNOSTICS_PERIOD_RANGE
    if isinstance(period, (int, float)) and not isinstance(period, bool) and \
            lower <= period <= upper:
        return float(period)
    return ControllerConfig.diagnostics_period


def _default(name):
    """The field default of parameter ``name`` (lists as tuples: the config is frozen; an
    option as its enum member)."""
    value = PARAMETERS[name].default
    if name in OPTION_TYPES:
        return OPTION_TYPES[name](value)
    return tuple(value) if isinstance(value, list) else value


@dataclass(frozen=True)
class ControllerConfig:
    """Every controller setting, in SI units; names, defaults and ranges are the
    parameters' (control/parameters.py; a test keeps the fields equal to them). Per-joint
    lists hold 1 value (all joints) or n.

    ``effort_limits`` / ``velocity_limits`` empty: taken from the URDF.
    """

    joints: tuple[str, ...] = _default('joints')
    rate: float = _default('rate')
    trigger: Trigger = _default('trigger')
    mode: str = _default('mode')
    reference: str = _default('reference')
    amplitudes: tuple[float, ...] = _default('amplitudes')
    periods: tuple[float, ...] = _default('periods')
    ramp: float = _default('ramp')
    interpolation: str = _default('interpolation')
    kp: tuple[float, ...] = _default('kp')
    kd: tuple[float, ...] = _default('kd')
    gain_ramp_time: float = _default('gain_ramp_time')
    include_gravity: bool = _default('include_gravity')
    include_friction: bool = _default('include_friction')
    friction_smoothing: float = _default('friction_smoothing')
    feedforward_pd: bool = _default('feedforward_pd')
    velocity_lag: float = _default('velocity_lag')
    inertia_feedforward: bool = _default('inertia_feedforward')
    adaptive_gamma: tuple[float, ...] = _default('adaptive.gamma')
    adaptive_mass_max: float = _default('adaptive.mass_max')
    adaptive_rest_speed: float = _default('adaptive.rest_speed')
    cartesian_stiffness: tuple[float, ...] = _default('cartesian.stiffness')
    cartesian_damping_ratio: float = _default('cartesian.damping_ratio')
    target_speed: float = _default('target.speed')
    target_rotation_speed: float = _default('target.rotation_speed')
    target_workspace: tuple[float, ...] = _default('target.workspace')
    wrench_max_force: float = _default('wrench.max_force')
    wrench_max_torque: float = _default('wrench.max_torque')
    wrench_rise_time: float = _default('wrench.rise_time')
    wrench_timeout: float = _default('wrench.timeout')
    gravity: tuple[float, ...] = _default('gravity')
    earth_gravity: bool = _default('earth_gravity')
    command_topic: str = _default('command_topic')
    max_trajectory_points: int = _default('max_trajectory_points')
    state_timeout: float = _default('state_timeout')
    diagnostics_period: float = _default('diagnostics_period')
    max_torque_rate: float = _default('max_torque_rate')
    ramp_time: float = _default('ramp_time')
    safe_command: SafeCommand = _default('safe_command')
    initial_output: InitialOutput = _default('initial_output')
    damping: tuple[float, ...] = _default('damping')
    hold_kp: tuple[float, ...] = _default('hold_kp')
    hold_latency: float = _default('hold_latency')
    hold_kd: tuple[float, ...] = _default('hold_kd')
    viscous: tuple[float, ...] = _default('viscous')
    coulomb: tuple[float, ...] = _default('coulomb')
    payload_mass: float = _default('payload.mass')
    payload_com: tuple[float, ...] = _default('payload.com')
    payload_inertia: tuple[float, ...] = _default('payload.inertia')
    effort_limits: tuple[float, ...] = _default('effort_limits')
    velocity_limits: tuple[float, ...] = _default('velocity_limits')
    acceleration_limits: tuple[float, ...] = _default('acceleration_limits')
    position_margin: float = _default('position_margin')
    reference_margin: float = _default('reference_margin')
    velocity_margin: float = _default('velocity_margin')
    max_tracking_error: float = _default('max_tracking_error')
    collision_thresholds: tuple[float, ...] = _default('collision.thresholds')
    collision_gain: float = _default('collision.gain')
    collision_debounce: int = _default('collision.debounce')
    collision_reaction: str = _default('collision.reaction')
    cross_check_every: int = _default('cross_check_every')
    cross_check_tolerance: float = _default('cross_check_tolerance')
    state_publish_rate: float = _default('state_publish_rate')
    follow_joint_trajectory: bool = _default('follow_joint_trajectory')
    input_gateway: bool = _default('input_gateway')
    action_feedback_rate: float = _default('action_feedback_rate')
    goal_time: float = _default('goal_time')
    goal_position_tolerance: tuple[float, ...] = _default('goal_position_tolerance')
    path_position_tolerance: tuple[float, ...] = _default('path_position_tolerance')
    stopped_velocity_tolerance: float = _default('stopped_velocity_tolerance')

    @classmethod
    def from_parameters(cls, values: dict) -> 'ControllerConfig':
        """Validated config from ``{parameter name: value}`` (ROS names, 'payload.mass';
        missing ones take their defaults). The node's own parameters (NODE_ONLY:
        autostart, use_sim_time, the robot's description) are ignored; any other unknown
        name is a ConfigError naming it and the valid ones."""
        kwargs = {}
        for name, value in values.items():
            if name in NODE_ONLY:
                continue
            parameter = PARAMETERS.get(name)
            if parameter is None:
                known = ', '.join(n for n in PARAMETERS if n not in NODE_ONLY)
                raise ConfigError(f'{name}: not a controller parameter; valid: {known}')
            kwargs[config_name(name)] = _coerce(parameter, value)
        config = cls(**kwargs)
        config._check()
        return config

    def _check(self):
        for parameter in PARAMETERS.values():
            if parameter.name not in NODE_ONLY:
                _check_rules(parameter, getattr(self, config_name(parameter.name)))
        # the cross-parameter rules, each once, by the name its declarations give
        for rule in dict.fromkeys(p.rule for p in PARAMETERS.values() if p.rule in RULES):
            RULES[rule](self)

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


def _coerce(parameter, value):
    """``value`` as the parameter's type (float accepts int; a float list accepts ints)."""
    name, kind = parameter.name, _TYPE[parameter.type]
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
        if isinstance(value, str):  # an option as its enum member (a bad one: _check says)
            options = OPTION_TYPES.get(name)
            return options(value) if options is not None and value in tuple(options) else value
        raise ConfigError(f'{name}: expected a string, got {value!r}')
    if isinstance(value, (str, bytes)) or not hasattr(value, '__iter__'):
        raise ConfigError(f'{name}: expected a list, got {value!r}')
    items = list(value)
    if parameter.type == 'string list':
        if not all(isinstance(v, str) for v in items):
            raise ConfigError(f'{name}: expected joint names, got {items!r}')
        return tuple(v for v in items if v)
    return tuple(_number(name, v) for v in items)


def _check_rules(parameter: Parameter, value):
    """The parameter's declared options, range (of a number or each element) and length."""
    name = parameter.name
    if parameter.options:
        _choice(name, value, parameter.options)
    if isinstance(value, tuple):
        if len(value) < parameter.min_length or \
                any(not _in_range(parameter, v) for v in value):
            raise ConfigError(f'{name}: expected values {_range_words(parameter)}, got '
                              f'{list(value)}')
    elif parameter.type in ('int', 'float') and not _in_range(parameter, value):
        if parameter.low is not None and parameter.high is not None and \
                not parameter.low_open:
            _within(name, value, parameter.low, parameter.high, parameter.unit)
        unit = f' {parameter.unit}' if parameter.unit else ''
        raise ConfigError(f'{name}: expected a value {_range_words(parameter)}{unit}, got '
                          f'{value!r}')


def _in_range(parameter, value):
    low, high = parameter.low, parameter.high
    if low is not None and (value <= low if parameter.low_open else value < low):
        return False
    return high is None or value <= high


def _range_words(parameter):
    """'> 0 and <= 1000', '>= 0', ... of a parameter with a range."""
    words = []
    if parameter.low is not None:
        words.append(f'{">" if parameter.low_open else ">="} {parameter.low:g}')
    if parameter.high is not None:
        words.append(f'<= {parameter.high:g}')
    return ' and '.join(words)


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


def _within(name, value, lower, upper, unit='', why=''):
    if not lower <= value <= upper:
        unit = f' {unit}' if unit else ''
        why = f' {why}' if why else ''
        raise ConfigError(f'{name}: expected {lower:g} to {upper:g}{unit}{why}, got {value!r}')


# -- the cross-parameter rules, named by the parameters' ``rule`` -----------------------
def _state_timeout_periods(cfg: ControllerConfig) -> None:
    _within('state_timeout', cfg.state_timeout, 2.0 / cfg.rate, 1.0, 's',
            '(at least 2 control periods)')


def _publish_rate_within_rate(cfg: ControllerConfig) -> None:
    _within('state_publish_rate', cfg.state_publish_rate, 0.0, cfg.rate, 'Hz',
            '(at most the control rate)')


def _topic_name(cfg: ControllerConfig) -> None:
    if not _TOPIC.match(cfg.command_topic):
        raise ConfigError(f'command_topic: {cfg.command_topic!r} is not a valid topic name '
                          "(letters, digits, '_' and '/', e.g. effort_controller/commands)")


def _payload_sizes(cfg: ControllerConfig) -> None:
    if len(cfg.payload_com) != 3 or len(cfg.payload_inertia) != 6:
        raise ConfigError(f'payload: expected com 3 and inertia 6 values, got '
                          f'{list(cfg.payload_com)}, {list(cfg.payload_inertia)}')


def _adaptive_gamma_size(cfg: ControllerConfig) -> None:
    if len(cfg.adaptive_gamma) not in (1, 3):
        raise ConfigError(f'adaptive.gamma: expected 1 value (every parameter) or 3 (mass, '
                          f'first moments, inertia), got {list(cfg.adaptive_gamma)}')


def _cartesian_stiffness_size(cfg: ControllerConfig) -> None:
    if len(cfg.cartesian_stiffness) != 6:
        raise ConfigError(f'cartesian.stiffness: expected 6 values (x y z [N/m], rx ry rz '
                          f'[N m/rad]), got {list(cfg.cartesian_stiffness)}')


def _target_workspace_box(cfg: ControllerConfig) -> None:
    box = list(cfg.target_workspace)
    if box and (len(box) != 6 or any(not box[k] < box[k + 3] for k in range(3))):
        raise ConfigError(f'target.workspace: expected [] or 6 values, x y z min then x y z '
                          f'max [m], each min < max; got {box}')


def _reference_margin_covers_position(cfg: ControllerConfig) -> None:
    if cfg.reference_margin < cfg.position_margin:
        raise ConfigError(f'reference_margin ({cfg.reference_margin}) must be >= '
                          f'position_margin ({cfg.position_margin})')


def _shutdown_ramp_fits(cfg: ControllerConfig, effort: np.ndarray) -> None:
    need = 2.0 * float(np.max(effort, initial=0.0)) / FINAL_RAMP_BUDGET
    if cfg.max_torque_rate < need:
        raise ConfigError(f'max_torque_rate: {cfg.max_torque_rate:g} N m/s cannot ramp the '
                          f'largest effort range (2 x {need * FINAL_RAMP_BUDGET / 2:g}) to the '
                          f'safe command within {FINAL_RAMP_BUDGET:g} s on shutdown; expected '
                          f'>= {need:g}')


#: Rules on the config alone, run by ControllerConfig at construction.
RULES = {'state_timeout_periods': _state_timeout_periods,
         'publish_rate_within_rate': _publish_rate_within_rate,
         'topic_name': _topic_name, 'payload_sizes': _payload_sizes,
         'adaptive_gamma_size': _adaptive_gamma_size,
         'cartesian_stiffness_size': _cartesian_stiffness_size,
         'target_workspace_box': _target_workspace_box,
         'reference_margin_covers_position': _reference_margin_covers_position,
         'gravity_magnitude': ControllerConfig._check_gravity}
#: Rules that need the robot (its effort limits), run by safety_limits.
MODEL_RULES = {'shutdown_ramp_fits': _shutdown_ramp_fits}


def velocity_limits(model, config: ControllerConfig) -> np.ndarray:
    """(n,) velocity limits [rad/s or m/s]: the parameter or the URDF's; inf where none
    (0 or missing). References stay within them; the guard sits velocity_margin above."""
    velocity = config.per_joint('velocity_limits', model.n, model.velocity_limits)
    return np.where(velocity > 0, velocity, np.inf)


#: Configurations over the joint ranges where the derived acceleration limit looks for the
#: largest M_jj (the C++ controller's spread_configuration, the same points).
SPREAD_SAMPLES = 17


def spread_configurations(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """(SPREAD_SAMPLES, n) configurations spread over [lower, upper] (a continuous joint:
    [-pi, pi]) by golden-ratio steps, as robodyn_controllers' model_check.cpp spreads
    them (a test compares the two)."""
    bounded = np.isfinite(lower) & np.isfinite(upper)
    lo, hi = np.where(bounded, lower, -np.pi), np.where(bounded, upper, np.pi)
    s = np.arange(SPREAD_SAMPLES)[:, None]
    i = np.arange(1, len(lo) + 1)[None, :]
    return lo + np.fmod(0.6180339887 * s + 0.4142135624 * i, 1.0) * (hi - lo)


def acceleration_limits(model, config: ControllerConfig, mass_matrix) -> np.ndarray:
    """(n,) largest |reference acceleration| [rad/s^2 or m/s^2]: the parameter where it is
    > 0, else the effort limit / the largest M_jj(q) over spread_configurations (the
    acceleration the effort gives the joint anywhere; ``mass_matrix``: q -> M(q)); inf
    where neither exists. The C++ controller derives the same."""
    n = model.n
    given = config.per_joint('acceleration_limits', n, np.zeros(n))
    effort = config.per_joint('effort_limits', n, model.effort_limits)
    most = np.zeros(n)
    for q in spread_configurations(model.lower, model.upper):
        most = np.maximum(most, np.diag(np.asarray(mass_matrix(q), dtype=float)))
    derived = np.divide(effort, most, out=np.full(n, np.inf), where=most > 0.0)
    return np.where(given > 0.0, given, derived)


def tracking_limit(config: ControllerConfig) -> float | None:
    """max_tracking_error [rad or m] where the law follows a reference with feedback, else
    None (0: off; mode gravity, or feedforward without its PD: nothing pulls the arm to
    the reference, so a distance from it is no fault)."""
    from .laws import LAWS, LawConfig
    feedback = LAWS[config.mode].follows_reference(LawConfig(
        config.mode, np.zeros(0), np.zeros(0), feedforward_pd=config.feedforward_pd))
    return config.max_tracking_error if config.max_tracking_error > 0 and feedback else None


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
    MODEL_RULES['shutdown_ramp_fits'](cfg, effort)
    velocity = velocity_limits(model, cfg) * (1.0 + cfg.velocity_margin)
    return SafetyLimits(
        effort=effort, max_torque_rate=cfg.max_torque_rate, period=1.0 / cfg.rate,
        ramp_time=cfg.ramp_time, state_timeout=cfg.state_timeout,
        lower=model.lower + cfg.position_margin, upper=model.upper - cfg.position_margin,
        velocity=velocity, damping=cfg.per_joint('damping', n),
        safe_command=cfg.safe_command, initial_output=cfg.initial_output,
        hold_kp=cfg.per_joint('hold_kp', n, np.full(n, np.nan)),
        hold_kd=cfg.per_joint('hold_kd', n, np.full(n, np.nan)),
        loop_latency=cfg.hold_latency)
