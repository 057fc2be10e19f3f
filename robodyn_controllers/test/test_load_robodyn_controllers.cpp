// The package's controllers load through a real controller_manager by their plugin names
// (pluginlib, the package's plugin description on the ament index), as a launch's spawner
// loads them, with the parameter file `robodyn export` writes (test/data/panda/good.yaml,
// test/controllers/gtest_fixtures.py; ROBODYN_GTEST_DIR names another folder of the same
// files); a misspelt type does not load. Loading runs
// on_init: the model is checked at configure (test_computed_torque_controller.cpp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "controller_manager/controller_manager.hpp"
#include "rclcpp/executors/single_threaded_executor.hpp"
#include "rclcpp/utilities.hpp"
namespace
{
// One revolute joint on mock_components/GenericSystem (the hardware the launch's
// hardware:=mock runs), effort in, position, velocity and effort out.
const char kRobot[] = R"(<?xml version="1.0"?>
<robot name="one_joint">
  <link name="base"/>
  <link name="arm"/>
  <joint name="joint1" type="revolute">
    <parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="10" velocity="1"/>
  </joint>
  <ros2_control name="mock" type="system">
    <hardware><plugin>mock_components/GenericSystem</plugin></hardware>
    <joint name="joint1">
      <command_interface name="effort"/>
      <state_interface name="position"/>
      <state_interface name="velocity"/>
      <state_interface name="effort"/>
    </joint>
  </ros2_control>
</robot>)";

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
  const char * env = std::getenv("ROBODYN_GTEST_DIR");
  const std::string dir = env != nullptr ? env : ROBODYN_GTEST_DATA;
  controller_manager::ControllerManager cm(
    executor_, kRobot, true, "test_load_robodyn");
  cm.set_parameter(
    rclcpp::Parameter("robodyn_controller.params_file", std::string(dir) + "/good.yaml"));
  EXPECT_NE(
    cm.load_controller("robodyn_controller", "robodyn_controllers/ComputedTorqueController"),
    nullptr);
}

TEST_F(LoadTest, the_slew_limited_effort_controller_loads_by_its_plugin_name)
{
  controller_manager::ControllerManager cm(
    executor_, kRobot, true, "test_load_robodyn");
  EXPECT_NE(
    cm.load_controller("effort_controller", "robodyn_controllers/SlewLimitedEffortController"),
    nullptr);
}

TEST_F(LoadTest, a_type_the_package_does_not_export_is_not_loaded)
{
  controller_manager::ControllerManager cm(
    executor_, kRobot, true, "test_load_robodyn");
  EXPECT_EQ(
    cm.load_controller("robodyn_controller", "robodyn_controllers/ComputedTorqueControler"),
    nullptr);
}
}  // namespace
