"""The fault campaign's cases: inputs a real cell produces, each with what must hold.

Every case also checks the common invariants (checks._check_common): commands finite and
within the effort limits, no step above max_torque_rate x period between consecutive
messages, the first command within a step of the hold torque, no silence above
state_timeout + 2 periods while commanding, no traceback, at most one log line per kind of
event per second, and (where the script ends the process) an exit within 2 s.
``path``: the numbered hostile-input path a case reproduces, or '' for an extra case.
"""

from dataclasses import dataclass, field
import signal
import tempfile
from typing import Callable

from robodyn_ros.defaults import CONTROLLER_NAME

from . import bad_inputs, scripts, target_scripts

__all__ = ['Case', 'CASES', 'FAST']


@dataclass
class Case:
    """One scripted fault."""

    name: str
    path: str
    script: Callable | None  # None: a command-line case (``cli``)
    parameters: dict = field(default_factory=dict)
    env: dict = field(default_factory=dict)
    stamp_start: float = 1000.0
    raw_args: tuple = ()
    expect_exit: bool = False  # the script ends the process: exit within 2 s
    may_exit: bool = False  # the process may end by itself (e.g. after shutdown)
    references: bool = False  # record the controller's ~/reference (1 kHz)
    cli: Callable | None = None  # folder -> robodyn argv: a command-line case instead
    words: tuple = ()  # what the command's one error line must name
    exit_code: int = 2  # the command's expected exit (not 2: ``words`` in its output)


_COLD = {'NUMBA_CACHE_DIR': tempfile.mkdtemp(prefix='robodyn_cold_')}

