// The control core's cycle alone (supervisor.hpp), without ROS: plain arrays in, the
// command out. Each test drives one rule of the safety arithmetic both paths share.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "dh_test_chain.hpp"
#include "robodyn_controllers/dh_dynamics.hpp"
#include "robodyn_controllers/joint_laws.hpp"
#include "robodyn_controllers/supervisor.hpp"

using robodyn_controllers::CollisionReaction;
using robodyn_controllers::DhDynamics;
using robodyn_controllers::JointLaw;
using robodyn_controllers::LawSettings;
using robodyn_controllers::Supervisor;
using robodyn_controllers::SupervisorSettings;

namespace
{
constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
constexpr double PERIOD = 0.001;
constexpr double RATE = 1000.0;  // [N m/s]: 1 N m per cycle
constexpr std::size_t N = 4;

SupervisorSettings settings()
{
  SupervisorSettings s;
  s.joints = {"j1", "j2", "j3", "j4"};
  s.effort_limit.assign(N, 80.0);
  s.velocity_limit.assign(N, 2.0);
  s.acceleration_limit.assign(N, 10.0);
  s.lower.assign(N, -2.5);
  s.upper.assign(N, 2.5);
  s.kp.assign(N, 400.0);
  s.kd.assign(N, 40.0);
  s.damping.assign(N, 2.0);
  s.position_margin = 0.02;
  s.velocity_margin = 0.1;
  s.max_tracking_error = 0.2;
  s.max_torque_rate = RATE;
  s.nominal_period = PERIOD;
  return s;
}

class SupervisorTest : public ::testing::Test
{
protected:
  void SetUp() override {start(settings());}

  void start(const SupervisorSettings & s, const char * mode = "computed_torque")
  {
    dynamics_.configure(robodyn_test::chain(), {0.0, 0.0, -9.81});
    law_ = robodyn_controllers::make_law(mode);
    law_->configure(N, LawSettings{});
    core_ = std::make_unique<Supervisor>();
    core_->configure(s, dynamics_, *law_, LawSettings{});
  }

  void state(const std::vector<double> & q, const std::vector<double> & qd)
  {
    std::copy(q.begin(), q.end(), core_->q());
    std::copy(qd.begin(), qd.end(), core_->qd());
  }

  // One cycle at step k with the reference (q, 0, 0), or none.
  const double * cycle(int k, const std::vector<double> * q_ref, bool finite = true)
  {
    if (q_ref != nullptr) {
      std::fill(reference_.begin(), reference_.end(), 0.0);
      std::copy(q_ref->begin(), q_ref->end(), reference_.begin());
    }
    return core_->cycle(k * PERIOD, PERIOD, finite, q_ref ? reference_.data() : nullptr,
             true);
  }

  std::vector<double> gravity(const std::vector<double> & q)
  {
    std::vector<double> g(N);
    dynamics_.gravity(q.data(), g.data());
    return g;
  }

