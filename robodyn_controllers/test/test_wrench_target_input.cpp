// ~/target_wrench's adapter (wrench_target_input.hpp): what its /diagnostics status says of
// each kind of message, the same words as the node's (robodyn_ros' reference_inputs.py).
#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <memory>
#include <string>

#include "rclcpp/rclcpp.hpp"
#include "rclcpp_lifecycle/lifecycle_node.hpp"
#include "robodyn_controllers/supervisor.hpp"
#include "robodyn_controllers/wrench_target_input.hpp"

using robodyn_controllers::Supervisor;
using robodyn_controllers::WrenchBounds;
using robodyn_controllers::WrenchTargetInput;

namespace
{
constexpr std::array<double, 9> IDENTITY{1, 0, 0, 0, 1, 0, 0, 0, 1};

geometry_msgs::msg::WrenchStamped message(double fx, const std::string & frame = "base")
{
  geometry_msgs::msg::WrenchStamped msg;
  msg.header.frame_id = frame;
  msg.wrench.force.x = fx;
  return msg;
}

class WrenchTargetInputTest : public ::testing::Test
{
protected:
  static void SetUpTestSuite() {rclcpp::init(0, nullptr);}
  static void TearDownTestSuite() {rclcpp::shutdown();}

  void SetUp() override
  {
    node_ = std::make_shared<rclcpp_lifecycle::LifecycleNode>("wrench_target_input_test");
    input_.configure(node_, "base", IDENTITY, WrenchBounds{}, true);
  }

  rclcpp_lifecycle::LifecycleNode::SharedPtr node_;
  WrenchTargetInput input_;
  Supervisor core_;  // not configured: HOLD, as a controller before its first activation
};

TEST_F(WrenchTargetInputTest, each_message_is_named_by_what_it_did)
{
  EXPECT_STREQ(input_.status(), "none");
  input_.take(message(5.0));
  EXPECT_STREQ(input_.status(), "applying");
  input_.take(message(50.0));
  EXPECT_STREQ(input_.status(), "scaled down to max_force, max_torque");
  input_.take(message(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_STREQ(input_.status(), "refused: target wrench not finite");
  input_.take(message(5.0, "tool"));
  EXPECT_STREQ(input_.status(), "refused: target wrench not in the chain's base frame");
}

TEST_F(WrenchTargetInputTest, a_wrench_that_came_while_not_commanding_is_refused_by_name)
{
  ASSERT_EQ(core_.mode(), Supervisor::Mode::HOLD);
  input_.take(message(5.0));
  EXPECT_EQ(input_.wrench(core_, 0.0), nullptr);  // nothing applied outside ACTIVE
  EXPECT_STREQ(input_.status(), "refused: controller is held");
  std::array<double, 6> applied{};
  EXPECT_FALSE(input_.applied(applied));
}

TEST_F(WrenchTargetInputTest, a_joint_space_law_refuses_every_wrench)
{
  WrenchTargetInput joint_space;
  joint_space.configure(node_, "base", IDENTITY, WrenchBounds{}, false);
  joint_space.take(message(5.0));
  EXPECT_STREQ(joint_space.status(), "refused: the law takes no wrench (a task-space mode does)");
}
}  // namespace
