// Pose targets into a joint reference alone (pose_follower.hpp), on a 7-joint chain (the
// standard DH of a KUKA LBR iiwa 14): a target checked at the boundary, a reachable one
// reached, and whatever targets do, the reference within its limits in position, velocity
// and acceleration, the commanded pose within its per-step bounds.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "robodyn_controllers/pose_follower.hpp"

using robodyn_controllers::check_pose_target;
using robodyn_controllers::DhDynamics;
using robodyn_controllers::DhLink;
using robodyn_controllers::PoseFollower;
using robodyn_controllers::PoseTarget;
using robodyn_controllers::TargetCheck;

namespace
{
constexpr std::size_t N = 7;
constexpr double RATE = 1000.0;  // the law's torque rate limit [N m/s]
constexpr double H = 0.001, SPEED = 0.25, TURN = 1.0;
const std::array<double, 9> IDENTITY{1, 0, 0, 0, 1, 0, 0, 0, 1};
const std::array<double, 6> BOX{-0.8, -0.8, 0.05, 0.8, 0.8, 1.2};

DhDynamics iiwa()
{
  const double d[N] = {0.36, 0.0, 0.42, 0.0, 0.4, 0.0, 0.126};
  const double alpha[N] = {-M_PI / 2, M_PI / 2, M_PI / 2, -M_PI / 2, -M_PI / 2, M_PI / 2, 0};
  std::vector<DhLink> links(N);
  for (std::size_t i = 0; i < N; ++i) {
    links[i].d = d[i];
    links[i].alpha = alpha[i];
    links[i].mass = 2.0;
    links[i].inertia = {0.02, 0.0, 0.0, 0.02, 0.0, 0.02};
  }
  DhDynamics dyn;
  dyn.configure(links, {0.0, 0.0, -9.81});
  return dyn;
}

struct Fixture
{
  DhDynamics dyn = iiwa();
  std::vector<double> lower, upper, velocity, acceleration;
  PoseFollower follower;
  robodyn_controllers::TipKinematics tip;
  const double q0[N] = {0.0, 0.6, 0.0, -1.2, 0.0, 0.8, 0.0};

  Fixture()
  {
    const double limit[N] = {2.96, 2.09, 2.96, 2.09, 2.96, 2.09, 3.05};
    for (std::size_t i = 0; i < N; ++i) {
      lower.push_back(-limit[i]);
      upper.push_back(limit[i]);
      velocity.push_back(1.0);
      acceleration.push_back(5.0);
    }
    follower.configure(N, lower, upper, velocity, acceleration, SPEED, TURN, H, IDENTITY,
      {0.0, 0.0, 0.0}, RATE);
    tip.configure(N, IDENTITY, {0.0, 0.0, 0.0});
    const double zero[N] = {};
    follower.start(dyn, q0, zero, 0.0);
  }
  std::array<double, 3> point(const double * q)
  {
    tip.at(dyn, q);
    return tip.point();
  }
};

PoseTarget target_at(const std::array<double, 3> & p, const double * quaternion = nullptr)
{
  const double identity[4] = {0.0, 0.0, 0.0, 1.0};
  PoseTarget t;
  const double position[3] = {p[0], p[1], p[2]};
  EXPECT_NE(check_pose_target(position, quaternion ? quaternion : identity, IDENTITY,
    {0.0, 0.0, 0.0}, {-9, -9, -9, 9, 9, 9}, t), TargetCheck::NOT_FINITE);
  return t;
}
}  // namespace

TEST(CheckPoseTarget, RefusesWhatIsNotAPoseAndClampsToTheBox)
{
  PoseTarget t;
  const double unit[4] = {0.0, 0.0, 0.0, 1.0}, half[4] = {0.0, 0.0, 0.0, 1.5};
  const double near_unit[4] = {0.0, 0.0, 0.0, 1.005}, nan_q[4] = {0.0, NAN, 0.0, 1.0};
  const double inside[3] = {0.4, 0.0, 0.5}, far[3] = {2.0, 0.0, 0.5}, nan_p[3] = {NAN, 0, 0};
  const std::array<double, 3> origin{0.0, 0.0, 0.0};
  EXPECT_EQ(check_pose_target(nan_p, unit, IDENTITY, origin, BOX, t), TargetCheck::NOT_FINITE);
  EXPECT_EQ(check_pose_target(inside, nan_q, IDENTITY, origin, BOX, t), TargetCheck::NOT_FINITE);
  EXPECT_EQ(check_pose_target(inside, half, IDENTITY, origin, BOX, t), TargetCheck::NOT_UNIT);
  EXPECT_EQ(check_pose_target(inside, near_unit, IDENTITY, origin, BOX, t), TargetCheck::OK);
  EXPECT_NEAR(t.rotation[0], 1.0, 1e-12);
  EXPECT_EQ(check_pose_target(far, unit, IDENTITY, origin, BOX, t), TargetCheck::CLAMPED);
  EXPECT_DOUBLE_EQ(t.position[0], 0.8);
  // frame 0 lifted by 0.1 m and turned a half turn about z in the base link frame
  const std::array<double, 9> turned{-1, 0, 0, 0, -1, 0, 0, 0, 1};
  EXPECT_EQ(check_pose_target(inside, unit, turned, {0.0, 0.0, 0.1}, BOX, t), TargetCheck::OK);
  EXPECT_NEAR(t.position[0], -0.4, 1e-12);
  EXPECT_NEAR(t.position[2], 0.4, 1e-12);
  EXPECT_NEAR(t.rotation[0], -1.0, 1e-12);
}

