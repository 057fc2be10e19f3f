// The safety arithmetic and the dynamics' refusals, without a controller manager.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "robodyn_controllers/dh_dynamics.hpp"
#include "robodyn_controllers/torque_safety.hpp"

using robodyn_controllers::DhDynamics;
using robodyn_controllers::DhLink;
using robodyn_controllers::LimitCounts;
namespace rc = robodyn_controllers;

TEST(LimitTorque, ClampsThenLimitsTheStep)
{
  const double target[2] = {100.0, -0.5};
  const double limit[2] = {10.0, 10.0};
  double last[2] = {0.0, 0.0};
  double out[2];
  LimitCounts counts;
  ASSERT_TRUE(robodyn_controllers::limit_torque(target, limit, 1.0, 2, last, out, counts));
  EXPECT_DOUBLE_EQ(out[0], 1.0);   // clamped to 10, then one step of 1
  EXPECT_DOUBLE_EQ(out[1], -0.5);  // within the step
  EXPECT_EQ(counts.clamped, 1u);
  EXPECT_EQ(counts.rate_limited, 1u);
  EXPECT_DOUBLE_EQ(last[0], 1.0);
}

TEST(LimitTorque, NonFiniteKeepsTheLastValue)
{
  const double target[1] = {std::numeric_limits<double>::quiet_NaN()};
  const double limit[1] = {10.0};
  double last[1] = {3.0};
  double out[1];
  LimitCounts counts;
  EXPECT_FALSE(robodyn_controllers::limit_torque(target, limit, 1.0, 1, last, out, counts));
  EXPECT_DOUBLE_EQ(out[0], 3.0);
}

TEST(HoldGains, StiffnessIsTheLowerBoundAndDampingCritical)
{
  EXPECT_DOUBLE_EQ(robodyn_controllers::hold_stiffness(87.0, 100.0), 87.0 / 0.5);
  const double w = 2.0 * M_PI * 5.0;
  EXPECT_DOUBLE_EQ(robodyn_controllers::hold_stiffness(87.0, 0.01), 0.01 * w * w);
  EXPECT_DOUBLE_EQ(robodyn_controllers::critical_damping(4.0, 1.0), 4.0);
}

TEST(HoldGains, BandwidthIsTheLowestOfItsThreeBounds)
{
  using robodyn_controllers::hold_bandwidth;
  const double w = 2.0 * M_PI * 5.0;
  EXPECT_DOUBLE_EQ(hold_bandwidth(87.0, 0.01, 0.0), w);  // 5 Hz
  EXPECT_DOUBLE_EQ(hold_bandwidth(87.0, 2.0, 0.0), std::sqrt(87.0 / (0.5 * 2.0)));  // reach
  EXPECT_DOUBLE_EQ(hold_bandwidth(87.0, 0.01, 0.1), 0.32 / 0.1);  // the loop's latency
  EXPECT_DOUBLE_EQ(hold_bandwidth(87.0, 0.0, 0.0), 0.0);  // no inertia, no stiffness
}

TEST(HoldWatch, HalvesWhenAJointOutrunsItsStartThenSettles)
{
  const double guard[2] = {2.0, 2.0};
  const double start[2] = {3.0, 0.0};  // joint 0 above its guard when the hold starts
  double w[2] = {16.0, 20.0}, runaway[2];
  rc::arm_hold_watch(2, start, guard, runaway);
  EXPECT_DOUBLE_EQ(runaway[0], 3.75);
  EXPECT_DOUBLE_EQ(runaway[1], 2.5);
  double settle = -1e9;
  int softenings = 0;
  const double slowing[2] = {3.7, 2.4};
  EXPECT_EQ(rc::watch_hold(2, slowing, guard, 0.0, w, runaway, settle, softenings), -1);
  const double faster[2] = {1.0, 2.6};
  EXPECT_EQ(rc::watch_hold(2, faster, guard, 0.001, w, runaway, settle, softenings), 1);
  EXPECT_DOUBLE_EQ(w[0], 8.0);
  EXPECT_DOUBLE_EQ(w[1], 10.0);
  const double spike[2] = {9.0, 0.0};  // within the settling time: only the bound rises
  EXPECT_EQ(rc::watch_hold(2, spike, guard, 0.05, w, runaway, settle, softenings), -1);
  EXPECT_DOUBLE_EQ(runaway[0], 11.25);
  EXPECT_EQ(softenings, 1);
  const double beyond[2] = {11.3, 0.0};
  EXPECT_EQ(rc::watch_hold(2, beyond, guard, 0.2, w, runaway, settle, softenings), 0);
  for (int k = 0; k < 5; ++k) {
    const double huge[2] = {1e6 * (k + 1), 0.0};
    (void)rc::watch_hold(2, huge, guard, 1.0 + k, w, runaway, settle, softenings);
  }
  EXPECT_EQ(softenings, rc::HOLD_SOFTENINGS);  // the softest hold still holds
  EXPECT_DOUBLE_EQ(w[0], 16.0 / 16.0);
}

