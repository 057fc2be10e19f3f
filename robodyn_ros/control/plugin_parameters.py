"""The model and settings of the C++ ros2_control controller
(``robodyn_controllers/ComputedTorqueController``) as the parameters rcl loads.

One model, not a second parser: the DH rows with Hayati's beta, the inertials in the DH
frames (seed 003 eq. 45-46), friction (seed 004), gravity in frame 0 and the limits are
those of the :class:`~robodyn_ros.dynamics.RigidBodyDynamics` the node itself runs, checked
against Pinocchio when the model loaded. Floats are written with repr (17 significant
digits), so the controller reads exactly these numbers.
"""

from typing import Any

import numpy as np

from ..dynamics import RigidBodyDynamics
from ..errors import ConfigError
from ..model.robot_model import RobotModel
from .controller_config import ControllerConfig, safety_limits, velocity_limits
from .controller_dynamics import controller_dynamics, payload_body
from .laws import PLUGIN_MODES
from .parameters import PARAMETERS, config_name

__all__ = ['PLUGIN', 'IN_MODEL_ROWS', 'NOT_EXPORTED', 'OWNED_ELSEWHERE', 'export_notes',
           'plugin_config', 'plugin_parameters', 'plugin_rows', 'row_table']

#: The pluginlib name of the controller.
PLUGIN = 'robodyn_controllers/ComputedTorqueController'
#: The parameters the plugin declares too (control/parameters.py's ``plugin``) that the
#: export writes as the config has them; the per-joint lists and the groups only some modes
#: or an observer read are written by hand (plugin_parameters).
_BY_HAND, _GROUPS_BY_HAND = ('kp', 'kd', 'damping', 'hold_kp', 'hold_kd'), \
    ('adaptive', 'cartesian', 'collision')
_SHARED = tuple(name for name, p in PARAMETERS.items() if p.plugin and name not in _BY_HAND
                and name.split('.')[0] not in _GROUPS_BY_HAND)


#: Node settings the plugin handles its own way, and how (one note each when a config sets
#: them). Model overrides (effort_limits, velocity_limits, viscous, coulomb, payload.*,
#: earth_gravity) are not here: they reach the plugin in its model rows and gravity.
IN_MODEL_ROWS = ('acceleration_limits', 'coulomb', 'earth_gravity', 'effort_limits',
                 'payload.com', 'payload.inertia', 'payload.mass', 'velocity_limits',
                 'viscous')
NOT_EXPORTED = {
    'state_timeout': 'the plugin reads the state in the hardware cycle that applies its '
                     'command; a state it cannot read puts it in gravity + damping',
    'ramp_time': 'the plugin starts from the torque the hardware holds, within '
                 'max_torque_rate, without a blend',
    'initial_output': 'the plugin starts from the torque the hardware holds',
    'safe_command': 'the plugin holds the position, or gravity + damping when the state '
                    'cannot be trusted',
    'cross_check_every': 'the model was checked against Pinocchio here, and the plugin '
                         'checks it against robot_description at configure',
    'cross_check_tolerance': 'as cross_check_every',
    'hold_latency': 'the plugin closes its loop in one hardware cycle: its hold is built '
                    'for that latency',
}
#: Node settings that on the C++ path belong to controller_manager (rate, spawning) or the
#: JointTrajectoryController (the reference, goals and their tolerances): one note for all.
OWNED_ELSEWHERE = ('action_feedback_rate', 'amplitudes', 'autostart', 'command_topic',
                   'follow_joint_trajectory', 'goal_position_tolerance', 'goal_time',
                   'input_gateway', 'interpolation', 'max_trajectory_points',
                   'path_position_tolerance', 'periods', 'ramp', 'rate', 'reference',
                   'state_publish_rate', 'stopped_velocity_tolerance', 'trigger')


