// SlewLimitedEffortController against known interfaces, as ros2_controllers test their
// forward controllers: init with parameters, configure, activate, update() by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hardware_interface/loaned_command_interface.hpp"
#include "hardware_interface/loaned_state_interface.hpp"
#include "lifecycle_msgs/msg/state.hpp"
#include "rclcpp/rclcpp.hpp"
#include "std_msgs/msg/float64_multi_array.hpp"

#include "robodyn_controllers/slew_limited_effort_controller.hpp"

using controller_interface::return_type;
using hardware_interface::CommandInterface;
using hardware_interface::StateInterface;
using robodyn_controllers::SlewLimitedEffortController;

namespace
{

class SlewLimitedEffortControllerTest : public ::testing::Test
{
protected:
  static void SetUpTestSuite() {rclcpp::init(0, nullptr);}
  static void TearDownTestSuite() {rclcpp::shutdown();}

  // The controller with these parameters, initialised at 1 kHz.
  void init(
    double rate, std::vector<std::string> joints = {"j1", "j2"}, double timeout = 0.2,
    std::vector<double> velocity_limits = {})
  {
    controller_ = std::make_unique<SlewLimitedEffortController>();
    controller_interface::ControllerInterfaceParams params;
    params.controller_name = "effort_controller";
    params.update_rate = 1000;
    params.controller_manager_update_rate = 1000;
    params.node_options = controller_->define_custom_node_options();
    params.node_options.parameter_overrides(
      {rclcpp::Parameter("joints", joints), rclcpp::Parameter("max_torque_rate", rate),
        rclcpp::Parameter("command_timeout", timeout),
        rclcpp::Parameter("velocity_limits", velocity_limits)});
    ASSERT_EQ(controller_->init(params), return_type::OK);
  }

  // Configure and activate on two joints whose effort command holds `command` and whose
  // effort state reads `state` (with `velocities`, velocity states too: state_[2], [3]).
  void start(double command, double state, bool velocities = false)
  {
    command_ = {command, command};
    state_ = {state, state, 0.0, 0.0};
    ASSERT_EQ(controller_->configure().id(), lifecycle_msgs::msg::State::PRIMARY_STATE_INACTIVE);
    std::vector<hardware_interface::LoanedCommandInterface> commands;
    std::vector<hardware_interface::LoanedStateInterface> states;
    for (std::size_t i = 0; i < 2; ++i) {
      const std::string joint = "j" + std::to_string(i + 1);
      command_ifs_.push_back(std::make_shared<CommandInterface>(joint, "effort", &command_[i]));
      state_ifs_.push_back(std::make_shared<StateInterface>(joint, "effort", &state_[i]));
      commands.emplace_back(command_ifs_.back());
      states.emplace_back(state_ifs_.back());
    }
    for (std::size_t i = 0; velocities && i < 2; ++i) {  // the configuration's order
      const std::string joint = "j" + std::to_string(i + 1);
      state_ifs_.push_back(std::make_shared<StateInterface>(joint, "velocity", &state_[2 + i]));
      states.emplace_back(state_ifs_.back());
    }
    controller_->assign_interfaces(std::move(commands), std::move(states));
    ASSERT_EQ(controller_->get_node()->activate().id(),
      lifecycle_msgs::msg::State::PRIMARY_STATE_ACTIVE);
  }

  // A command on ~/commands, taken by the controller's subscription.
  void send(const std::vector<double> & values)
  {
    auto node = std::make_shared<rclcpp::Node>("sender");
    auto pub = node->create_publisher<std_msgs::msg::Float64MultiArray>(
      "/effort_controller/commands", rclcpp::SystemDefaultsQoS());
    rclcpp::executors::SingleThreadedExecutor executor;
    executor.add_node(controller_->get_node()->get_node_base_interface());
    for (int k = 0; k < 100 && pub->get_subscription_count() == 0; ++k) {
      executor.spin_some(std::chrono::milliseconds(10));
    }
    std_msgs::msg::Float64MultiArray msg;
    msg.data = values;
    pub->publish(msg);
    for (int k = 0; k < 50; ++k) {executor.spin_some(std::chrono::milliseconds(2));}
  }