  DhDynamics dynamics_;
  std::unique_ptr<JointLaw> law_;
  std::unique_ptr<Supervisor> core_;
  std::vector<double> reference_ = std::vector<double>(3 * N, 0.0);
  std::vector<double> q0_{0.3, 0.1, -0.4, 0.2}, zero_ = std::vector<double>(N, 0.0);
};

TEST_F(SupervisorTest, TheFirstCommandStepsFromWhatTheHardwareWasToldAtTheRateLimit)
{
  state(q0_, zero_);
  const std::vector<double> commanded(N, 0.0);  // a driver that held the arm with 0 N m
  core_->activate(true, false, commanded.data(), false);
  const auto g = gravity(q0_);
  std::vector<double> last = commanded;
  for (int k = 0; k < 200; ++k) {
    const double * out = cycle(k, nullptr);
    for (std::size_t i = 0; i < N; ++i) {
      ASSERT_LE(std::abs(out[i] - last[i]), RATE * PERIOD + 1e-12) << k << " " << i;
      last[i] = out[i];
    }
  }
  EXPECT_EQ(core_->mode(), Supervisor::Mode::HOLD);
  for (std::size_t i = 0; i < N; ++i) {EXPECT_NEAR(last[i], g[i], 1e-9);}  // held: g(q)
}

TEST_F(SupervisorTest, AReferenceInsideTheLimitsIsFollowedAndOneOutsideIsRefused)
{
  state(q0_, zero_);
  core_->activate(true, false, gravity(q0_).data(), false);
  std::vector<double> ref = q0_;
  ref[0] += 0.001;
  cycle(0, &ref);
  EXPECT_EQ(core_->mode(), Supervisor::Mode::ACTIVE);
  EXPECT_DOUBLE_EQ(core_->tracked_position()[0], ref[0]);
  ref[2] = 2.6;  // beyond the range
  cycle(1, &ref);
  EXPECT_EQ(core_->mode(), Supervisor::Mode::HOLD);
  EXPECT_STREQ(core_->event(), "reference_outside_limits");
  EXPECT_DOUBLE_EQ(core_->tracked_position()[2], q0_[2]);  // held where the arm is
  ref = q0_;
  cycle(2, &ref);  // a good reference again: followed (a refusal is not a fault)
  EXPECT_EQ(core_->mode(), Supervisor::Mode::ACTIVE);
  EXPECT_EQ(core_->faults(), 0u) << core_->event() << ": " << core_->reason();
}

TEST_F(SupervisorTest, AStaleReferenceHoldsAndANonFiniteStateLatchesGravityAndDamping)
{
  state(q0_, zero_);
  core_->activate(true, false, gravity(q0_).data(), false);
  std::vector<double> ref = q0_;
  cycle(0, &ref);
  int k = 1;
  for (; k < 200 && core_->mode() == Supervisor::Mode::ACTIVE; ++k) {cycle(k, nullptr);}
  EXPECT_EQ(core_->mode(), Supervisor::Mode::HOLD);
  EXPECT_STREQ(core_->event(), "stale_reference");
  EXPECT_NEAR(k * PERIOD, 0.1, 2 * PERIOD);  // reference_timeout
  state({NaN, 0.1, -0.4, 0.2}, zero_);
  cycle(k, &ref, false);
  EXPECT_EQ(core_->mode(), Supervisor::Mode::SAFE);
  EXPECT_FALSE(core_->trusted());
  state(q0_, zero_);
  for (int j = 1; j < 50; ++j) {cycle(k + j, &ref);}  // still latched: no reference taken
  EXPECT_EQ(core_->mode(), Supervisor::Mode::SAFE);
  EXPECT_EQ(core_->faults(), 1u);
  core_->activate(true, false, core_->out(), false);  // deactivate + activate resumes
  cycle(k + 50, &ref);
  EXPECT_EQ(core_->mode(), Supervisor::Mode::ACTIVE);
}

TEST_F(SupervisorTest, AGuardTripHoldsTheLastValidPosition)
{
  state(q0_, zero_);
  core_->activate(true, false, gravity(q0_).data(), false);
  state(q0_, {0.0, 0.0, 2.5, 0.0});  // beyond 2 rad/s x (1 + 0.1)
  cycle(0, nullptr);
  EXPECT_EQ(core_->mode(), Supervisor::Mode::SAFE);
  EXPECT_TRUE(core_->trusted());
  EXPECT_NE(std::strstr(core_->reason(), "j3 moves at 2.5000"), nullptr) << core_->reason();
  EXPECT_DOUBLE_EQ(core_->tracked_position()[2], q0_[2]);
}

TEST_F(SupervisorTest, GainsSetWhileFollowingNeverStepTheTorque)
{
  auto s = settings();
  s.gain_ramp_time = 0.05;
  start(s);
  state(q0_, zero_);
  core_->activate(true, false, gravity(q0_).data(), false);
  std::vector<double> ref = q0_;
  for (auto & v : ref) {v += 0.05;}  // an error the new gains multiply
  for (int k = 0; k < 300; ++k) {cycle(k, &ref);}  // settled at the rate limit
  std::vector<double> last(core_->out(), core_->out() + N);
  core_->request_gains(std::vector<double>(N, 3000.0), std::vector<double>(N, 100.0));
  int limited_from = -1;
  for (int k = 300; k < 400; ++k) {
    const double * out = cycle(k, &ref);
    for (std::size_t i = 0; i < N; ++i) {
      ASSERT_LE(std::abs(out[i] - last[i]), RATE * PERIOD + 1e-12) << k;
      last[i] = out[i];
    }
    if (limited_from < 0 && core_->law_kp()[0] > 400.0) {limited_from = k;}
  }
  EXPECT_EQ(limited_from, 301);  // the blend starts at the next cycle
  EXPECT_DOUBLE_EQ(core_->law_kp()[0], 3000.0);
  EXPECT_EQ(core_->mode(), Supervisor::Mode::ACTIVE);
}

// The tool spring of a task-space law set while it follows (cartesian.* on the
// controller): blended in over gain_ramp_time as the gains are, the law's settings in
// force passing through the values between, the command within the rate limit.
TEST_F(SupervisorTest, ASpringSetWhileFollowingIsBlendedIn)
{
  auto s = settings();
  s.gain_ramp_time = 0.05;
  start(s, "cartesian_impedance");
  state(q0_, zero_);
  core_->activate(true, false, gravity(q0_).data(), false);
  std::vector<double> ref = q0_;
  for (auto & v : ref) {v += 0.05;}
  for (int k = 0; k < 300; ++k) {cycle(k, &ref);}
  std::vector<double> last(core_->out(), core_->out() + N);
  core_->request_spring({1000.0, 1000.0, 1000.0, 60.0, 60.0, 60.0}, 0.5);
  double mid = 0.0;
  for (int k = 300; k < 400; ++k) {
    const double * out = cycle(k, &ref);
    for (std::size_t i = 0; i < N; ++i) {
      ASSERT_LE(std::abs(out[i] - last[i]), RATE * PERIOD + 1e-12) << k;
      last[i] = out[i];
    }
    if (k == 325) {mid = core_->law_settings().cartesian_stiffness[0];}
  }
  EXPECT_GT(mid, 600.0);
  EXPECT_LT(mid, 900.0);  // the raised cosine at half its ramp: 750
  EXPECT_DOUBLE_EQ(core_->law_settings().cartesian_stiffness[0], 1000.0);
  EXPECT_DOUBLE_EQ(core_->law_settings().cartesian_stiffness[5], 60.0);
  EXPECT_DOUBLE_EQ(core_->law_settings().cartesian_damping_ratio, 0.5);
  EXPECT_EQ(core_->mode(), Supervisor::Mode::ACTIVE);
}

// A law switched while the arm moves (controller_manager deactivates one robodyn
// controller and activates another in one switch, or the node path's cleanup and configure
// with another mode): the new core starts from the command the hardware was last given, so
// no cycle steps by more than the rate limit, though the laws' torques differ.
TEST_F(SupervisorTest, SwitchingLawWhileFollowingNeverStepsTheTorque)
{
  state(q0_, zero_);
  core_->activate(true, false, gravity(q0_).data(), false);
  std::vector<double> ref = q0_, q = q0_;
  std::vector<double> last(N, 0.0);
  int k = 0;
  auto run = [&](Supervisor & core, int cycles) {
      for (int end = k + cycles; k < end; ++k) {
        for (std::size_t i = 0; i < N; ++i) {  // a moving reference the arm lags by 0.02
          ref[i] = q0_[i] + 0.1 * std::sin(2.0 * k * PERIOD + static_cast<double>(i));
          q[i] = ref[i] - 0.02;
        }
        std::copy(q.begin(), q.end(), core.q());
        std::fill(core.qd(), core.qd() + N, 0.0);
        std::fill(reference_.begin(), reference_.end(), 0.0);
        std::copy(ref.begin(), ref.end(), reference_.begin());
        const double * out = core.cycle(k * PERIOD, PERIOD, true, reference_.data(), true);
        for (std::size_t i = 0; i < N && k > 0; ++i) {
          ASSERT_LE(std::abs(out[i] - last[i]), RATE * PERIOD + 1e-12) << k << " " << i;
        }
        std::copy(out, out + N, last.begin());
      }
    };
  run(*core_, 400);
  unsigned long limited = 0;
  for (const char * mode : {"passivity", "joint_impedance", "gravity", "computed_torque"}) {
    auto law = robodyn_controllers::make_law(mode);
    law->configure(N, LawSettings{});
    Supervisor next;
    next.configure(settings(), dynamics_, *law, LawSettings{});
    std::copy(q.begin(), q.end(), next.q());
    std::fill(next.qd(), next.qd() + N, 0.0);
    next.activate(true, false, last.data(), false);  // the hardware's effort command
    run(next, 400);
    EXPECT_EQ(next.mode(), Supervisor::Mode::ACTIVE) << mode << ": " << next.reason();
    limited += next.counts().rate_limited;
  }
  EXPECT_GT(limited, 0u);  // the laws' torques differ: the limit did act
}

TEST_F(SupervisorTest, TheReleaseIsOneRateLimitedStepTowardsTheHold)
{
  state(q0_, zero_);
  const std::vector<double> commanded(N, 0.0);
  core_->activate(true, false, commanded.data(), false);
  const double * out = core_->release(true);
  for (std::size_t i = 0; i < N; ++i) {EXPECT_LE(std::abs(out[i]), RATE * PERIOD + 1e-12);}
  EXPECT_STREQ(core_->event(), "deactivated");
  // a restart within the cycle steps from the command in force before the release
  core_->activate(true, false, nullptr, true);
  out = cycle(0, nullptr);
  for (std::size_t i = 0; i < N; ++i) {EXPECT_LE(std::abs(out[i]), RATE * PERIOD + 1e-12);}
}

TEST_F(SupervisorTest, ACollisionIsTheConfiguredReactionInTheCycleItIsDeclared)
{
  auto s = settings();
  s.collision_thresholds.assign(N, 5.0);
  s.collision_debounce = 3;
  s.collision_reaction = CollisionReaction::COMPLIANT;
  start(s);
  state(q0_, zero_);
  core_->activate(true, false, gravity(q0_).data(), false);
  std::vector<double> ref = q0_;
  for (int k = 0; k < 100; ++k) {cycle(k, &ref);}
  ASSERT_EQ(core_->collisions(), 0u);
  // the state says the arm accelerates under no torque of its own: a push
  std::vector<double> q = q0_, qd = zero_;
  int k = 100;
  for (; k < 400 && core_->collisions() == 0; ++k) {
    qd[1] += 0.02;
    q[1] += qd[1] * PERIOD;
    state(q, qd);
    cycle(k, &ref);
  }
  EXPECT_EQ(core_->collisions(), 1u);
  EXPECT_EQ(core_->mode(), Supervisor::Mode::SAFE);
  EXPECT_TRUE(core_->compliant());
  EXPECT_NE(std::strstr(core_->collision_text(), "j2"), nullptr) << core_->collision_text();
}

TEST_F(SupervisorTest, ASettingOfTheWrongSizeIsRefusedByName)
{
  auto s = settings();
  s.kd.assign(2, 1.0);
  Supervisor core;
  try {
    core.configure(s, dynamics_, *law_, LawSettings{});
    FAIL() << "configured with two kd values for four joints";
  } catch (const std::invalid_argument & e) {
    EXPECT_NE(std::string(e.what()).find("kd: expected 4 values"), std::string::npos) << e.what();
  }
  s = settings();
  s.collision_thresholds = {1.0, 1.0, 0.0, 1.0};
  EXPECT_THROW(core.configure(s, dynamics_, *law_, LawSettings{}), std::invalid_argument);
}

}  // namespace