def export_notes(params: dict[str, Any]) -> list[str]:
    """One line per setting of a config file's ``robodyn_controller`` parameters that the
    export does not carry, naming it and why (the node's plumbing in one line); and a
    line when the law has no feedback (kp and kd all 0, the defaults: the controller
    sends the model's torque only)."""
    notes = [f'{name}: not exported ({NOT_EXPORTED[name]})'
             for name in sorted(params) if name in NOT_EXPORTED]
    owned = [name for name in sorted(params) if name in OWNED_ELSEWHERE]
    if owned:
        notes.append(f"{', '.join(owned)}: not exported (the node's; on the C++ path "
                     'controller_manager and the JointTrajectoryController own them)')
    gains = [float(v) for key in ('kp', 'kd')
             for v in np.ravel(np.asarray(params.get(key, [0.0]), dtype=float))]
    if not any(gains):
        notes.append("kp and kd are 0: no feedback, the controller sends the model's "
                     'torque only (pass --config with your gains, e.g. '
                     'config/<robot>_real.yaml for a real arm)')
    return notes


#: Exported values smaller than this are the DH extraction's rounding noise (1e-17 m for a
#: zero offset): written as 0, so a person reading the file sees the zero.
NOISE = 1e-15


def _floats(values) -> list[float]:
    array = np.asarray(values, dtype=float).ravel()
    return [0.0 if abs(v) < NOISE else float(v) for v in array]


def plugin_config(params: dict[str, Any]) -> ControllerConfig:
    """The ControllerConfig of a robodyn config file's ``robodyn_controller`` parameters
    for the plugin: nested blocks (``payload``) as dotted names; ``joints`` (the node's
    command order) is left out, since the plugin commands in chain order."""
    def flat(prefix, values):
        for key, value in values.items():
            if isinstance(value, dict):
                yield from flat(f'{prefix}{key}.', value)
            elif f'{prefix}{key}' != 'joints':
                yield f'{prefix}{key}', value
    return ControllerConfig.from_parameters(dict(flat('', params)))


def plugin_rows(model: RobotModel, config: ControllerConfig,
                dyn: RigidBodyDynamics) -> dict[str, dict[str, Any]]:
    """{joint: {'dh', 'prismatic', 'mass', 'com', 'inertia', 'viscous', 'coulomb',
    'effort_limit', 'velocity_limit', 'acceleration_limit', 'position_limits'}} in chain
    order, from ``dyn``, the dynamics the node builds for ``config``; acceleration_limit 0
    where the node derives it (the plugin derives the same)."""
    chain, limits = dyn.chain, safety_limits(model, config)
    velocity = velocity_limits(model, config)
    acceleration = config.per_joint('acceleration_limits', model.n, np.zeros(model.n))
    rows = {}
    for i, joint in enumerate(model.joint_names):
        inertia = chain.inertia[i]
        rows[joint] = {
            'dh': _floats([chain.a[i], chain.alpha[i], chain.d[i], chain.theta0[i],
                           chain.beta[i]]),
            'prismatic': bool(chain.prismatic[i]),
            'mass': float(chain.mass[i]),
            'com': _floats(chain.com[i]),
            'inertia': _floats([inertia[0, 0], inertia[0, 1], inertia[0, 2], inertia[1, 1],
                                inertia[1, 2], inertia[2, 2]]),
            'viscous': float(dyn.viscous[i]),
            'coulomb': float(dyn.coulomb[i]),
            'effort_limit': float(limits.effort[i]),
            'velocity_limit': float(velocity[i]),
            'acceleration_limit': float(acceleration[i]),
            'position_limits': [float(model.lower[i]), float(model.upper[i])],
        }
    return rows


