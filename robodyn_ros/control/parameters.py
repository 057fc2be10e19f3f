"""The controller's ROS parameters: name -> (default, description, dynamic typing).

Numeric parameters are declared with dynamic typing so that YAML integers are accepted
where floats are meant; every value is validated by ControllerConfig at configure. All are
read-only: reconfigure (cleanup + configure) to change them.
"""

from ..defaults import COMMAND_TOPIC, GRAVITY
from ..errors import RobodynError

__all__ = ['PARAMETERS', 'RUNTIME', 'apply_runtime_parameters']

#: Parameters that may change while the controller runs (not read-only).
RUNTIME = ('payload.mass', 'payload.com', 'payload.inertia')

PARAMETERS = {
    'autostart': (False, 'configure and activate at start-up (launch files, the demo)', False),
    'joints': ([], 'joint order of the commands (default: chain order)', True),
    'rate': (1000.0, 'control rate [Hz], 100 to 20000 (trigger timer; watchdog and safe '
             'command rate)',
             True),
    'trigger': ('state', "'state': answer each new joint state; 'timer': fixed rate", False),
    'mode': ('computed_torque', 'computed_torque | feedforward | gravity', False),
    'reference': ('hold', 'hold | one_minus_cos | sum_of_sines, started at the first state; '
                  'JointTrajectory messages replace it', False),
    'amplitudes': ([], 'reference amplitudes [rad or m], 1 or n (x K terms)', True),
    'periods': ([], 'reference periods [s], 1 or n (x K terms)', True),
    'ramp': (1.0, 'sum_of_sines smooth-start duration [s]', True),
    'interpolation': ('auto', 'JointTrajectory interpolation: auto (each segment by what '
                      'its points carry, as JointTrajectoryController: quintic with '
                      'accelerations, cubic with velocities, linear with positions only) | '
                      'quintic | cubic', False),
    'kp': ([0.0], 'proportional gains, 1 or n (computed_torque: [1/s^2], else [N m/rad])',
           True),
    'kd': ([0.0], 'derivative gains, 1 or n (computed_torque: [1/s], else [N m s/rad])', True),
    'include_gravity': (True, 'add g(q); false on robots that compensate gravity '
                        '(Franka, UR, Kinova)', False),
    'include_friction': (False, 'add viscous + Coulomb friction (seed 004); false on robots '
                         'that compensate friction', False),
    'friction_smoothing': (0.01, 'tanh velocity scale replacing sgn(qd) [rad/s]', True),
    'feedforward_pd': (True, 'feedforward mode: add the PD term', False),
    'gravity': (list(GRAVITY), "gravity in the base frame [m/s^2]; |g| must be Earth's "
                '(9.81 +- 0.1) unless earth_gravity is false', True),
    'earth_gravity': (True, "refuse a gravity whose magnitude is not Earth's; false: any "
                      '|g| <= 30 m/s^2', False),
    'max_trajectory_points': (10000, 'largest JointTrajectory or FollowJointTrajectory goal '
                              'accepted [points] (2 to 100000); converted off the control '
                              'thread', True),
    'command_topic': (COMMAND_TOPIC, 'effort command topic (relative)', False),
    'state_timeout': (0.05, 'watchdog: no valid joint state for this long -> the safe '
                      'command is on the wire (stale one period earlier) [s], 2 periods to 1 s',
                      True),
    'diagnostics_period': (0.1, 'period of /diagnostics [s], 0.01 to 10', True),
    'max_torque_rate': (1000.0, 'largest change of any published torque [N m/s], applied '
                        'per message on the time since the last one; at least 2 x the '
                        'largest effort limit per second (the shutdown ramp fits in 1 s), '
                        'at most 1e5', True),
    'ramp_time': (0.2, 'blend from the current output to the law on activation and '
                  'recovery [s]', True),
    'safe_command': ('hold', "'hold': g(q) (if gravity is included) - D qd; 'zero'", False),
    'initial_output': ('hold', "start of the rate limit at the first activation: 'hold' (the "
                       "torque holding the arm where its brakes held it) or 'zero'", False),
    'damping': ([1.0], 'D of the hold command, 1 or n [N m s/rad]', True),
    'viscous': ([], 'viscous friction override, 1 or n [N m s/rad] (empty: URDF damping; '
                'robodyn identify writes it)', True),
    'coulomb': ([], 'Coulomb friction override, 1 or n [N m] (empty: URDF friction)', True),
    'payload.mass': (0.0, 'payload rigidly attached to the tip link [kg] (0: none); may be '
                     'changed while running: applied between two cycles', True),
    'payload.com': ([0.0, 0.0, 0.0], 'payload centre of mass in the tip frame [m]', True),
    'payload.inertia': ([0.0] * 6, 'payload inertia about its com in the tip frame: xx xy '
                        'xz yy yz zz [kg m^2]', True),
    'effort_limits': ([], 'override the URDF effort limits, 1 or n [N m or N]', True),
    'velocity_limits': ([], 'override the URDF velocity limits, 1 or n [rad/s or m/s]', True),
    'position_margin': (0.02, 'position guard: limits shrunk by this [rad or m]', True),
    'reference_margin': (0.05, 'references must stay inside limits shrunk by this', True),
    'velocity_margin': (0.1, 'velocity guard at limit x (1 + margin)', True),
    'cross_check_every': (0, 'Pinocchio RNEA cross-check every N cycles (0: off)', True),
    'cross_check_tolerance': (1e-6, 'cross-check tolerance -> safe mode [N m]', True),
    'state_publish_rate': (50.0, '~/controller_state (JointTrajectoryControllerState) rate '
                           '[Hz], 0: off', True),
    'follow_joint_trajectory': (True, 'serve control_msgs/FollowJointTrajectory on '
                                '~/follow_joint_trajectory (a helper node and thread)', False),
    'action_feedback_rate': (20.0, 'FollowJointTrajectory feedback rate [Hz]', True),
    'goal_time': (1.0, 'default goal_time_tolerance: time after the trajectory end to reach '
                  'the goal tolerance [s] (0: wait)', True),
    'goal_position_tolerance': ([0.0], 'default goal tolerance, 1 or n [rad or m] (0: not '
                                'checked)', True),
    'path_position_tolerance': ([0.0], 'default path tolerance, 1 or n [rad or m] (0: not '
                                'checked)', True),
    'stopped_velocity_tolerance': (0.01, 'goal velocity tolerance [rad/s] (0: not checked)',
                                   True),
}


def apply_runtime_parameters(core, params, get):
    """Give the core a changed payload (``params``: rclpy Parameters being set; ``get``:
    the node's get_parameter). Returns '' when accepted, else the reason. Runs in the
    parameter callback, on the node's executor: between two cycles, never in one."""
    changed = {p.name: p.value for p in params if p.name in RUNTIME}
    if not changed or core is None:  # not configured yet: configure reads them
        return ''
    value = {name: changed.get(name, get(name).value) for name in RUNTIME}
    try:
        core.set_payload(float(value['payload.mass']), list(value['payload.com']),
                         list(value['payload.inertia']))
    except (RobodynError, TypeError, ValueError) as exc:
        return f'payload refused: {exc}'
    return ''
