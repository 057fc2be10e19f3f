// robodyn_controllers/MujocoTestSystem: the lock-step MuJoCo hardware
// (mujoco_lockstep_system.hpp) with what the launch tests and the fault campaigns need of it.
// Built and installed with the tests only (BUILD_TESTING): a user's install has the
// product hardware alone; the launch picks this one with `fault_injection:=true`.
//
// `~/inject_fault` (std_msgs/String, "<kind> <seconds> [joint, 1-based; 0 or none: all]")
// corrupts the states read() hands the controllers, as a failing encoder or driver would:
// `nan` (positions NaN), `out_of_range` (positions 10 rad beyond), `frozen` (the whole
// state repeats the one of the first corrupted cycle), `jump` (positions 0.5 rad off); or
// makes the next read() `late` by `seconds` (a driver that blocks the loop). The physics is
// not touched: the arm is where it is, only its report lies.
//
// `~/push` (std_msgs/String, "fx fy fz mx my mz seconds") pushes the tool for that long
// from the next cycle: the wrench [N, N m] in the world (base) frame at the point
// `push_point` ("x y z" [m], hardware parameter) of the body `push_body` (hardware
// parameter; the tip link's origin as robodyn_ros writes them), applied by MuJoCo's
// mj_applyFT. Its joint torque over each cycle, the ground truth of a collision observer,
// goes out on `~/external_torque` (sensor_msgs/JointState, effort; zeros outside a push)
// with each state, plus the joint torque of the tool's contact with the obstacle when the
// MJCF has one (the launch's `obstacle`: contact forces mapped through MuJoCo's own
// constraint Jacobian, contact rows only), and that state's positions (read()'s time is not
// the clock the controllers' messages carry: the positions tell which state it was).
//
// `~/applied_step` (sensor_msgs/JointState), the witness of the torque-rate invariant
// judged from what the hardware applied: after each cycle's physics, per joint, `velocity`
// the largest change of the applied torque (MuJoCo's actuator force) in one cycle since the
// last message [N m], `position` the largest such change since the hardware started,
// `effort` the torque applied; one message every 10 cycles. A subscriber that loses
// messages (a busy test machine) still learns every cycle's worst from the running
// maximum: the witness does not depend on receiving each cycle, as a recording of
// /joint_states does.

#ifndef ROBODYN_CONTROLLERS__MUJOCO_TEST_SYSTEM_HPP_
#define ROBODYN_CONTROLLERS__MUJOCO_TEST_SYSTEM_HPP_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "realtime_tools/realtime_publisher.hpp"
#include "robodyn_controllers/mujoco_lockstep_system.hpp"
#include "sensor_msgs/msg/joint_state.hpp"
#include "std_msgs/msg/string.hpp"

namespace robodyn_controllers
{

class MujocoTestSystem : public MujocoLockstepSystem
{
public:
  CallbackReturn on_init(const hardware_interface::HardwareComponentInterfaceParams & params)
  override;

  // The physics' step, then its state, corrupted while a fault is injected.
  return_type read(const rclcpp::Time & time, const rclcpp::Duration & period) override;

private:
  enum class Fault : int {NONE = 0, NAN_STATE, OUT_OF_RANGE, FROZEN, JUMP, LATE};

  // From ~/inject_fault (the executor's thread): parsed here, handed to read() through
  // one atomic word (kind, cycles and joint packed), so read() never waits on it.
  void request_fault(const std::string & text);

  // The fault to apply this cycle: a new request replaces the one running.
  Fault take_fault();

  // Joint i's state as this cycle's fault reports it.
  void corrupt(Fault fault, std::size_t i, double & q, double & qd, double & effort);

  // The push's hardware parameters, its request topic and the ground truth's publisher.
  bool configure_push(const std::unordered_map<std::string, std::string> & hw);

  // From ~/push (the executor's thread): the wrench and duration, handed to the control
  // thread through push_request_ and one atomic flag (it never waits on it).
  void request_push(const std::string & text);

  // The hooks of the physics' cycle. before_steps: the push requested is taken.
  // during_step: the push's joint torque into qfrc_applied after mj_step1, as MuJoCo maps
  // it (mj_applyFT), kept for the ground truth. after_first_step: the joint torque of the
  // step's contacts (MuJoCo's contact rows of efc_force through its constraint Jacobian,
  // mj_mulJacTVec), for the ground truth; the forces are copied into a buffer sized once,
  // and a step with more constraint rows than it holds reports NaN (the truth unknown,
  // never a wrong value). after_steps: each joint's applied-torque change, kept as the
  // largest since the last witness message and as the running maximum, and the torque; one
  // message every WITNESS_CYCLES cycles (non-blocking: a cycle whose message could not go
  // keeps gathering; no allocation: the message's vectors are sized at configure).
  void before_steps() override;
  void during_step() override;
  void after_first_step() override;
  void after_steps(const rclcpp::Time & time) override;

  // With each state: the push's joint torque over the last cycle (non-blocking).
  void publish_truth(const rclcpp::Time & time);

  // The applied-step witness's publisher and message (see the file's comment).
  void configure_witness();

  // Cycles per applied-step witness message (100 Hz at 1 kHz: a subscriber beside the hogs
  // keeps up; each message carries the largest change of its cycles).
  static constexpr int WITNESS_CYCLES = 10;

  // fault injection: the request, the fault running and its cycles left
  rclcpp::Subscription<std_msgs::msg::String>::SharedPtr injector_;
  std::atomic<std::uint64_t> pending_{0};
  Fault fault_ = Fault::NONE;
  int fault_joint_ = 0;
  std::uint64_t fault_cycles_ = 0;
  bool fault_first_ = false;
  double fault_seconds_ = 0.0;
  std::vector<double> frozen_;
  // the push: body, point in it, the wrench running and until when [s]
  int push_body_ = -1;
  std::array<double, 3> push_point_{};
  std::array<double, 7> push_request_{}, push_wrench_{};
  std::atomic<bool> push_pending_{false};
  double push_until_ = -1.0;
  std::vector<mjtNum> applied_push_;
  // the obstacle's contact: its joint torque in the last cycle's first step, and the
  // contact rows of efc_force (room for 4096 constraint rows)
  std::vector<mjtNum> contact_torque_, contact_rows_ = std::vector<mjtNum>(4096, 0.0);
  rclcpp::Subscription<std_msgs::msg::String>::SharedPtr pusher_;
  rclcpp::Publisher<sensor_msgs::msg::JointState>::SharedPtr truth_topic_;
  std::unique_ptr<realtime_tools::RealtimePublisher<sensor_msgs::msg::JointState>> truth_;
  sensor_msgs::msg::JointState truth_msg_;
  // the applied-step witness: the torque applied after the last cycle [N m]
  std::vector<double> applied_;
  int witness_cycles_ = 0;
  rclcpp::Publisher<sensor_msgs::msg::JointState>::SharedPtr witness_topic_;
  std::unique_ptr<realtime_tools::RealtimePublisher<sensor_msgs::msg::JointState>> witness_;
  sensor_msgs::msg::JointState witness_msg_;
};

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__MUJOCO_TEST_SYSTEM_HPP_
