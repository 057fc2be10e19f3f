// robodyn_controllers/MujocoLockstepSystem: MuJoCo physics stepped inside controller_manager's
// loop, by each control cycle's period (one step at the nominal rate; see advance()).
//
// read() hands the controllers the state after the last step and write() applies their
// efforts until the next cycle, as a real arm's driver does at 1 kHz: every state is
// fresh, every command acts for one period. (mujoco_ros2_control's plugin runs its
// physics in a thread of its own at real time; its states lag the physics by a few steps
// and a command waits for the next one: right for a free-running simulation, not for
// measuring a controller's own tracking.) Hardware parameters: `mujoco_model` (an MJCF
// path: one joint and one `motor` actuator per ros2_control joint, both named as the
// joint), `max_torque_rate` [N m/s] (default 1000). Joint state interfaces position,
// velocity and effort; command interface effort; `initial_value` of position and effort
// state the start pose and torque.
//
// It never lets go of the arm: a joint whose effort interface no controller claims (before
// the first controller activates, and from the moment a controller releases it:
// deactivate, switch, unload, error) is held by the hardware itself, as a brake or a
// driver's own servo would, at the position where it was released: MuJoCo's bias force
// (g(q) + C(q, qd) qd) plus M(q) a, a the controllers' derived hold acceleration
// (torque_safety.hpp: critically damped, each held joint decoupled), clamped to the
// command interface's max and moving at most max_torque_rate x min(elapsed, timestep) per
// control cycle (a late cycle's further physics steps keep it, as they keep the
// controllers' commands) from the torque applied when it was released. When one controller
// hands the joint over to another in one switch, for 0.1 s the deactivated one's halt
// value (0: the JointTrajectoryController's on_deactivate) is not applied (the hardware
// holds the joint until the new controller writes) and the new controller's commands move
// the applied torque at most max_torque_rate x the period a cycle, as a drive's torque
// slew limit would.
//
// Test only: with the hardware parameter `fault_injection` "true" it subscribes to
// `~/inject_fault` (std_msgs/String, "<kind> <seconds> [joint, 1-based; 0 or none: all]")
// and corrupts the states read() hands the controllers, as a failing encoder or driver
// would: `nan` (positions NaN), `out_of_range` (positions 10 rad beyond), `frozen` (the
// whole state repeats the one of the first corrupted cycle), `jump` (positions 0.5 rad
// off); or makes the next read() `late` by `seconds` (a driver that blocks the loop). The
// physics is not touched: the arm is where it is, only its report lies.
//
// Test only, with fault injection: `~/push` (std_msgs/String, "fx fy fz mx my mz seconds")
// pushes the tool for that long from the next cycle: the wrench [N, N m] in the world
// (base) frame at the point `push_point` ("x y z" [m], hardware parameter) of the body
// `push_body` (hardware parameter; the tip link's origin as robodyn_ros writes them),
// applied by MuJoCo's mj_applyFT. Its joint torque over each cycle, the ground truth of a
// collision observer, goes out on `~/external_torque` (sensor_msgs/JointState, effort;
// zeros outside a push) with each state, plus the joint torque of the tool's contact with
// the obstacle when the MJCF has one (the launch's `obstacle`: contact forces mapped
// through MuJoCo's own constraint Jacobian, contact rows only), and that state's
// positions (read()'s time is not the clock the controllers' messages carry: the
// positions tell which state it was).
//
// Test only, with fault injection: `~/applied_step` (sensor_msgs/JointState), the witness
// of the torque-rate invariant judged from what the hardware applied: after each cycle's
// physics, per joint, `velocity` the largest change of the applied torque (MuJoCo's
// actuator force) in one cycle since the last message [N m], `position` the largest such
// change since the hardware started, `effort` the torque applied; one message every 10
// cycles. A subscriber that loses messages (a busy test machine) still learns every
// cycle's worst from the running maximum: the witness does not depend on receiving each
// cycle, as a recording of /joint_states does.

#ifndef ROBODYN_CONTROLLERS__MUJOCO_LOCKSTEP_SYSTEM_HPP_
#define ROBODYN_CONTROLLERS__MUJOCO_LOCKSTEP_SYSTEM_HPP_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "hardware_interface/system_interface.hpp"
#include "hardware_interface/types/hardware_interface_return_values.hpp"
#include "mujoco/mujoco.h"
#include "rclcpp/rclcpp.hpp"
#include "realtime_tools/realtime_publisher.hpp"
#include "sensor_msgs/msg/joint_state.hpp"
#include "std_msgs/msg/string.hpp"

