"""Defaults shared by every layer, written once: gravity and the topic names.

Topic names are relative where nodes use them (namespaces and remapping work) and absolute
where a bag records them.
"""

__all__ = ['GRAVITY', 'CONTROLLER_NAME', 'JOINT_STATES', 'COMMAND_TOPIC', 'REFERENCE_TOPIC',
           'CONTROLLER_STATE_TOPIC', 'DIAGNOSTICS_TOPIC', 'MAX_JOINT_NAMES']

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
DIAGNOSTICS_TOPIC = '/diagnostics'
#: Most joint names a JointState may carry before it is refused undecoded (a cell with
#: several arms, grippers and a base has tens; a million would stall any decoder).
MAX_JOINT_NAMES = 1024
