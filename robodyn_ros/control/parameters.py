"""The controller's parameters, declared once: name, type, default, valid range or
options, whether it may change while running, and its description.

Everything else is generated from this table, as ros2_controllers generate theirs with
generate_parameter_library: the node declares these parameters (nodes/controller.py),
ControllerConfig takes its defaults and range checks from them (controller_config.py),
and the parameter table of docs/real_arm.md is written from them
(robodyn docs). test/control/test_parameters.py fails if any of the three
could diverge.

Every parameter is declared with dynamic typing (a YAML integer where a float is meant
must not end the process with rclpy's traceback); ControllerConfig checks each value at
configure. Only the ``runtime`` ones may change while the controller runs; the others are
read-only: reconfigure (cleanup + configure) to change them.
"""

from dataclasses import dataclass
from typing import Any

from ..defaults import COMMAND_TOPIC, GRAVITY
from .laws import MODES
from .options import InitialOutput, SafeCommand, Trigger
from .reference.trajectories import KINDS

__all__ = ['Parameter', 'PARAMETERS', 'ROBOT_PARAMETERS', 'NODE_ONLY', 'RUNTIME', 'TYPES',
           'config_name']

#: Value kinds: a JSON-like type the node declares and ControllerConfig checks.
TYPES = ('bool', 'int', 'float', 'str', 'float list', 'string list')




@dataclass(frozen=True)
class Parameter:
    """One parameter.

    Attributes:
        name: the ROS name ('payload.mass'; ControllerConfig's field is 'payload_mass').
        type: one of TYPES.
        default: the declared default (lists as lists, as rclpy declares them).
        description: one line, with the unit in brackets.
        low, high: the valid range of a number or of every element of a list (None: no
            bound); ``low_open``: low itself is not valid.
        unit: unit of the range in messages and docs.
        options: the valid values of a string.
        min_length: fewest elements of a list.
        note: the rule in words when the value is checked against others.
        rule: the name of the validator that checks that rule (controller_config.RULES:
            on the config alone; MODEL_RULES: with the robot model); a test keeps every
            note with its rule and every rule named here.
        runtime: may change while running (not read-only).
        plugin: the C++ controller declares it too (control/plugin_declarations.py writes
            its declaration from this one); a dict: with these of generate_parameter_
            library's validators besides (a list's length the node checks by a rule) or
            these ``low`` and ``high`` in place of the node's (a range the C++ side needs).
    """

    name: str
    type: str
    default: Any
    description: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    unit: str = ''
    options: tuple[str, ...] = ()
    min_length: int = 0
    note: str = ''
    rule: str = ''
    runtime: bool = False
    plugin: bool | dict = False

    def valid_text(self) -> str:
        """The valid values in words (the docs' column)."""
        if self.options:
            return ' | '.join(self.options)
        if self.note:
            return self.note
        unit = f' {self.unit}' if self.unit else ''
        if self.low is None and self.high is None:
            return ''
        if self.high is None:
            return f'{">" if self.low_open else ">="} {self.low:g}{unit}'
        if self.low_open:
            return f'> {self.low:g}, <= {self.high:g}{unit}'
        return f'{self.low:g} to {self.high:g}{unit}'


def _p(name, kind, default, description, **rules):
    assert kind in TYPES, kind
    return Parameter(name, kind, default, description, **rules)