namespace robodyn_controllers
{

class MujocoLockstepSystem : public hardware_interface::SystemInterface
{
public:
  using CallbackReturn = hardware_interface::CallbackReturn;
  using return_type = hardware_interface::return_type;

  ~MujocoLockstepSystem() override;

  CallbackReturn on_init(const hardware_interface::HardwareComponentInterfaceParams & params)
  override;

  // Which joints' efforts a controller claims from now on; the others are held (see the
  // file's comment). Said once per change in the log.
  return_type perform_command_mode_switch(
    const std::vector<std::string> & start, const std::vector<std::string> & stop) override;

  CallbackReturn on_activate(const rclcpp_lifecycle::State &) override;

  // The physics advanced by this cycle's period under the last write's efforts (see
  // advance()), then its state (corrupted while a fault is injected).
  return_type read(const rclcpp::Time & time, const rclcpp::Duration & period) override;

  // The controllers' efforts, applied from now until the next read() (a non-finite command
  // keeps the last).
  return_type write(const rclcpp::Time & time, const rclcpp::Duration & period) override;

private:
  enum class Fault : int {NONE = 0, NAN_STATE, OUT_OF_RANGE, FROZEN, JUMP, LATE};

  // From ~/inject_fault (the executor's thread): parsed here, handed to read() through
  // one atomic word (kind, cycles and joint packed), so read() never waits on it.
  void request_fault(const std::string & text);

  // The fault to apply this cycle: a new request replaces the one running.
  Fault take_fault();

  // At read(), when write() ran since the last one (the hardware is active): the physics
  // advances by the cycle's period exactly (physics_steps.hpp: the time since the last
  // read, the time the last write's efforts acted), as a real arm's world goes on, at most
  // MAX_STEPS steps' worth, at least one step, so every command is applied. A late cycle
  // advances as far as the world went on meanwhile, an early one (controller_manager
  // catching up: 0.27 ms after the last) only that far: with whole steps of the model's
  // timestep, at least one a cycle, each early cycle put the physics up to a step ahead of
  // the clock the JTC samples its reference on (1.5e-3 rad of tracking error at 1.5 rad/s,
  // decaying over 0.2 s, beside two hogs). By
  // read()'s period, not write()'s (the cycle before's): a state reports what its cycle's
  // period did, as a controller integrates over (the collision observer's momentum).
  void advance(const rclcpp::Time & time, double elapsed);

  // The push's hardware parameters, its request topic and the ground truth's publisher.
  bool configure_push(const std::unordered_map<std::string, std::string> & hw);

  // After a step: the joint torque of the contacts in it (MuJoCo's contact rows of
  // efc_force through its constraint Jacobian, mj_mulJacTVec), for the ground truth.
  // The forces are copied into a buffer sized once; a step with more constraint rows than
  // it holds reports NaN (the truth unknown, never a wrong value).
  void contact();

  // From ~/push (the executor's thread): the wrench and duration, handed to write()
  // through push_request_ and one atomic flag (write() never waits on it).
  void request_push(const std::string & text);

  void take_push();

  // After mj_step1 (this step's kinematics): the push's joint torque into qfrc_applied,
  // as MuJoCo maps it (mj_applyFT), kept for the ground truth.
  void push();

  // With each state: the push's joint torque over the last cycle (non-blocking).
  void publish_truth(const rclcpp::Time & time);

  // The applied-step witness's publisher and message (see the file's comment).
  void configure_witness();

  // After a cycle's physics: each joint's applied-torque change, kept as the largest since
  // the last message and as the running maximum, and the torque; one message every
  // WITNESS_CYCLES cycles (non-blocking: a cycle whose message could not go keeps
  // gathering; no allocation: the message's vectors are sized at configure).
  void publish_witness(const rclcpp::Time & time);

