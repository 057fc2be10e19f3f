// robodyn_controllers/SlewLimitedEffortController: forwards effort commands from a topic
// to the hardware, each cycle's change limited in controller_manager's loop.
#ifndef ROBODYN_CONTROLLERS__SLEW_LIMITED_EFFORT_CONTROLLER_HPP_
#define ROBODYN_CONTROLLERS__SLEW_LIMITED_EFFORT_CONTROLLER_HPP_

#include <atomic>
#include <string>
#include <vector>

#include "controller_interface/controller_interface.hpp"
#include "rclcpp_lifecycle/state.hpp"
#include "realtime_tools/realtime_thread_safe_box.hpp"
#include "std_msgs/msg/float64_multi_array.hpp"

#include "robodyn_controllers/torque_safety.hpp"

namespace robodyn_controllers
{

// Subscribes to ~/commands (std_msgs/Float64MultiArray, one effort per joint in `joints`
// order [N m or N]), as forward_command_controller's ForwardCommandController does, and
// writes <joint>/effort each cycle: the newest command, moved at most max_torque_rate x
// min(elapsed, period) from the last one written (torque_safety.hpp's limit_torque: the
// arithmetic of both of robodyn's paths).
//
// Why: on the node path the robodyn node publishes one command per state it answers; a
// forward controller applies the newest message it holds each cycle, so when its
// executor takes several of them in one cycle (a loaded machine) the torque the arm is
// given steps by several of the node's per-message budgets at once. Limiting the step
// here, in the hardware's own cycle, bounds what the arm is given whatever arrives when.
// The node's own per-message limit stays. Its cost: after messages arrive bunched while
// the node's stream ramps at this limit, the torque written lags the newest command by
// the bunch for as long as the ramp lasts. So ros2_control.launch.py gives this controller
// the configured max_torque_rate and the node 0.8 of it (NODE_RATE_SHARE): the rest is the
// room to make a bunch up (docs/reliability.md).
//
// Commands that stop are not applied for ever: with `command_timeout` [s] > 0 (default 0.2,
// four of the node's state timeouts), once no new command has arrived for that long on the
// controller's clock and for as many cycles, update() returns ERROR and controller_manager
// deactivates the controller (and activates its `fallback_controllers`, if any): from there
// what holds the arm is the hardware's (MujocoLockstepSystem holds every released joint)
// or the fallback's. Armed by the first command after each activation.
//
// An arm driven too fast is let go to the hardware's hold: with `velocity_limits` (one per
// joint in `joints` order [rad/s or m/s], 0 for a joint not watched; empty: off, the
// default), update() returns ERROR at once when a joint's velocity state exceeds its limit
// under a command STALE_CYCLES (2) cycles old, or exceeds FRESH_OVERSPEED (1.5) x its limit
// whatever the commands, once it has been within its limit since the activation (an arm
// handed over while it falls is the node's to catch). Why: the last command of a node that
// stopped is a computed torque for a state the arm has left; applied open-loop it
// accelerated the Panda's joints 1 and 3 from 1.5 to 5.3 rad/s (limit 2.175) within the
// 0.2 s timeout. And a node's position hold
// closes its loop over two topics: a loaded machine's latency can make it ring and run away
// (3.9 rad once under a loaded test suite), where the hardware holds in its own cycle. The
// node's velocity guard (1.1 x the limit) and its hold's own watch act first.
//
// The first cycle after activation steps from the hardware's effort command (what it was
// last told, by this controller or another), else the effort it reports, else 0: the same
// order as ComputedTorqueController. Until a command arrives, and for a non-finite value,
// the last torque is written again. A command of the wrong size is dropped and counted
// (logged from the subscription's thread, at most once a second). On deactivation nothing
// more is written: from there the hardware decides (MujocoLockstepSystem holds the arm;
// a real arm's driver: docs/real_arm.md).
// update() allocates nothing, takes no lock it can wait on, logs nothing and throws nothing.
class SlewLimitedEffortController : public controller_interface::ControllerInterface
{
public:
  controller_interface::CallbackReturn on_init() override;
  controller_interface::InterfaceConfiguration command_interface_configuration() const override;
  controller_interface::InterfaceConfiguration state_interface_configuration() const override;
  controller_interface::CallbackReturn on_configure(
    const rclcpp_lifecycle::State & previous_state) override;
  controller_interface::CallbackReturn on_activate(
    const rclcpp_lifecycle::State & previous_state) override;
  controller_interface::CallbackReturn on_deactivate(
    const rclcpp_lifecycle::State & previous_state) override;
  controller_interface::return_type update(
    const rclcpp::Time & time, const rclcpp::Duration & period) override;

  // Counts of what the limit changed since activation (tests, diagnostics).
  const LimitCounts & counts() const noexcept {return counts_;}

private:
  controller_interface::InterfaceConfiguration effort_interfaces() const;
  void on_command(const std_msgs::msg::Float64MultiArray & msg);
  bool commands_stopped(const rclcpp::Time & time);
  bool overspeed() noexcept;
  double overspeed_factor() const noexcept;

  std::vector<std::string> joints_;
  double max_torque_rate_ = 1000.0;
  double nominal_period_ = 0.001;
  rclcpp::Subscription<std_msgs::msg::Float64MultiArray>::SharedPtr subscription_;
  // The newest command of the right size, handed from the subscription's thread.
  realtime_tools::RealtimeThreadSafeBox<std::vector<double>> box_;
  std::atomic<unsigned long> wrong_size_{0};
  // commands of the right size received (the subscription's thread counts, update() reads)
  std::atomic<unsigned long> received_{0};
  unsigned long seen_ = 0, silent_cycles_ = 0;
  double command_timeout_ = 0.2, silent_for_ = 0.0;
  rclcpp::Time last_command_time_{0, 0, RCL_ROS_TIME};
  bool armed_ = false, timed_out_ = false;
  // velocity_limits (empty: not watched); the joint and speed that ended a stale command
  std::vector<double> velocity_limits_;
  std::size_t overspeed_joint_ = 0;
  double overspeed_ = 0.0;
  bool overspeed_out_ = false;
  // per joint: 1 once its speed was within its limit since the activation
  std::vector<char> within_limit_;
  rclcpp::Time last_wrong_size_log_{0, 0, RCL_STEADY_TIME};
  std::vector<double> target_, last_, out_, no_limit_;
  bool have_target_ = false;
  LimitCounts counts_;
};

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__SLEW_LIMITED_EFFORT_CONTROLLER_HPP_