TEST(DhDynamics, PendulumGravityAndInertia)
{
  DhLink link;  // a point-like 2 kg mass 0.5 m along x of a joint about z, gravity along -y
  link.a = 0.5;
  link.mass = 2.0;
  link.com = {0.0, 0.0, 0.0};
  link.inertia = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  DhDynamics dyn;
  dyn.configure({link}, {0.0, -9.81, 0.0});
  double q[1] = {0.0}, tau[1];
  dyn.gravity(q, tau);
  EXPECT_NEAR(tau[0], 2.0 * 9.81 * 0.5, 1e-12);
  double diag[1];
  dyn.mass_diagonal(q, diag);
  EXPECT_NEAR(diag[0], 2.0 * 0.25, 1e-12);
}

TEST(DhDynamics, RefusesNegativeMassAndBadInertia)
{
  DhLink link;
  link.mass = -1.0;
  DhDynamics dyn;
  EXPECT_THROW(dyn.configure({link}, {0.0, 0.0, -9.81}), std::invalid_argument);
  link.mass = 1.0;
  link.inertia = {1.0, 0.0, 0.0, -1.0, 0.0, 1.0};
  EXPECT_THROW(dyn.configure({link}, {0.0, 0.0, -9.81}), std::invalid_argument);
  EXPECT_THROW(dyn.configure({}, {0.0, 0.0, -9.81}), std::invalid_argument);
}

#include <thread>

#include "robodyn_controllers/cycle_ring.hpp"

TEST(CycleRing, EveryRecordArrivesOnceInOrderAndAFullRingDrops)
{
  robodyn_controllers::CycleRing ring;
  ring.configure(4, 2);
  for (int k = 0; k < 6; ++k) {
    double * slot = ring.begin(k);
    if (slot != nullptr) {
      slot[0] = k;
      slot[1] = -k;
      ring.commit();
    }
  }
  EXPECT_EQ(ring.dropped(), 2u);  // capacity 4: records 4 and 5 dropped
  std::vector<std::int64_t> seen;
  ring.drain([&](std::int64_t stamp, const double * v) {
      EXPECT_DOUBLE_EQ(v[0], static_cast<double>(stamp));
      EXPECT_DOUBLE_EQ(v[1], -static_cast<double>(stamp));
      seen.push_back(stamp);
    });
  EXPECT_EQ(seen, (std::vector<std::int64_t>{0, 1, 2, 3}));
}

TEST(CycleRing, AProducerAndAConsumerThreadLoseNothingTheRingHolds)
{
  robodyn_controllers::CycleRing ring;
  ring.configure(64, 1);
  constexpr int records = 20000;
  std::vector<std::int64_t> seen;
  std::thread consumer([&] {
      while (static_cast<int>(seen.size()) + static_cast<int>(ring.dropped()) < records) {
        ring.drain([&](std::int64_t stamp, const double * v) {
            EXPECT_DOUBLE_EQ(v[0], static_cast<double>(stamp));
            seen.push_back(stamp);
          });
      }
    });
  for (int k = 0; k < records; ++k) {
    double * slot = ring.begin(k);
    if (slot != nullptr) {
      slot[0] = k;
      ring.commit();
    }
  }
  consumer.join();
  EXPECT_EQ(seen.size() + ring.dropped(), static_cast<std::size_t>(records));
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
}
