"""The real ros2_control stack around an arm, with the robodyn controller in it.

  ros2 launch robodyn_ros ros2_control.launch.py robot:=panda hardware:=mujoco bag_path:=run
  ros2 launch robodyn_ros ros2_control.launch.py robot:=/path/arm.urdf.xacro \
      xacro_args:='arm_id:=fr3 hand:=false' config:=my_arm.yaml hardware:=mock

``controller``:
  plugin  (default) the C++ controller robodyn_controllers/ComputedTorqueController inside
          controller_manager's real-time loop, on the model ``robodyn export`` writes
          (generated here), with the real JointTrajectoryController chained into its
          reference interfaces; the config's reference (sum_of_sines, ...) is sent to the
          JTC as one trajectory (reference_sender), FollowJointTrajectory goals go to
          ``/joint_trajectory_controller/follow_joint_trajectory``. The recorder takes
          ``/robodyn_controller/{reference,commands}`` and ``/joint_states``.
  node    the robodyn node (Python) on ``/effort_controller/commands``, as below.

With ``controller:=node``: controller_manager (``ros2_control_node``) with a generated
controllers YAML for exactly the controller's chain, a ``/robot_description`` publisher,
``controller_starter`` (in place of a chain of spawners: it joins DDS with the stack and
leaves with it, so no participant joins while the node commands) bringing up
``joint_state_broadcaster`` + ``effort_controller`` (robodyn_controllers'
SlewLimitedEffortController on the effort interfaces, its per-cycle limit open: it
deactivates itself when the node's commands stop for 4 state timeouts) active and
``joint_trajectory_controller`` (effort interfaces, PD 100 / 10 with the damping capped
where a joint is too light for it: control/jtc_gains.py) loaded inactive,
the robodyn controller on ``/effort_controller/commands`` (started with the stack: it
configures while the hardware starts and ramps in at the first joint state) and, with
``bag_path``, the recorder of what ``robodyn validate`` reads.

``hardware``:
  mujoco  physics: MuJoCo on an MJCF generated from the same model (one motor per joint),
          run by robodyn_controllers/MujocoLockstepSystem inside controller_manager's
          loop: each cycle steps it by that cycle's period, so every state is fresh and
          every command acts for one period, as an arm's driver at 1 kHz gives them. It
          holds g(q0) until a controller writes. What tracking is measured on.
  mujoco_ros2_control  the same MJCF on mujoco_ros2_control's system plugin: the physics
          free-running in a thread of its own, controller_manager reading its latest
          snapshot (which may lag by a few steps); effort commands start at g(q0).
          physics_gate pauses the physics, configures the robodyn node, resumes the
          physics and only then activates the node (no command on paused physics).
  mock    mock_components/GenericSystem: every command is mirrored to the effort state; the
          arm never moves, so mock checks the wiring (controllers, topics, goals, the
          safe command), not tracking: `validate` of a mock run fails by design, and the
          tracking guard is off.
  gz      Gazebo (the headless Fortress server, DART at 1 ms) through gz_ros2_control:
          controller_manager runs inside the simulation step, on simulated time (the
          nodes and the recorder too). The effort commands start at g(q0); joints no
          controller claims are held by GazeboSimSystem. Its effort state reads 0: judge
          the torque from ``~/commands``.
  robot   the description's own ``<ros2_control>`` block: a real arm's driver. Nothing else
          changes; see docs/real_arm.md.

What each argument starts: robodyn_ros/bringup/ (ros2_control.py, hardware.py).
"""


from ament_index_python.packages import get_package_share_directory
from launch.actions import DeclareLaunchArgument, OpaqueFunction

from launch import LaunchDescription
from robodyn_ros.bringup.arguments import robot_arguments, transport_actions
from robodyn_ros.bringup.hardware import HARDWARE
from robodyn_ros.bringup.ros2_control import CONTROLLERS, actions


def generate_launch_description():
    share = get_package_share_directory('robodyn_ros')
    return LaunchDescription(transport_actions() + robot_arguments(share) + [
        DeclareLaunchArgument('hardware', default_value='mujoco',
                              description=' | '.join(HARDWARE)),
        DeclareLaunchArgument('controller', default_value='plugin',
                              description=' | '.join(CONTROLLERS)),
        DeclareLaunchArgument('realtime_priority', default_value='0',
                              description='run ros2_control_node (and, controller:=node, '
                                          'the robodyn node) under chrt -f N (SCHED_FIFO, '
                                          "as an arm's driver runs; needs the privilege); 0: "
                                          'off'),
        DeclareLaunchArgument('mode', default_value='',
                              description="the control law (robodyn_ros.control.laws."
                                          "MODES; default: the config's)"),
        DeclareLaunchArgument('bag_path', default_value='',
                              description='rosbag2 directory to record (empty: none)'),
        DeclareLaunchArgument('storage', default_value='mcap', description='mcap | sqlite3'),
        DeclareLaunchArgument('obstacle', default_value='',
                              description="hardware:=mujoco: a box fixed in the world, 'cx cy "
                                          "cz hx hy hz' [m] (base frame), that a 0.03 m "
                                          "sphere at the tool strikes (empty: none)"),
        DeclareLaunchArgument('sim_payload', default_value='',
                              description="hardware:=mujoco: a payload only the simulator "
                                          "knows, 'KG [CX CY CZ]' (a point mass, its centre "
                                          "in the tip frame [m]; empty: none)"),
        OpaqueFunction(function=actions),
    ])