_CONTROLLER = (
    _p('autostart', 'bool', False,
       'configure and activate at start-up (launch files, the demo)'),
    _p('joints', 'string list', [], 'joint order of the commands (default: chain order)'),
    _p('rate', 'float', 1000.0, 'control rate [Hz] (trigger timer; watchdog and safe '
       'command rate)', low=100.0, high=20000.0, unit='Hz'),
    _p('trigger', 'str', 'state', "'state': answer each new joint state; 'timer': fixed "
       'rate', options=tuple(Trigger)),
    _p('mode', 'str', 'computed_torque', 'the control law', options=MODES, plugin=True),
    _p('reference', 'str', 'hold', 'reference started at the first state; JointTrajectory '
       'messages replace it', options=('hold', 'one_minus_cos', 'sum_of_sines')),
    _p('amplitudes', 'float list', [], 'reference amplitudes [rad or m], 1 or n (x K terms)'),
    _p('periods', 'float list', [], 'reference periods [s], 1 or n (x K terms)'),
    _p('ramp', 'float', 1.0, 'sum_of_sines smooth-start duration [s]', low=0.0, high=60.0,
       unit='s'),
    _p('interpolation', 'str', 'auto', 'JointTrajectory interpolation: auto (each segment '
       'by what its points carry, as JointTrajectoryController: quintic with accelerations, '
       'cubic with velocities, linear with positions only), quintic or cubic', options=KINDS),
    _p('kp', 'float list', [0.0], 'proportional gains, 1 or n (computed_torque: [1/s^2]; '
       'passivity, adaptive: Lambda [1/s]; else [N m/rad]); set while running: blended in '
       'over gain_ramp_time', low=0.0, min_length=1, runtime=True, plugin={'high': 1000000.0}),
    _p('kd', 'float list', [0.0], 'derivative gains, 1 or n (computed_torque: [1/s]; '
       'passivity, adaptive: K_D [N m s/rad]; else [N m s/rad]); set while running: blended '
       'in over gain_ramp_time', low=0.0, min_length=1, runtime=True, plugin={'high': 100000.0}),
    _p('gain_ramp_time', 'float', 1.0, 'how long kp, kd and the tool spring set while running '
       'take to reach '
       'their new values (a raised cosine) [s]; 0: at the next cycle, within the rate limit',
       low=0.0, high=60.0, unit='s', plugin=True),
    _p('include_gravity', 'bool', True, 'add g(q); false on robots that compensate gravity '
       '(Franka, UR, Kinova)', plugin=True),
    _p('include_friction', 'bool', False, 'add viscous + Coulomb friction (seed 004); false '
       'on robots that compensate friction', plugin=True),
    _p('friction_smoothing', 'float', 0.01, 'tanh velocity scale replacing sgn(qd) [rad/s]',
       low=0.0, high=10.0, unit='rad/s', plugin=True),
    _p('feedforward_pd', 'bool', True, 'feedforward mode: add the PD term', plugin=True),
    _p('inertia_feedforward', 'bool', True, 'joint_impedance mode: add M(q) qdd_r (off: a '
       'pure spring and damper to the reference)', plugin=True),
    _p('velocity_lag', 'float', 0.0, 'how much older the state velocity is than its '
       'position [s]: the derivative term compares it with the reference velocity of that '
       'instant, qd_r - lag qdd_r (a backward-difference velocity, as semi-implicit Euler '
       'physics reports it, is half a step old)', low=0.0, high=0.01, unit='s', plugin=True),
    _p('adaptive.gamma', 'float list', [0.2, 0.005, 5e-5], 'adaptive mode: adaptation rates '
       "of the payload mass, first moments and inertia (Gamma Y^T s is each one's rate: "
       'kg/s, kg m/s, kg m^2/s)', low=0.0, high=1e3, note='1 or 3 values, 0 to 1000',
       rule='adaptive_gamma_size', plugin={'size_gt<>': 0, 'size_lt<>': 4}),
    _p('adaptive.mass_max', 'float', 5.0, 'adaptive mode: the heaviest payload the estimate '
       'may reach [kg]', low=0.0, low_open=True, high=100.0, unit='kg', plugin=True),
    _p('adaptive.rest_speed', 'float', 0.01, 'adaptive mode: the estimate is frozen while '
       'every joint and the reference move slower than this [rad/s or m/s]', low=0.0,
       high=1.0, unit='rad/s', plugin=True),
    _p('cartesian.stiffness', 'float list', [500.0, 500.0, 500.0, 30.0, 30.0, 30.0],
       'the task-space modes: the tool spring K_x per axis of DH frame 0, x y z [N/m] '
       'then rx ry rz [N m/rad]; set while running: blended in over gain_ramp_time',
       low=0.0, high=1e5, note='6 values, 0 to 1e5', rule='cartesian_stiffness_size',
       runtime=True, plugin={'fixed_size<>': 6}),
    _p('cartesian.damping_ratio', 'float', 1.0, 'the task-space modes: the damping ratio '
       "of D_x (cartesian_impedance: on the task-space inertia's diagonal; "
       'operational_space: of a unit mass); set while running: blended in over '
       'gain_ramp_time', low=0.0, high=5.0, runtime=True, plugin=True),
    _p('target.speed', 'float', 0.25, 'pose targets (~/target_pose): the fastest the '
       'commanded tool point moves towards the last target [m/s]', low=0.0, low_open=True,
       high=2.0, unit='m/s', plugin=True),
    _p('target.rotation_speed', 'float', 1.0, 'pose targets: the fastest the commanded tool '
       'orientation turns towards the last target [rad/s]', low=0.0, low_open=True,
       high=6.0, unit='rad/s', plugin=True),
    _p('target.workspace', 'float list', [], 'pose targets: the box a target is put inside, '
       "x y z min then x y z max in the base link frame [m]; empty: a cube of the chain's "
       'reach about the base', note='0 or 6 values, each min < max',
       rule='target_workspace_box', plugin={'size_lt<>': 7}),
    _p('wrench.max_force', 'float', 20.0, 'target wrenches (~/target_wrench, the '
       'task-space modes): the largest force applied at the tool point; a larger one is '
       'scaled down to it [N]', low=0.0, low_open=True, high=1000.0, unit='N', plugin=True),
    _p('wrench.max_torque', 'float', 2.0, 'target wrenches: the largest moment applied at '
       'the tool point; a larger one is scaled down to it [N m]', low=0.0, low_open=True,
       high=200.0, unit='N m', plugin=True),
    _p('wrench.rise_time', 'float', 0.2, 'target wrenches: the applied wrench changes at '
       'most by max_force and max_torque in this time [s]', low=0.0, low_open=True,
       high=10.0, unit='s', plugin=True),
    _p('wrench.timeout', 'float', 0.5, 'target wrenches: the applied wrench ramps to zero '
       'once the last target is this old [s]', low=0.0, low_open=True, high=10.0,
       unit='s', plugin=True),
    _p('gravity', 'float list', list(GRAVITY), 'gravity in the base frame [m/s^2]',
       note='3 values; |g| = 9.81 +- 0.1 unless earth_gravity is false (then <= 30)',
       rule='gravity_magnitude'),
    _p('earth_gravity', 'bool', True, "refuse a gravity whose magnitude is not Earth's; "
       'false: any |g| <= 30 m/s^2'),
    _p('max_trajectory_points', 'int', 10000, 'largest JointTrajectory or '
       'FollowJointTrajectory goal accepted [points]; converted off the control thread '
       '(at most 20000: rclpy decodes an accepted goal holding the interpreter lock, about '
       '0.6 ms per 1000 points on a 2-core machine, and the loop waits for it)',
       low=2, high=20000, unit='points'),
    _p('command_topic', 'str', COMMAND_TOPIC, 'effort command topic (relative)',
       note="a topic name, not one of the controller's own", rule='topic_name'),
    _p('state_timeout', 'float', 0.05, 'watchdog: no valid joint state for this long -> '
       'the safe command is on the wire (stale one period earlier) [s]',
       note='2 control periods to 1 s', rule='state_timeout_periods'),
    _p('diagnostics_period', 'float', 0.1, 'period of /diagnostics [s]', low=0.01,
       high=10.0, unit='s', plugin=True),
    _p('max_torque_rate', 'float', 1000.0, 'largest change of any published torque '
       '[N m/s], applied per message on the time since the last one',
       note='<= 1e5 N m/s and >= 2 x the largest effort limit per second (the shutdown '
       'ramp fits in 1 s)', low=0.0, low_open=True, high=1e5, unit='N m/s',
       rule='shutdown_ramp_fits', plugin={'low': 1.0}),
    _p('ramp_time', 'float', 0.2, 'blend from the current output to the law on activation '
       'and recovery [s]', low=0.0, high=10.0, unit='s'),
    _p('safe_command', 'str', 'hold', "'hold': hold the position of the trip (PD + g(q)) "
       'while the state is trusted, g(q) - D qd when it is not (stale, or two sources); '
       "'zero'", options=tuple(SafeCommand)),
    _p('initial_output', 'str', 'hold', "start of the rate limit at the first activation: "
       "'hold' (the effort the first state reports as applied, else the model's torque "
       "holding the arm where its brakes held it) or 'zero'",
       options=tuple(InitialOutput)),
    _p('damping', 'float list', [1.0], 'D of the gravity + damping hold (state not '
       'trusted), 1 or n [N m s/rad]; applied at most 0.78 / ((M^-1)_jj hold_latency) per '
       'joint (a light joint rings through a late loop)', low=0.0, min_length=1,
       plugin={'high': 1000.0}),
    _p('hold_kp', 'float list', [], 'stiffness of the position hold, 1 or n [N m/rad] '
       '(empty with hold_kd empty: the derived hold g(q) + M(q) (w^2 (q_h - q) - 2 w qd), '
       'w per joint the lowest of 2 pi 5 Hz, sqrt(effort limit / (0.5 rad M_jj)) and 0.32 / '
       'hold_latency)', low=0.0, high=1e5, plugin=True),
    _p('hold_kd', 'float list', [], 'damping of the position hold, 1 or n [N m s/rad] '
       '(empty: critical, 2 sqrt(hold_kp M_jj))', low=0.0, high=1e4, plugin=True),
    _p('hold_latency', 'float', 0.02, 'loop latency the derived position hold tolerates '
       '(state to applied torque over the topics) [s]: its bandwidth is at most 0.32 / '
       'hold_latency rad/s, stable to about twice this latency; 0: one cycle, as the C++ '
       'controller (stiffer, for a quiet real-time machine). A hold that drives a joint '
       'faster than at its start halves its bandwidths, up to 4 times', low=0.0, high=0.5,
       unit='s'),
    _p('viscous', 'float list', [], 'viscous friction override, 1 or n [N m s/rad] (empty: '
       'URDF damping; robodyn identify writes it)', low=0.0),
    _p('coulomb', 'float list', [], 'Coulomb friction override, 1 or n [N m] (empty: URDF '
       'friction)', low=0.0),
    _p('payload.mass', 'float', 0.0, 'payload rigidly attached to the tip link [kg] (0: '
       'none); applied between two cycles', low=0.0, unit='kg', runtime=True),
    _p('payload.com', 'float list', [0.0, 0.0, 0.0], 'payload centre of mass in the tip '
       'frame [m]', note='3 values', rule='payload_sizes', runtime=True),
    _p('payload.inertia', 'float list', [0.0] * 6, 'payload inertia about its com in the '
       'tip frame: xx xy xz yy yz zz [kg m^2]', note='6 values, physical', rule='payload_sizes',
       runtime=True),
    _p('effort_limits', 'float list', [], 'override the URDF effort limits, 1 or n '
       '[N m or N]', low=0.0, low_open=True, high=1e4),
    _p('velocity_limits', 'float list', [], 'override the URDF velocity limits, 1 or n '
       '[rad/s or m/s]', low=0.0, low_open=True, high=1e3),
    _p('acceleration_limits', 'float list', [], "the reference's largest |acceleration|, 1 "
       'or n [rad/s^2 or m/s^2] (empty or 0: the effort limit / the largest M_jj(q) over the '
       'joint ranges, as the C++ controller derives it)', low=0.0, high=1e5),
    _p('position_margin', 'float', 0.02, 'position guard: limits shrunk by this [rad or m]',
       low=0.0, high=1.0, plugin=True),
    _p('reference_margin', 'float', 0.05, 'references must stay inside limits shrunk by '
       'this [rad or m]', low=0.0, high=1.0, note='0 to 1, >= position_margin',
       rule='reference_margin_covers_position', plugin=True),
    _p('velocity_margin', 'float', 0.1, 'velocity guard at limit x (1 + margin)', low=0.0,
       high=10.0, plugin=True),
    _p('max_tracking_error', 'float', 0.2, 'tracking guard: |q_r - q| above this on any '
       'joint -> safe (latched): the arm does not follow the commands (a paused '
       'simulation, commands not applied, a model far from the arm) [rad or m]; 0: off; '
       'not in gravity mode (no reference is tracked)', low=0.0, high=3.2, unit='rad or m',
       plugin=True),
    _p('collision.thresholds', 'float list', [], 'collision detection: the external joint '
       'torque estimate (momentum observer) above this on a joint -> collision.reaction, 1 or '
       'n [N m or N] (empty: no observer; robodyn contacts --derive writes them from a '
       'collision-free bag)', low=0.0, low_open=True, high=1e5, plugin=True),
    _p('collision.gain', 'float', 50.0, 'momentum observer gain K_O: the estimate follows '
       'the external torque with time constant 1/K_O [1/s]', low=0.0, low_open=True,
       high=100.0, unit='1/s', plugin=True),
    _p('collision.debounce', 'int', 3, 'states over a threshold in a row before a '
       'collision is declared', low=1, high=1000, plugin=True),
    _p('collision.reaction', 'str', 'hold', 'on a collision: hold (position hold at the '
       'detection point, latched), compliant (gravity + damping, latched: the arm yields) '
       'or report (diagnostics only)', options=('hold', 'compliant', 'report'), plugin=True),
    _p('cross_check_every', 'int', 0, 'Pinocchio RNEA cross-check every N cycles (0: off)',
       low=0),
    _p('cross_check_tolerance', 'float', 1e-6, 'cross-check tolerance -> safe mode [N m]',
       low=0.0, low_open=True, high=1e3, unit='N m'),
    _p('state_publish_rate', 'float', 50.0, '~/controller_state '
       '(JointTrajectoryControllerState) rate [Hz], 0: off', low=0.0, note='0 to rate',
       rule='publish_rate_within_rate'),
    _p('follow_joint_trajectory', 'bool', True, 'serve control_msgs/FollowJointTrajectory '
       'on ~/follow_joint_trajectory (a helper node and thread)'),
    _p('input_gateway', 'bool', True, 'receive ~/joint_trajectory and FollowJointTrajectory '
       'goals in a process of its own that refuses oversized ones before the controller '
       'receives them (false: in this process, where a huge message stalls the loop)'),
    _p('action_feedback_rate', 'float', 20.0, 'FollowJointTrajectory feedback rate [Hz]',
       low=0.0, low_open=True, high=1000.0, unit='Hz'),
    _p('goal_time', 'float', 1.0, 'default goal_time_tolerance: time after the trajectory '
       'end to reach the goal tolerance [s] (0: wait)', low=0.0, high=3600.0, unit='s'),
    _p('goal_position_tolerance', 'float list', [0.0], 'default goal tolerance, 1 or n '
       '[rad or m] (0: not checked)', low=0.0, min_length=1),
    _p('path_position_tolerance', 'float list', [0.0], 'default path tolerance, 1 or n '
       '[rad or m] (0: not checked)', low=0.0, min_length=1),
    _p('stopped_velocity_tolerance', 'float', 0.01, 'goal velocity tolerance [rad/s] (0: '
       'not checked)', low=0.0, high=10.0, unit='rad/s'),
)