TEST(PoseFollower, ReachesAReachableTarget)
{
  Fixture f;
  auto goal = f.point(f.q0);
  goal[0] += 0.05;
  goal[1] -= 0.04;
  goal[2] += 0.03;
  f.tip.at(f.dyn, f.q0);
  PoseTarget t = target_at(goal);
  t.rotation = f.tip.rotation();  // the orientation kept
  f.follower.aim(t);
  const double * out = nullptr;
  for (int k = 1; k <= 2000; ++k) {out = f.follower.advance(f.dyn, k * H);}
  const auto reached = f.point(out);
  for (int k = 0; k < 3; ++k) {EXPECT_NEAR(reached[k], goal[k], 1e-4);}
}

TEST(PoseFollower, ATargetBeyondTheReachSlowsItAtTheEdgeAndSaysSo)
{
  Fixture f;
  EXPECT_FALSE(f.follower.slowed());
  auto goal = f.point(f.q0);
  goal[0] += 3.0;  // far beyond the reach
  f.tip.at(f.dyn, f.q0);
  PoseTarget t = target_at(goal);
  t.rotation = f.tip.rotation();
  f.follower.aim(t);
  const double * out = nullptr;
  double fastest_late = 0.0;
  for (int k = 1; k <= 8000; ++k) {
    out = f.follower.advance(f.dyn, k * H);
    for (std::size_t i = 0; k > 6000 && i < N; ++i) {
      fastest_late = std::max(fastest_late, std::abs(out[N + i]));
    }
  }
  EXPECT_TRUE(f.follower.slowed());  // at the edge of the reach, J nearly singular
  EXPECT_LT(fastest_late, 0.05);  // and at rest there, not swinging through it
}

TEST(PoseFollower, AnyTargetsKeepTheReferenceWithinEveryLimit)
{
  Fixture f;
  unsigned long state = 12345;
  auto uniform = [&state](double lo, double hi) {
      state = state * 6364136223846793005UL + 1442695040888963407UL;
      return lo + (hi - lo) * static_cast<double>(state >> 11) / 9007199254740992.0;
    };
  std::vector<double> previous(3 * N, 0.0);
  std::array<double, 3> commanded = f.follower.commanded_point();
  for (int k = 1; k <= 4000; ++k) {
    if (k % 100 == 1) {  // 10 Hz, anywhere, any orientation
      double q[4] = {uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), uniform(0.1, 1)};
      const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      for (double & v : q) {v /= norm;}
      f.follower.aim(target_at({uniform(-1.5, 1.5), uniform(-1.5, 1.5), uniform(-0.5, 1.8)},
        q));
    }
    const double * out = f.follower.advance(f.dyn, k * H);
    for (std::size_t i = 0; i < N; ++i) {
      ASSERT_GE(out[i], f.lower[i]);
      ASSERT_LE(out[i], f.upper[i]);
      ASSERT_LE(std::abs(out[N + i]), f.velocity[i] * (1 + 1e-9)) << i;
      ASSERT_LE(std::abs(out[2 * N + i]), f.acceleration[i] * (1 + 1e-9)) << i;
    }
    const auto & p = f.follower.commanded_point();
    const double step = std::hypot(p[0] - commanded[0], p[1] - commanded[1],
      p[2] - commanded[2]);
    ASSERT_LE(step, SPEED * H * (1 + 1e-9));
    commanded = p;
  }
}

TEST(PoseFollower, ALongPauseLagsTheReferenceInsteadOfJumpingIt)
{
  Fixture f;
  auto goal = f.point(f.q0);
  goal[0] += 0.1;
  f.follower.aim(target_at(goal));
  const double * out = f.follower.advance(f.dyn, 5.0);  // ten steps, not 5000
  for (std::size_t i = 0; i < N; ++i) {
    EXPECT_LE(std::abs(out[i] - f.q0[i]), 1.0 * PoseFollower::MAX_STEPS * H + 1e-12);
  }
}
