// robodyn_controllers/SlewLimitedEffortController (see the header for what and why).
#include "robodyn_controllers/slew_limited_effort_controller.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "hardware_interface/types/hardware_interface_type_values.hpp"
#include "pluginlib/class_list_macros.hpp"

namespace robodyn_controllers
{

using controller_interface::CallbackReturn;
using controller_interface::interface_configuration_type;
using controller_interface::InterfaceConfiguration;
using controller_interface::return_type;
using hardware_interface::HW_IF_EFFORT;

// The valid range of max_torque_rate [N m/s], as the node's parameter.
constexpr double MAX_TORQUE_RATE_HIGH = 1e5;
// The valid range of command_timeout [s] (0: off).
constexpr double COMMAND_TIMEOUT_HIGH = 10.0;
// Cycles without a new command after which an overspeed ends the command (header).
constexpr unsigned long STALE_CYCLES = 2;
// Commands that keep coming end beyond this many times a joint's velocity limit (header).
constexpr double FRESH_OVERSPEED = 1.5;

CallbackReturn SlewLimitedEffortController::on_init()
{
  try {
    auto_declare<std::vector<std::string>>("joints", {});
    auto_declare<double>("max_torque_rate", 1000.0);
    auto_declare<double>("command_timeout", 0.2);
    auto_declare<std::vector<double>>("velocity_limits", {});
  } catch (const std::exception & e) {
    RCLCPP_ERROR(get_node()->get_logger(), "declaring parameters: %s", e.what());
    return CallbackReturn::ERROR;
  }
  return CallbackReturn::SUCCESS;
}

// <joint>/effort of every joint: the commands it writes, and the states it starts from.
InterfaceConfiguration SlewLimitedEffortController::effort_interfaces() const
{
  InterfaceConfiguration config{interface_configuration_type::INDIVIDUAL, {}};
  for (const auto & joint : joints_) {config.names.push_back(joint + "/" + HW_IF_EFFORT);}
  return config;
}

InterfaceConfiguration SlewLimitedEffortController::command_interface_configuration() const
{
  return effort_interfaces();
}

// The efforts, then (velocity_limits given) the velocities, in `joints` order.
InterfaceConfiguration SlewLimitedEffortController::state_interface_configuration() const
{
  InterfaceConfiguration config = effort_interfaces();
  if (!velocity_limits_.empty()) {
    for (const auto & joint : joints_) {
      config.names.push_back(joint + "/" + hardware_interface::HW_IF_VELOCITY);
    }
  }
  return config;
}

CallbackReturn SlewLimitedEffortController::on_configure(const rclcpp_lifecycle::State &)
{
  const auto logger = get_node()->get_logger();
  joints_ = get_node()->get_parameter("joints").as_string_array();
  max_torque_rate_ = get_node()->get_parameter("max_torque_rate").as_double();
  const std::set<std::string> unique(joints_.begin(), joints_.end());
  if (joints_.empty() || unique.size() != joints_.size()) {
    RCLCPP_ERROR(logger, "joints: %zu names, %zu distinct; expected at least one, each once",
      joints_.size(), unique.size());
    return CallbackReturn::ERROR;
  }
  if (!(max_torque_rate_ > 0.0 && max_torque_rate_ <= MAX_TORQUE_RATE_HIGH)) {
    RCLCPP_ERROR(logger, "max_torque_rate: %g N m/s; valid: > 0, <= %g N m/s",
      max_torque_rate_, MAX_TORQUE_RATE_HIGH);
    return CallbackReturn::ERROR;
  }
  command_timeout_ = get_node()->get_parameter("command_timeout").as_double();
  if (!(command_timeout_ >= 0.0 && command_timeout_ <= COMMAND_TIMEOUT_HIGH)) {
    RCLCPP_ERROR(logger, "command_timeout: %g s; valid: 0 (off) to %g s", command_timeout_,
      COMMAND_TIMEOUT_HIGH);
    return CallbackReturn::ERROR;
  }
  velocity_limits_ = get_node()->get_parameter("velocity_limits").as_double_array();
  const bool finite = std::all_of(velocity_limits_.begin(), velocity_limits_.end(),
      [](double v) {return std::isfinite(v) && v >= 0.0;});
  if (!finite || (!velocity_limits_.empty() && velocity_limits_.size() != joints_.size())) {
    RCLCPP_ERROR(logger, "velocity_limits: %zu values; valid: none (off) or one per joint "
      "(%zu), each finite and >= 0 [rad/s or m/s] (0: that joint not watched)",
      velocity_limits_.size(), joints_.size());
    velocity_limits_.clear();
    return CallbackReturn::ERROR;
  }
  within_limit_.assign(joints_.size(), 0);
  const unsigned int rate = get_update_rate();
  nominal_period_ = rate > 0 ? 1.0 / rate : 0.001;
  const std::size_t n = joints_.size();
  target_.assign(n, 0.0);
  last_.assign(n, 0.0);
  out_.assign(n, 0.0);
  no_limit_.assign(n, std::numeric_limits<double>::infinity());
  box_.set(std::vector<double>{});
  subscription_ = get_node()->create_subscription<std_msgs::msg::Float64MultiArray>(
    "~/commands", rclcpp::SystemDefaultsQoS(),
    [this](const std_msgs::msg::Float64MultiArray & msg) {on_command(msg);});
  return CallbackReturn::SUCCESS;
}

void SlewLimitedEffortController::on_command(const std_msgs::msg::Float64MultiArray & msg)
{
  if (msg.data.size() != joints_.size()) {
    ++wrong_size_;
    const auto now = get_node()->get_clock()->now();
    if (now.get_clock_type() != last_wrong_size_log_.get_clock_type() ||
      (now - last_wrong_size_log_).seconds() >= 1.0)
    {
      RCLCPP_ERROR(get_node()->get_logger(), "~/commands: %zu values, expected %zu (one per "
        "joint); dropped (%lu so far)", msg.data.size(), joints_.size(), wrong_size_.load());
      last_wrong_size_log_ = now;
    }
    return;
  }
  box_.set([&msg](std::vector<double> & value) {value = msg.data;});
  received_.fetch_add(1, std::memory_order_release);
}

CallbackReturn SlewLimitedEffortController::on_activate(const rclcpp_lifecycle::State &)
{
  for (std::size_t i = 0; i < joints_.size(); ++i) {
    const auto command = command_interfaces_[i].get_optional();
    const auto state = state_interfaces_[i].get_optional();
    if (command.has_value() && std::isfinite(*command)) {
      last_[i] = *command;
    } else if (state.has_value() && std::isfinite(*state)) {
      last_[i] = *state;
    } else {
      last_[i] = 0.0;
    }
  }
  box_.set(std::vector<double>{});  // a command from before the activation is stale
  have_target_ = false;
  counts_ = LimitCounts{};
  seen_ = received_.load(std::memory_order_acquire);
  armed_ = timed_out_ = overspeed_out_ = false;
  std::fill(within_limit_.begin(), within_limit_.end(), 0);
  silent_cycles_ = 0;
  return CallbackReturn::SUCCESS;
}

CallbackReturn SlewLimitedEffortController::on_deactivate(const rclcpp_lifecycle::State &)
{
  if (timed_out_) {  // once, on the way out (update() itself never logs)
    RCLCPP_ERROR(get_node()->get_logger(), "no command on ~/commands for %.3f s "
      "(command_timeout %.3f s, %lu cycles): deactivated; what holds the arm now is the "
      "hardware's (MujocoLockstepSystem holds it; a real arm's driver: docs/real_arm.md) or "
      "a fallback controller's", silent_for_, command_timeout_, silent_cycles_);
  }
  if (overspeed_out_) {
    RCLCPP_ERROR(get_node()->get_logger(), "%s moved at %.3g, beyond %.3g x its velocity "
      "limit %.3g, %lu cycles after the last command on ~/commands: deactivated; what holds "
      "the arm now is the hardware's or a fallback controller's",
      joints_[overspeed_joint_].c_str(), overspeed_, overspeed_factor(),
      velocity_limits_[overspeed_joint_], silent_cycles_);
  }
  return CallbackReturn::SUCCESS;
}

// The multiple of a joint's velocity limit beyond which it is let go: 1 under a command
// STALE_CYCLES old, FRESH_OVERSPEED otherwise.
double SlewLimitedEffortController::overspeed_factor() const noexcept
{
  return silent_cycles_ >= STALE_CYCLES ? 1.0 : FRESH_OVERSPEED;
}

// True when a watched joint moves beyond overspeed_factor() x its limit; under fresh
// commands only a joint that was within its limit since the activation.
bool SlewLimitedEffortController::overspeed() noexcept
{
  const std::size_t n = joints_.size();
  if (velocity_limits_.empty() || !armed_ || state_interfaces_.size() < 2 * n) {
    return false;
  }
  const bool stale = silent_cycles_ >= STALE_CYCLES;
  const double factor = overspeed_factor();
  for (std::size_t i = 0; i < n; ++i) {
    const auto velocity = state_interfaces_[n + i].get_optional();
    if (velocity_limits_[i] <= 0.0 || !velocity.has_value()) {continue;}
    const double speed = std::abs(*velocity);
    if (speed <= velocity_limits_[i]) {within_limit_[i] = 1;}
    // fresh commands: only a joint that was within its limit since the activation (an arm
    // handed over while it falls is the node's to catch, not this controller's to drop)
    if ((stale || within_limit_[i]) && speed > factor * velocity_limits_[i]) {
      overspeed_joint_ = i;
      overspeed_ = speed;
      return true;
    }
  }
  return false;
}

// True when commands stopped: no new one for more than command_timeout on the controller's
// clock (sim time in simulation) and for at least as many cycles (a late cycle alone, which
// the subscription had no chance to follow, is not a stop). Armed by the first command
// after the activation: until then the hardware's own command is written.
bool SlewLimitedEffortController::commands_stopped(const rclcpp::Time & time)
{
  const unsigned long received = received_.load(std::memory_order_acquire);
  if (received != seen_) {
    seen_ = received;
    last_command_time_ = time;
    armed_ = true;
    silent_cycles_ = 0;
    return false;
  }
  if (!armed_) {return false;}
  ++silent_cycles_;  // also counted for the velocity watch when the timeout is off
  if (command_timeout_ <= 0.0 ||
    time.get_clock_type() != last_command_time_.get_clock_type())
  {
    return false;
  }
  silent_for_ = (time - last_command_time_).seconds();
  return silent_for_ > command_timeout_ &&
         static_cast<double>(silent_cycles_) * nominal_period_ >= command_timeout_;
}

return_type SlewLimitedEffortController::update(
  const rclcpp::Time & time, const rclcpp::Duration & period)
{
  const std::size_t n = joints_.size();
  if (commands_stopped(time)) {
    timed_out_ = true;  // controller_manager deactivates a controller whose update fails
    return return_type::ERROR;
  }
  if (overspeed()) {
    overspeed_out_ = true;
    return return_type::ERROR;
  }
  (void)box_.try_get([this, n](const std::vector<double> & value) {
      if (value.size() == n) {
        std::copy(value.begin(), value.end(), target_.begin());
        have_target_ = true;
      }
    });
  const double * target = have_target_ ? target_.data() : last_.data();
  (void)limit_torque(target, no_limit_.data(),
    rate_step(max_torque_rate_, period.seconds() > 0.0 ? period.seconds() : nominal_period_,
    nominal_period_), n, last_.data(), out_.data(), counts_);
  for (std::size_t i = 0; i < n; ++i) {(void)command_interfaces_[i].set_value(out_[i]);}
  return return_type::OK;
}

}  // namespace robodyn_controllers

PLUGINLIB_EXPORT_CLASS(
  robodyn_controllers::SlewLimitedEffortController, controller_interface::ControllerInterface)
