"""Defaults shared by every layer, written once: gravity, the topic names and the node
path's share of the torque rate limit.

Topic names are relative where nodes use them (namespaces and remapping work) and absolute
where a bag records them.
"""

__all__ = ['GRAVITY', 'CONTROLLER_NAME', 'JOINT_STATES', 'COMMAND_TOPIC', 'REFERENCE_TOPIC',
           'TARGET_TOPIC', 'CONTROLLER_STATE_TOPIC', 'DIAGNOSTICS_TOPIC', 'MAX_JOINT_NAMES',
           'NODE_RATE_SHARE']

#: Gravity in the base_link frame [m/s^2].
GRAVITY = (0.0, 0.0, -9.81)
#: The robodyn controller's node name, its config section and its /diagnostics status name
#: (both paths: the Python node and the C++ controller in controller_manager).
CONTROLLER_NAME = 'robodyn_controller'
#: Measured joint states (relative name).
JOINT_STATES = 'joint_states'
#: Effort commands: a ros2_control forward effort controller named effort_controller.
COMMAND_TOPIC = 'effort_controller/commands'
#: The robodyn controller's reference and JTC-style state, as recorded (absolute names).
REFERENCE_TOPIC = f'/{CONTROLLER_NAME}/reference'
CONTROLLER_STATE_TOPIC = f'/{CONTROLLER_NAME}/controller_state'
#: The controller's pose targets (geometry_msgs/PoseStamped, the chain's base link frame).
TARGET_TOPIC = f'/{CONTROLLER_NAME}/target_pose'
DIAGNOSTICS_TOPIC = '/diagnostics'
#: Most joint names a JointState may carry before it is refused undecoded (a cell with
#: several arms, grippers and a base has tens; a million would stall any decoder).
MAX_JOINT_NAMES = 1024
#: The node path's share of max_torque_rate: the Python node limits what it publishes to this
#: share, the forward controller (SlewLimitedEffortController) limits what the hardware
#: applies to all of it. The rest is the forward side's room to catch up with a stream whose
#: messages arrived bunched (a loaded machine): a bunch of k messages is made up within 4 k
#: cycles, while with no room the lag would last as long as the node's stream ramps at its
#: limit. Read by ros2_control.launch.py and by the tests that judge the node's steps.
NODE_RATE_SHARE = 0.8