CASES = [
    Case('trajectory_10000_points', '1', scripts.big_trajectory(10000, True)),
    Case('trajectory_100000_points', '1', scripts.big_trajectory(100000, False)),
    Case('action_goal_5000_points', '1', scripts.action_big(5000)),
    Case('refused_goal_never_runs', '2', scripts.aborted_goal_never_moves, references=True),
    # The largest goal max_trajectory_points allows: rclpy decodes it in the controller's
    # process holding the interpreter lock, within the silence bound.
    Case('slow_goal_result_is_final', '2', scripts.goal_result_is_final,
         {'max_trajectory_points': 20000}, references=True),
    Case('rate_0.001', '3', scripts.configure_fails(['rate', '0.001']), {'rate': 0.001}),
    Case('max_torque_rate_1e300', '3', scripts.configure_fails(['max_torque_rate']),
         {'max_torque_rate': 1e300}),
    Case('gravity_-981', '4', scripts.configure_fails(['gravity', '981']),
         {'gravity': [0.0, 0.0, -981.0]}),
    Case('gravity_1e300', '4', scripts.configure_fails(['gravity']),
         {'gravity': [0.0, 0.0, 1e300]}),
    Case('payload_mass_1e300', '4', scripts.runtime_payload('payload.mass', 1e300)),
    Case('payload_com_100m', '4', scripts.runtime_payload('payload.com', [100.0, 0.0, 0.0])),
    Case('two_disagreeing_publishers', '5', scripts.two_sources),
    Case('cleanup_configure_activate', '6', scripts.reconfigure),
    Case('sigint_during_goal', '7', scripts.signal_during_goal, expect_exit=True),
    Case('goal_then_deactivate', '8', scripts.goal_then(['deactivate'])),
    Case('goal_then_deactivate_cleanup', '8', scripts.goal_then(['deactivate', 'cleanup'])),
    Case('active_shutdown', '9', scripts.shutdown_transition, expect_exit=True),
    Case('sigint_cold_configure', '10', scripts.signal_cold_configure, env=_COLD,
         expect_exit=True),
    Case('command_topic_empty', '11', scripts.configure_fails(['command_topic']),
         {'command_topic': "''"}),
    Case('command_topic_invalid', '11', scripts.configure_fails(['command_topic']),
         {'command_topic': 'bad_topic!!'}),
    Case('command_topic_own', '11', scripts.configure_fails(['command_topic', 'own topics']),
         {'command_topic': f'/{CONTROLLER_NAME}/joint_trajectory'}),
    Case('state_timeout_1e300', '11', scripts.configure_fails(['state_timeout']),
         {'state_timeout': 1e300}),
    Case('xacro_args_5', '11', scripts.configure_fails(['xacro_args']), {'xacro_args': 5}),
    Case('trigger_5', '12', scripts.configure_fails(['trigger']), {'trigger': 5}),
    Case('include_gravity_1', '12', scripts.configure_fails(['include_gravity']),
         {'include_gravity': 1}),
    Case('include_friction_1', '12', scripts.configure_fails(['include_friction']),
         {'include_friction': 1}),
    Case('follow_joint_trajectory_x', '12', scripts.configure_fails(['follow_joint_trajectory']),
         {'follow_joint_trajectory': 'x'}),
    Case('diagnostics_period_1e300', '12', scripts.configure_fails(['diagnostics_period']),
         {'diagnostics_period': 1e300}),
    Case('effort_limits_1e300', '12', scripts.configure_fails(['effort_limits', '1e+300']),
         {'effort_limits': [1e300]}),
    Case('alternating_clocks', '14', scripts.flood('alternating_clock')),
    Case('alternating_rejections', '14', scripts.flood('alternating_rejects')),
    Case('state_timeout_1e-9', '14', scripts.configure_fails(['state_timeout']),
         {'state_timeout': 1e-9}),
    Case('stamp_zero_at_start', '15', scripts.zero_stamp, stamp_start=0.0, references=True),
    Case('validate_damaged_bag', '16', None, cli=lambda d: ['validate', bad_inputs.damaged_bag(d)],
         words=('damaged', 'unreadable')),
    Case('identify_foreign_joints', '17', None,
         cli=lambda d: ['identify', bad_inputs.foreign_bag(d), '--robot', 'panda',
                        '--out', f'{d}/o'],
         words=('panda_joint1',)),
    Case('reproduce_unwritable_out', '18', None,
         cli=lambda d: ['reproduce', '--duration', '0.2', '--out', '/proc/robodyn/out'],
         words=('/proc/robodyn',)),
    Case('self_including_xacro', '18', None,
         cli=lambda d: ['inspect', bad_inputs.self_including(d)],
         words=('recursion',)),
    Case('check_seed_negative', '18', None, cli=lambda d: ['check', 'panda', '--seed', '-1'],
         words=('--seed',)),
    Case('loop_seconds_nan', '18', None,
         cli=lambda d: ['bench', '--loop', '--loop-seconds', 'nan'], words=('--loop-seconds',)),
    Case('symlink_loop', '18', None, cli=lambda d: ['inspect', bad_inputs.symlink_loop(d)],
         words=('symbolic link',)),
    Case('fifo_description', '18', None, cli=lambda d: ['inspect', bad_inputs.fifo(d)],
         words=('not a regular file',)),
    Case('sigint_active', '', scripts.signal_at('active', signal.SIGINT), expect_exit=True),
    Case('sigterm_active', '', scripts.signal_at('active', signal.SIGTERM), expect_exit=True),
    Case('sigint_idle_unconfigured', '', scripts.signal_at('idle', signal.SIGINT),
         {'autostart': False}, expect_exit=True),
    Case('stall_and_recovery', '', scripts.nan_and_stall),
    Case('trajectory_velocities_10', '19', scripts.refused_topic_trajectory(
        'velocities_10', ('leaves the admissible range',)), references=True),
    Case('trajectory_velocities_1e6', '19', scripts.refused_topic_trajectory(
        'velocities', ('leaves the admissible range',)), references=True),
    Case('goal_velocities_1e6', '19', scripts.refused_goal('velocities'), references=True),
    Case('trajectory_acceleration_40', '19', scripts.refused_topic_trajectory(
        'accelerations', ('accelerates too hard', 'acceleration limit')), references=True),
    Case('goal_acceleration_40', '19', scripts.refused_goal('accelerations'),
         references=True),
    Case('arm_not_following', '21', scripts.tracking_guard, {'max_tracking_error': 0.1}),
    Case('trajectory_million_names', '23', scripts.refused_topic_trajectory(
        'names', ('1000000 names',))),
    # The input gateway's process takes these 10.9 MB (rclpy decodes a goal holding the
    # interpreter lock: 0.3 s) and refuses them; the controller's loop never sees them.
    Case('goal_million_names', '23', scripts.refused_goal('names')),
    Case('payload_storm', '24', scripts.payload_storm),
    Case('pose_target_storm', '', target_scripts.pose_target_storm, references=True),
    Case('target_wrench_storm', '', target_scripts.target_wrench_storm,
         {'mode': 'cartesian_impedance', 'kp': [20.0], 'kd': [2.0]}, references=True),
    Case('cleanup_while_streaming', '25', scripts.cleanup_while_streaming),
    Case('one_publisher_catching_up', '26', scripts.catching_up),
    Case('trajectory_negative_time', '28', scripts.refused_topic_trajectory(
        'negative_time', ('negative',))),
    Case('validate_bag_without_commands', '27', None,
         cli=lambda d: ['validate', bad_inputs.bag_without_commands(d), '--max-rms', '1'],
         words=('no effort command topic', 'no /diagnostics'), exit_code=0),
    Case('command_topic_empty_argument', '28', scripts.bad_argument,
         raw_args=('-p', 'command_topic:='), may_exit=True),
]

#: The CI subset (about 80 s): one case per kind of fault.
FAST = ('trajectory_10000_points', 'refused_goal_never_runs', 'gravity_-981',
        'two_disagreeing_publishers', 'cleanup_configure_activate', 'goal_then_deactivate',
        'active_shutdown', 'command_topic_own', 'trigger_5', 'alternating_rejections',
        'stamp_zero_at_start', 'sigint_active', 'validate_damaged_bag', 'self_including_xacro',
        'trajectory_velocities_10', 'arm_not_following', 'payload_storm',
        'one_publisher_catching_up', 'pose_target_storm', 'target_wrench_storm')
