// ComputedTorqueController against known interfaces, as ros2_controllers test theirs
// (test_<controller>.cpp): configure with good and bad parameter files, activate, update()
// by hand. The files, the description and the expected g(q) come from robodyn_ros and are
// committed in test/data/panda (test/controllers/gtest_fixtures.py writes them,
// test_gtests.py holds them to what robodyn_ros exports now): robot.urdf, good.yaml,
// observer.yaml, bad_*.yaml (one refusal each) and state.txt, one line per quantity:
//   Q             the joint positions of the state [rad or m]
//   GRAVITY       g(q) at those positions [N m or N], from robodyn_ros' dynamics
//   UPPER         the upper joint limits less reference_margin [rad or m]
//   ACCELERATION  the acceleration limits the node path derives [rad/s^2]
// ROBODYN_GTEST_DIR names another folder of the same files.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "hardware_interface/loaned_command_interface.hpp"
#include "hardware_interface/loaned_state_interface.hpp"
#include "lifecycle_msgs/msg/state.hpp"
#include "rclcpp/rclcpp.hpp"

#include "robodyn_controllers/computed_torque_controller.hpp"

using controller_interface::return_type;
using hardware_interface::CommandInterface;
using hardware_interface::StateInterface;
using lifecycle_msgs::msg::State;
using robodyn_controllers::ComputedTorqueController;

namespace
{

// The values of the line of state.txt that starts with `name`.
std::vector<double> quantity(const std::filesystem::path & dir, const std::string & name)
{
  std::ifstream file(dir / "state.txt");
  std::vector<double> out;
  for (std::string line; std::getline(file, line);) {
    std::istringstream in(line);
    std::string key;
    in >> key;
    if (key != name) {continue;}
    for (double v; in >> v;) {out.push_back(v);}
  }
  return out;
}

std::filesystem::path data_dir()
{
  const char * dir = std::getenv("ROBODYN_GTEST_DIR");
  return dir != nullptr ? std::filesystem::path(dir) : std::filesystem::path(ROBODYN_GTEST_DATA);
}

class ComputedTorqueControllerTest : public ::testing::Test
{
protected:
  static void SetUpTestSuite() {rclcpp::init(0, nullptr);}
  static void TearDownTestSuite() {rclcpp::shutdown();}

  void SetUp() override
  {
    dir_ = data_dir();
    q_ = quantity(dir_, "Q");
    gravity_ = quantity(dir_, "GRAVITY");
    upper_ = quantity(dir_, "UPPER");
    acceleration_ = quantity(dir_, "ACCELERATION");
    ASSERT_FALSE(q_.empty()) << (dir_ / "state.txt") << ": no Q line";
    ASSERT_EQ(q_.size(), gravity_.size());
    ASSERT_EQ(q_.size(), upper_.size());
    ASSERT_EQ(q_.size(), acceleration_.size());
    std::ifstream urdf(dir_ / "robot.urdf");
    std::stringstream text;
    text << urdf.rdbuf();
    urdf_ = text.str();
    ASSERT_FALSE(urdf_.empty());
  }

  // The controller initialised at 1 kHz with the parameter file `name`.yaml.
  void init(const std::string & name)
  {
    controller_ = std::make_unique<ComputedTorqueController>();
    controller_interface::ControllerInterfaceParams params;
    params.controller_name = "robodyn_controller";
    params.robot_description = urdf_;
    params.update_rate = 1000;
    params.controller_manager_update_rate = 1000;
    params.node_options = controller_->define_custom_node_options();
    params.node_options.arguments(
      {"--ros-args", "--params-file", (dir_ / (name + ".yaml")).string()});
    ASSERT_EQ(controller_->init(params), return_type::OK);
  }

  // Activate on a state at q_ (at rest, effort `effort` reported) and an effort command
  // never written (NaN).
  void activate(double effort) {activate(std::vector<double>(q_.size(), effort));}

  void activate(const std::vector<double> & effort)
  {
    const std::size_t n = q_.size();
    position_ = q_;
    velocity_.assign(n, 0.0);
    effort_ = effort;
    command_.assign(n, std::nan(""));
    std::vector<hardware_interface::LoanedCommandInterface> commands;
    std::vector<hardware_interface::LoanedStateInterface> states;
    const auto names = controller_->command_interface_configuration().names;
    ASSERT_EQ(names.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::string joint = names[i].substr(0, names[i].rfind('/'));
      command_ifs_.push_back(std::make_shared<CommandInterface>(joint, "effort", &command_[i]));
      commands.emplace_back(command_ifs_.back());
      for (auto * value : {&position_[i], &velocity_[i], &effort_[i]}) {
        const char * kind = value == &position_[i] ? "position" :
          value == &velocity_[i] ? "velocity" : "effort";
        state_ifs_.push_back(std::make_shared<StateInterface>(joint, kind, value));
        states.emplace_back(state_ifs_.back());
      }
    }
    ASSERT_EQ(controller_->state_interface_configuration().names.size(), states.size());
    references_ = controller_->export_reference_interfaces();
    controller_->assign_interfaces(std::move(commands), std::move(states));
    ASSERT_EQ(controller_->get_node()->activate().id(), State::PRIMARY_STATE_ACTIVE);
  }