  // Physics steps of one late cycle, at most: beyond 20 ms the simulated world waits for
  // the loop (a stall of the host is not the arm's; at most 20 ms of a stale command).
  static constexpr double MAX_STEPS = 20.0;
  // A handover's wait for the new controller's first command, at most [cycles]: 0.1 s at
  // 1 kHz (a forward controller's first message; the C++ controller writes at once).
  static constexpr int HANDOVER_CYCLES = 100;
  // Cycles per applied-step witness message (100 Hz at 1 kHz: a subscriber beside the hogs
  // keeps up; each message carries the largest change of its cycles).
  static constexpr int WITNESS_CYCLES = 10;

  CallbackReturn fail(const std::string & why);

  // The hold of joint i starts here, at its current position, from its current torque.
  void start_hold(std::size_t i);

  // The unclaimed joints' torques for the next physics step (after mj_step1), each moving
  // at most `step` [N m or N]: max_torque_rate x min(elapsed, timestep), the controllers'
  // arithmetic (torque_safety.hpp rate_step).
  void hold(double step);

  // The command interface's `max` [N m or N] (infinite when not given).
  static double command_max(const hardware_interface::ComponentInfo & joint);

  static double initial(
    const hardware_interface::ComponentInfo & joint, const std::string & name, double value);

  mjModel * model_ = nullptr;
  mjData * data_ = nullptr;
  std::vector<int> qpos_, dof_, actuator_;
  std::vector<bool> claimed_;  // a controller writes this joint's effort
  // Cycles left of a handover: an effort of exactly 0 is the halt value a deactivated
  // controller left in the interface (the JointTrajectoryController writes 0 on deactivate,
  // after the hardware's switch), not the new controller's command: the hardware holds
  // meanwhile; the new controller's commands are slewed at max_torque_rate.
  std::vector<int> handover_;
  std::vector<bool> waiting_;  // this cycle: held, the new controller has not written yet
  std::vector<double> hold_q_, hold_w_, effort_max_;
  // the hold's acceleration and M times it, per MuJoCo dof (sized nv at configure)
  std::vector<mjtNum> hold_acc_, hold_force_;
  double timestep_ = 0.0;  // the model's timestep [s] (opt.timestep: changed per cycle)
  bool written_ = false;  // write() ran since the last read(): the physics advances
  // fault injection (test only): the request, the fault running and its cycles left
  rclcpp::Subscription<std_msgs::msg::String>::SharedPtr injector_;
  std::atomic<std::uint64_t> pending_{0};
  Fault fault_ = Fault::NONE;
  int fault_joint_ = 0;
  std::uint64_t fault_cycles_ = 0;
  bool fault_first_ = false;
  double fault_seconds_ = 0.0;
  std::vector<double> frozen_;
  // the push (test only): body, point in it, the wrench running and until when [s]
  int push_body_ = -1;
  std::array<double, 3> push_point_{};
  std::array<double, 7> push_request_{}, push_wrench_{};
  std::atomic<bool> push_pending_{false};
  double push_until_ = -1.0;
  std::vector<mjtNum> applied_push_;
  // the obstacle's contact (test only): its joint torque in the last cycle's first step,
  // and the contact rows of efc_force (room for 4096 constraint rows)
  std::vector<mjtNum> contact_torque_, contact_rows_ = std::vector<mjtNum>(4096, 0.0);
  rclcpp::Subscription<std_msgs::msg::String>::SharedPtr pusher_;
  rclcpp::Publisher<sensor_msgs::msg::JointState>::SharedPtr truth_topic_;
  std::unique_ptr<realtime_tools::RealtimePublisher<sensor_msgs::msg::JointState>> truth_;
  sensor_msgs::msg::JointState truth_msg_;
  // the applied-step witness (test only): the torque applied after the last cycle [N m]
  std::vector<double> applied_;
  int witness_cycles_ = 0;
  rclcpp::Publisher<sensor_msgs::msg::JointState>::SharedPtr witness_topic_;
  std::unique_ptr<realtime_tools::RealtimePublisher<sensor_msgs::msg::JointState>> witness_;
  sensor_msgs::msg::JointState witness_msg_;
  double max_rate_ = 1000.0;
  std::vector<hardware_interface::StateInterface::SharedPtr> position_, velocity_, effort_;
  std::vector<hardware_interface::CommandInterface::SharedPtr> command_;
};

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__MUJOCO_LOCKSTEP_SYSTEM_HPP_
