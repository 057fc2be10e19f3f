// The package's controllers load through a real controller_manager by their plugin names
// (pluginlib, the package's plugin description on the ament index), as a launch's spawner
// loads them; a misspelt type does not. Loading runs on_init only: the parameters and the
// model come at configure (test_computed_torque_controller.cpp).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "controller_manager/controller_manager.hpp"
#include "rclcpp/executors/single_threaded_executor.hpp"
#include "rclcpp/utilities.hpp"
#include "ros2_control_test_assets/descriptions.hpp"

namespace
{
class LoadTest : public ::testing::Test
{
protected:
  static void SetUpTestSuite() {rclcpp::init(0, nullptr);}
  static void TearDownTestSuite() {rclcpp::shutdown();}

  std::shared_ptr<rclcpp::Executor> executor_ =
    std::make_shared<rclcpp::executors::SingleThreadedExecutor>();
};

TEST_F(LoadTest, the_computed_torque_controller_loads_by_its_plugin_name)
{
  controller_manager::ControllerManager cm(
    executor_, ros2_control_test_assets::minimal_robot_urdf, true, "test_load_robodyn");
  EXPECT_NE(
    cm.load_controller("robodyn_controller", "robodyn_controllers/ComputedTorqueController"),
    nullptr);
}

TEST_F(LoadTest, the_slew_limited_effort_controller_loads_by_its_plugin_name)
{
  controller_manager::ControllerManager cm(
    executor_, ros2_control_test_assets::minimal_robot_urdf, true, "test_load_robodyn");
  EXPECT_NE(
    cm.load_controller("effort_controller", "robodyn_controllers/SlewLimitedEffortController"),
    nullptr);
}

TEST_F(LoadTest, a_type_the_package_does_not_export_is_not_loaded)
{
  controller_manager::ControllerManager cm(
    executor_, ros2_control_test_assets::minimal_robot_urdf, true, "test_load_robodyn");
  EXPECT_EQ(
    cm.load_controller("robodyn_controller", "robodyn_controllers/ComputedTorqueControler"),
    nullptr);
}
}  // namespace