  // One cycle, 1 ms after the last (`advance` false: at the same time, as Gazebo's
  // controller_manager now and then repeats one).
  return_type update(bool advance = true)
  {
    clock_ += advance ? 0.001 : 0.0;
    return controller_->update(rclcpp::Time(static_cast<int64_t>(clock_ * 1e9), RCL_ROS_TIME),
             rclcpp::Duration::from_seconds(0.001));
  }

  std::filesystem::path dir_;
  std::string urdf_;
  std::vector<double> q_, gravity_, upper_, acceleration_, position_, velocity_, effort_,
    command_;
  std::vector<CommandInterface::SharedPtr> command_ifs_;
  std::vector<StateInterface::SharedPtr> state_ifs_;
  std::vector<CommandInterface::SharedPtr> references_;  // per joint: position, velocity, acc.
  std::unique_ptr<ComputedTorqueController> controller_;
  double clock_ = 100.0;
};

TEST_F(ComputedTorqueControllerTest, WithoutAReferenceItHoldsTheArmWithGravity)
{
  ASSERT_NO_FATAL_FAILURE(init("good"));
  ASSERT_EQ(controller_->configure().id(), State::PRIMARY_STATE_INACTIVE);
  // the hardware applies nothing yet: the first command is one step
  ASSERT_NO_FATAL_FAILURE(activate(0.0));
  ASSERT_EQ(update(), return_type::OK);
  for (std::size_t i = 0; i < q_.size(); ++i) {
    EXPECT_LE(std::abs(command_[i]), 1.0 + 1e-12) << "joint " << i + 1;  // 1000 N m/s x 1 ms
  }
  for (int k = 0; k < 200; ++k) {ASSERT_EQ(update(), return_type::OK);}
  for (std::size_t i = 0; i < q_.size(); ++i) {  // at rest at the hold position: g(q)
    EXPECT_NEAR(command_[i], gravity_[i], 1e-9) << "joint " << i + 1;
  }
}

TEST_F(ComputedTorqueControllerTest, ItFollowsTheChainedReference)
{
  ASSERT_NO_FATAL_FAILURE(init("good"));
  ASSERT_EQ(controller_->configure().id(), State::PRIMARY_STATE_INACTIVE);
  ASSERT_NO_FATAL_FAILURE(activate(0.0));
  ASSERT_EQ(references_.size(), 3 * q_.size());
  for (std::size_t i = 0; i < q_.size(); ++i) {  // what a JointTrajectoryController writes
    (void)references_[3 * i]->set_value(q_[i] + 0.01);
    (void)references_[3 * i + 1]->set_value(0.5);
    (void)references_[3 * i + 2]->set_value(2.0);
  }
  ASSERT_EQ(update(), return_type::OK);
  for (std::size_t i = 0; i < q_.size(); ++i) {
    EXPECT_DOUBLE_EQ(controller_->reference_position()[i], q_[i] + 0.01);
    EXPECT_TRUE(std::isnan(references_[3 * i]->get_optional().value_or(0.0)));  // taken
  }
}

// The hardware's injected `jump` (test/launch/test_default_path_faults.py) without the
// physics: joint 2's reported position 0.5 rad off for 0.3 s, the arm at rest. The state
// guard rejects the jump and latches safe mode; the stream accepted again there moves the
// observer's estimate as a push would, and nothing is declared in safe mode.
TEST_F(ComputedTorqueControllerTest, AJumpingStateStreamIsNoCollision)
{
  ASSERT_NO_FATAL_FAILURE(init("observer"));
  ASSERT_EQ(controller_->configure().id(), State::PRIMARY_STATE_INACTIVE);
  ASSERT_NO_FATAL_FAILURE(activate(gravity_));  // held: the hardware applies g(q)
  for (int k = 0; k < 100; ++k) {ASSERT_EQ(update(), return_type::OK);}
  ASSERT_EQ(controller_->collisions(), 0u);
  ASSERT_NE(controller_->mode(), ComputedTorqueController::Mode::SAFE);
  position_[1] = q_[1] + 0.5;
  for (int k = 0; k < 300; ++k) {ASSERT_EQ(update(), return_type::OK);}
  EXPECT_EQ(controller_->mode(), ComputedTorqueController::Mode::SAFE);  // the guard's trip
  position_[1] = q_[1];
  for (int k = 0; k < 300; ++k) {ASSERT_EQ(update(), return_type::OK);}
  EXPECT_EQ(controller_->collisions(), 0u);
}

// The JointTrajectoryController's linear interpolation to a goal beyond joint 1's limit
// (test_default_path_faults.py's beyond_limit): 0.875 rad/s towards the upper limit. The
// arm (kinematic here) follows what the controller tracks. The reference is refused before
// its stopping point leaves the range; the arm stops from there at joint 1's acceleration
// limit, inside the range, and is held where it came to rest, not in the safe mode.
TEST_F(ComputedTorqueControllerTest, ARefusedMovingReferenceStopsInsideTheRange)
{
  ASSERT_NO_FATAL_FAILURE(init("good"));
  ASSERT_EQ(controller_->configure().id(), State::PRIMARY_STATE_INACTIVE);
  ASSERT_NO_FATAL_FAILURE(activate(gravity_));
  const std::size_t n = q_.size();
  const double speed = 0.875, dt = 0.001;
  double highest = -1e9, previous_speed = speed, fastest_slowing = 0.0;
  int refused_at = -1;
  for (int k = 1; k <= 4000; ++k) {
    for (std::size_t i = 0; i < n; ++i) {
      (void)references_[3 * i]->set_value(q_[i] + (i == 0 ? speed * dt * k : 0.0));
      (void)references_[3 * i + 1]->set_value(i == 0 ? speed : 0.0);
      (void)references_[3 * i + 2]->set_value(0.0);
    }
    ASSERT_EQ(update(), return_type::OK);
    const double tracked = controller_->tracked_position()[0];
    const double moved = (tracked - position_[0]) / dt;  // the arm's speed this cycle
    if (refused_at < 0 && controller_->mode() != ComputedTorqueController::Mode::ACTIVE) {
      refused_at = k;
    }
    if (refused_at > 0) {
      fastest_slowing = std::max(fastest_slowing, (previous_speed - moved) / dt);
    }
    previous_speed = moved;
    velocity_[0] = moved;
    position_[0] = tracked;
    highest = std::max(highest, tracked);
  }
  ASSERT_GT(refused_at, 0) << "never refused";
  EXPECT_LE(highest, upper_[0] + 1e-9);
  EXPECT_GE(highest, upper_[0] - 0.05);  // it went on close to the edge: no early stop
  EXPECT_LE(fastest_slowing, acceleration_[0] * (1.0 + 1e-6));  // no instant stop
  EXPECT_EQ(previous_speed, 0.0);  // at rest
  EXPECT_EQ(controller_->mode(), ComputedTorqueController::Mode::HOLD);
  EXPECT_DOUBLE_EQ(controller_->tracked_position()[0], position_[0]);  // held where it is
}

TEST_F(ComputedTorqueControllerTest, AnImpossibleModelIsRefusedAtConfigure)
{
  std::vector<std::string> bad;
  for (const auto & entry : std::filesystem::directory_iterator(dir_)) {
    const std::string name = entry.path().stem().string();
    if (name.rfind("bad_", 0) == 0) {bad.push_back(name);}
  }
  ASSERT_FALSE(bad.empty());
  for (const auto & name : bad) {
    ASSERT_NO_FATAL_FAILURE(init(name));
    EXPECT_NE(controller_->configure().id(), State::PRIMARY_STATE_INACTIVE) << name;
  }
}


// kp set while active: a set of the wrong size is refused (the reason in the answer), a
// good one is blended in with the raised cosine over gain_ramp_time (1 s) on update()'s
// clock, never in one cycle.
TEST_F(ComputedTorqueControllerTest, GainsSetWhileActiveAreBlendedIn)
{
  ASSERT_NO_FATAL_FAILURE(init("good"));
  ASSERT_EQ(controller_->configure().id(), State::PRIMARY_STATE_INACTIVE);
  ASSERT_NO_FATAL_FAILURE(activate(gravity_));
  for (std::size_t i = 0; i < q_.size(); ++i) {
    (void)references_[3 * i]->set_value(q_[i]);
    (void)references_[3 * i + 1]->set_value(0.0);
    (void)references_[3 * i + 2]->set_value(0.0);
  }
  ASSERT_EQ(update(), return_type::OK);
  ASSERT_EQ(controller_->mode(), ComputedTorqueController::Mode::ACTIVE);
  const double kp0 = controller_->law_kp()[0];
  auto node = controller_->get_node();
  EXPECT_FALSE(node->set_parameter(rclcpp::Parameter("kp", std::vector<double>{1.0, 2.0}))
    .successful);
  EXPECT_FALSE(node->set_parameter(rclcpp::Parameter("kp", std::vector<double>{-1.0}))
    .successful);
  ASSERT_TRUE(node->set_parameter(rclcpp::Parameter("kp", std::vector<double>{kp0 + 100.0}))
    .successful);
  std::vector<double> seen;
  for (int k = 0; k < 1100; ++k) {
    for (std::size_t i = 0; i < q_.size(); ++i) {  // the JTC writes every cycle
      (void)references_[3 * i]->set_value(q_[i]);
      (void)references_[3 * i + 1]->set_value(0.0);
      (void)references_[3 * i + 2]->set_value(0.0);
    }
    ASSERT_EQ(update(), return_type::OK);
    seen.push_back(controller_->law_kp()[0]);
  }
  EXPECT_DOUBLE_EQ(seen.front(), kp0);  // the blend starts from the gains in force
  EXPECT_NEAR(seen[500], kp0 + 50.0, 1e-6);  // half way: w = 1/2
  EXPECT_DOUBLE_EQ(seen.back(), kp0 + 100.0);
  EXPECT_EQ(controller_->mode(), ComputedTorqueController::Mode::ACTIVE);
  for (std::size_t k = 1; k < seen.size(); ++k) {  // largest slope: pi/2 x 100 per second
    EXPECT_LE(seen[k] - seen[k - 1], 100.0 * M_PI / 2.0 * 0.001 + 1e-9) << k;
  }
}

// The adaptive law learns while it follows a moving reference the arm does not follow (a
// payload it does not know holds the arm back), keeps its estimate physically consistent,
// and freezes it in the hold that follows when the reference stops.
TEST_F(ComputedTorqueControllerTest, TheAdaptiveLawLearnsOnlyWhileFollowing)
{
  ASSERT_NO_FATAL_FAILURE(init("adaptive"));
  ASSERT_EQ(controller_->configure().id(), State::PRIMARY_STATE_INACTIVE);
  ASSERT_NE(controller_->payload_estimate(), nullptr);
  ASSERT_NO_FATAL_FAILURE(activate(gravity_));
  const std::array<double, 10> start = [this] {
      std::array<double, 10> pi{};
      std::copy(controller_->payload_estimate(), controller_->payload_estimate() + 10,
        pi.begin());
      return pi;
    }();
  for (int k = 0; k < 300; ++k) {
    const double t = 0.001 * k;
    for (std::size_t i = 0; i < q_.size(); ++i) {
      (void)references_[3 * i]->set_value(q_[i] + 0.01 * std::sin(5.0 * t));
      (void)references_[3 * i + 1]->set_value(0.05 * std::cos(5.0 * t));
      (void)references_[3 * i + 2]->set_value(-0.25 * std::sin(5.0 * t));
    }
    ASSERT_EQ(update(), return_type::OK);
    ASSERT_EQ(controller_->mode(), ComputedTorqueController::Mode::ACTIVE) << k;
  }
  const double * pi = controller_->payload_estimate();
  double moved = 0.0;
  for (int c = 0; c < 10; ++c) {
    ASSERT_TRUE(std::isfinite(pi[c]));
    moved = std::max(moved, std::abs(pi[c] - start[c]));
  }
  EXPECT_GT(moved, 0.0);
  EXPECT_GT(pi[0], 0.0);
  EXPECT_LE(pi[0], 5.0);
  for (int k = 0; k < 300 && controller_->mode() != ComputedTorqueController::Mode::HOLD;
    ++k)
  {
    ASSERT_EQ(update(), return_type::OK);  // no reference: the hold comes
  }
  ASSERT_EQ(controller_->mode(), ComputedTorqueController::Mode::HOLD);
  std::array<double, 10> held{};
  std::copy(pi, pi + 10, held.begin());
  for (int k = 0; k < 300; ++k) {ASSERT_EQ(update(), return_type::OK);}
  EXPECT_EQ(controller_->mode(), ComputedTorqueController::Mode::HOLD);
  for (int c = 0; c < 10; ++c) {EXPECT_DOUBLE_EQ(controller_->payload_estimate()[c], held[c]);}
}

}  // namespace