def tool_frame(model: RobotModel) -> dict[str, Any]:
    """Where the tool wrench is given: ``base_link`` (its frame), ``base_rotation`` (DH frame
    0's axes in base_link, row-major 3x3), ``tool_point`` (the tip_link origin in DH frame
    n [m]), ``tool_rotation`` (the tip_link axes there, row-major 3x3) and ``tip_link`` (its
    name), ``base_point`` (frame 0's origin in base_link [m]): what the plugin's
    ~/tool_wrench, ~/target_pose and the adaptive law's payload frame and ~/payload_estimate
    need beside the rows."""
    table = model.dh_table('standard')
    return {'base_link': model.base_link, 'base_rotation': _floats(table.base[:3, :3]),
            'base_point': _floats(table.base[:3, 3]), 'tool_point': _floats(table.tool[:3, 3]),
            'tool_rotation': _floats(table.tool[:3, :3]), 'tip_link': model.tip_link}


def plugin_parameters(model: RobotModel, config: ControllerConfig,
                      source: str = '') -> dict[str, Any]:
    """The ``ros__parameters`` of the plugin for ``model`` under ``config``: joints in
    chain order, gravity in DH frame 0 [m/s^2], ``model.<joint>.*`` rows, the law and the
    safety settings. ``source`` names where the model came from (``model_name``)."""
    if config.mode not in PLUGIN_MODES:
        raise ConfigError(f'mode {config.mode!r}: the C++ controller has '
                          f'{", ".join(PLUGIN_MODES)}; {config.mode} runs on the node path '
                          '(controller:=node)')
    n = model.n
    payload = payload_body(config.payload_mass, config.payload_com, config.payload_inertia,
                           model)
    # only the chain and the friction are read: no kernel to compile (numba stays out of a
    # launch process, whose exit it would slow)
    dyn, _ = controller_dynamics(model, config, payload, method='kronecker')
    values: dict[str, Any] = {
        'model_name': source or model.name,
        'joints': list(model.joint_names),
        'gravity': _floats(dyn.chain.gravity),
        **tool_frame(model),
        'model': plugin_rows(model, config, dyn),
        'kp': _floats(config.per_joint('kp', n)),
        'kd': _floats(config.per_joint('kd', n)),
        'damping': _floats(config.per_joint('damping', n)),
    }
    # empty lists are left out: rcl cannot type an empty YAML list (the plugin's default,
    # empty, derives the hold's gains)
    for name in ('hold_kp', 'hold_kd'):
        if getattr(config, name):
            values[name] = _floats(config.per_joint(name, n))
    for name in _SHARED:
        value = getattr(config, config_name(name))
        if isinstance(value, tuple | list):
            if not value:
                continue  # empty lists are left out (above): the plugin's default
            value = _floats(value)
        elif isinstance(value, float):
            value = float(value)
        group, _, key = name.rpartition('.')
        (values.setdefault(group, {}) if group else values)[key] = value
    if config.mode == 'adaptive':
        values['adaptive'] = {'gamma': _floats(config.adaptive_gamma),
                              'mass_max': float(config.adaptive_mass_max),
                              'rest_speed': float(config.adaptive_rest_speed)}
    if config.mode in ('cartesian_impedance', 'operational_space'):
        values['cartesian'] = {'stiffness': _floats(config.cartesian_stiffness),
                               'damping_ratio': float(config.cartesian_damping_ratio)}
    if config.collision_thresholds:  # empty: the plugin's default, no observer
        values['collision'] = {
            'thresholds': _floats(config.per_joint('collision_thresholds', n)),
            'gain': float(config.collision_gain), 'debounce': int(config.collision_debounce),
            'reaction': config.collision_reaction}
    return values


def row_table(values: dict[str, Any]) -> np.ndarray:
    """(n, 19) rows of exported ``values`` in the layout of the C++ package's C entry point
    (robodyn_controllers/src/dh_dynamics_c.cpp): a alpha d theta0 beta prismatic mass
    com(3) inertia(6) viscous coulomb smoothing; what tests and benchmarks feed it."""
    rows = []
    for joint in values['joints']:
        r = values['model'][joint]
        rows.append(r['dh'] + [float(r['prismatic']), r['mass']] + r['com'] + r['inertia'] +
                    [r['viscous'], r['coulomb'], values['friction_smoothing']])
    return np.ascontiguousarray(rows, dtype=float)