#: The controller node's parameters by name.
PARAMETERS: dict[str, Parameter] = {p.name: p for p in _CONTROLLER}

#: Where the robot's description comes from (every node that loads a model declares these).
ROBOT_PARAMETERS = (
    _p('robot_description', 'str', '', 'URDF XML (as robot_state_publisher gets it)'),
    _p('urdf_file', 'str', '', 'URDF file path (used when robot_description is empty)'),
    _p('robot', 'str', '', 'named robot (panda, ur5, three_link, ...) as a fallback'),
    _p('base_link', 'str', '', 'chain base link (default: URDF root)'),
    _p('tip_link', 'str', '', 'chain tip link (default: unique deepest leaf)'),
    _p('xacro_args', 'string list', [], "xacro arguments ['name:=value', ...] or "
       "'a:=1 b:=2' (for a xacro description)"),
)

#: Parameters of the node, not of the control law: ControllerConfig ignores them.
NODE_ONLY = frozenset({'autostart', 'use_sim_time'} | {p.name for p in ROBOT_PARAMETERS})

#: Parameters that may change while the controller runs.
RUNTIME = tuple(p.name for p in _CONTROLLER if p.runtime)


def config_name(name: str) -> str:
    """ControllerConfig's field of parameter ``name`` ('payload.mass' -> 'payload_mass')."""
    return name.replace('.', '_')