  return_type update(double seconds = 0.001)
  {
    return controller_->update(rclcpp::Time(0, 0, RCL_STEADY_TIME),
             rclcpp::Duration::from_seconds(seconds));
  }

  // update() at `seconds` on the controller's clock, `period` after the cycle before.
  return_type update_at(double seconds, double period = 0.001)
  {
    return controller_->update(rclcpp::Time(static_cast<int64_t>(seconds * 1e9), RCL_ROS_TIME),
             rclcpp::Duration::from_seconds(period));
  }

  std::unique_ptr<SlewLimitedEffortController> controller_;
  std::vector<double> command_, state_;
  std::vector<CommandInterface::SharedPtr> command_ifs_;
  std::vector<StateInterface::SharedPtr> state_ifs_;
};

TEST_F(SlewLimitedEffortControllerTest, ACommandFarAwayIsReachedOneStepACycle)
{
  init(1000.0);
  start(2.0, 5.0);  // the hardware was last told 2 N m: the limit starts there
  send({10.0, -1.0});
  ASSERT_EQ(update(), return_type::OK);
  EXPECT_DOUBLE_EQ(command_[0], 3.0);
  EXPECT_DOUBLE_EQ(command_[1], 1.0);
  ASSERT_EQ(update(0.2), return_type::OK);  // a late cycle: one period's step, not 200
  EXPECT_DOUBLE_EQ(command_[0], 4.0);
  for (int k = 0; k < 10; ++k) {ASSERT_EQ(update(), return_type::OK);}
  EXPECT_DOUBLE_EQ(command_[0], 10.0);
  EXPECT_DOUBLE_EQ(command_[1], -1.0);
  EXPECT_GT(controller_->counts().rate_limited, 0u);
}

TEST_F(SlewLimitedEffortControllerTest, WithoutACommandItHoldsWhatTheHardwareHad)
{
  init(1000.0);
  start(std::nan(""), 5.0);  // never commanded: from the effort the hardware reports
  ASSERT_EQ(update(), return_type::OK);
  EXPECT_DOUBLE_EQ(command_[0], 5.0);
  send({5.5, std::nan("")});  // a non-finite value keeps that joint's last
  ASSERT_EQ(update(), return_type::OK);
  EXPECT_DOUBLE_EQ(command_[0], 5.5);
  EXPECT_DOUBLE_EQ(command_[1], 5.0);
}

TEST_F(SlewLimitedEffortControllerTest, ACommandOfTheWrongSizeIsDropped)
{
  init(1000.0);
  start(0.0, 0.0);
  send({1.0, 1.0, 1.0});
  ASSERT_EQ(update(), return_type::OK);
  EXPECT_DOUBLE_EQ(command_[0], 0.0);
}

TEST_F(SlewLimitedEffortControllerTest, BadParametersAreRefusedAtConfigure)
{
  for (const double rate : {0.0, -1.0, 1e6, std::nan("")}) {
    init(rate);
    EXPECT_EQ(controller_->configure().id(),
      lifecycle_msgs::msg::State::PRIMARY_STATE_UNCONFIGURED) << rate;
  }
  init(1000.0, {"j1", "j1"});
  EXPECT_EQ(controller_->configure().id(), lifecycle_msgs::msg::State::PRIMARY_STATE_UNCONFIGURED);
  for (const double timeout : {-0.1, 11.0, std::nan("")}) {
    init(1000.0, {"j1", "j2"}, timeout);
    EXPECT_EQ(controller_->configure().id(),
      lifecycle_msgs::msg::State::PRIMARY_STATE_UNCONFIGURED) << timeout;
  }
}

TEST_F(SlewLimitedEffortControllerTest, CommandsThatStopEndInAnErrorAfterTheTimeout)
{
  init(1000.0);  // command_timeout 0.2 s
  start(0.0, 0.0);
  send({1.0, 1.0});
  ASSERT_EQ(update_at(0.0), return_type::OK);  // the command arrives: armed
  for (int k = 1; k <= 200; ++k) {ASSERT_EQ(update_at(k * 1e-3), return_type::OK) << k;}
  EXPECT_EQ(update_at(0.201), return_type::ERROR);  // 201 silent cycles, 0.201 s
}

TEST_F(SlewLimitedEffortControllerTest, ALateCycleAloneIsNotAStop)
{
  init(1000.0);
  start(0.0, 0.0);
  send({1.0, 1.0});
  ASSERT_EQ(update_at(0.0), return_type::OK);
  EXPECT_EQ(update_at(0.5, 0.5), return_type::OK);  // one cycle, 0.5 s late
  send({2.0, 2.0});  // the subscription catches up
  for (int k = 1; k <= 300; ++k) {
    ASSERT_EQ(update_at(0.5 + k * 1e-3), return_type::OK) << k;
    if (k % 100 == 0) {send({2.0, 2.0});}
  }
}

TEST_F(SlewLimitedEffortControllerTest, AStaleCommandThatOverspeedsTheArmEndsAtOnce)
{
  init(1000.0, {"j1", "j2"}, 0.2, {2.0, 0.0});  // j2 not watched
  start(0.0, 0.0, true);
  send({1.0, 1.0});
  state_[2] = 2.9;  // j1 beyond its limit but within 1.5 x while the command is fresh
  ASSERT_EQ(update_at(0.0), return_type::OK);
  state_[2] = 0.0;
  state_[3] = 50.0;  // j2 is not watched
  ASSERT_EQ(update_at(0.001), return_type::OK);
  ASSERT_EQ(update_at(0.002), return_type::OK);
  state_[2] = -2.5;  // two cycles without a command, j1 beyond its limit: ends now
  EXPECT_EQ(update_at(0.003), return_type::ERROR);
}

TEST_F(SlewLimitedEffortControllerTest, BeyondOneAndAHalfTimesItsLimitTheArmIsLetGo)
{
  init(1000.0, {"j1", "j2"}, 0.2, {2.0, 2.0});
  start(0.0, 0.0, true);
  send({1.0, 1.0});
  state_[2] = 0.5;
  state_[3] = 3.5;  // j2 that fast when handed over: the node's to catch, not let go
  ASSERT_EQ(update_at(0.0), return_type::OK);
  send({1.0, 1.0});
  state_[3] = 1.9;  // within its limit now
  ASSERT_EQ(update_at(0.001), return_type::OK);
  send({1.0, 1.0});
  state_[3] = 3.01;  // beyond 1.5 x its limit with a fresh command (a hold that rings)
  EXPECT_EQ(update_at(0.002), return_type::ERROR);
}

TEST_F(SlewLimitedEffortControllerTest, VelocityLimitsOfTheWrongShapeAreRefused)
{
  for (const auto & limits : std::vector<std::vector<double>>{
      {2.0}, {2.0, -1.0}, {2.0, std::nan("")}, {2.0, INFINITY}})
  {
    init(1000.0, {"j1", "j2"}, 0.2, limits);
    EXPECT_EQ(controller_->configure().id(),
      lifecycle_msgs::msg::State::PRIMARY_STATE_UNCONFIGURED) << limits.size();
  }
  init(1000.0, {"j1", "j2"}, 0.2, {2.0, 0.0});
  EXPECT_EQ(controller_->configure().id(), lifecycle_msgs::msg::State::PRIMARY_STATE_INACTIVE);
  EXPECT_EQ(controller_->state_interface_configuration().names.size(), 4u);
}

TEST_F(SlewLimitedEffortControllerTest, UnarmedOrOffItNeverTimesOut)
{
  init(1000.0);
  start(0.0, 0.0);  // no command since the activation: the hardware's own is written
  for (int k = 0; k <= 1000; ++k) {ASSERT_EQ(update_at(k * 1e-3), return_type::OK) << k;}
  init(1000.0, {"j1", "j2"}, 0.0);  // command_timeout 0: off
  command_ifs_.clear();
  state_ifs_.clear();
  start(0.0, 0.0);
  send({1.0, 1.0});
  for (int k = 0; k <= 1000; ++k) {ASSERT_EQ(update_at(k * 1e-3), return_type::OK) << k;}
}

}  // namespace
