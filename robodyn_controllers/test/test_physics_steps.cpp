// physics_steps (physics_steps.hpp): the lock-step simulation's physics keeps the time of
// controller_manager's cycles, however irregular they come.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "robodyn_controllers/physics_steps.hpp"

using robodyn_controllers::physics_steps;
using robodyn_controllers::STEP_STRETCH;

namespace
{
constexpr double DT = 1e-3;
constexpr double MAX_STEPS = 20.0;
}  // namespace

TEST(PhysicsSteps, AnOnTimeCycleIsOneStepOfItsPeriod)
{
  const auto steps = physics_steps(1.02e-3, DT, MAX_STEPS);
  EXPECT_EQ(steps.count, 1);
  EXPECT_DOUBLE_EQ(steps.step, 1.02e-3);
}

TEST(PhysicsSteps, AnEarlyCycleStepsOnlyItsPeriod)
{
  // controller_manager catching up: 0.27 ms after the last cycle
  const auto steps = physics_steps(0.27e-3, DT, MAX_STEPS);
  EXPECT_EQ(steps.count, 1);
  EXPECT_DOUBLE_EQ(steps.step, 0.27e-3);
}

TEST(PhysicsSteps, ALateCycleStepsAsFarAsTheWorldWentOnInShortSteps)
{
  const auto steps = physics_steps(7.3e-3, DT, MAX_STEPS);
  EXPECT_EQ(steps.count, 7);
  EXPECT_NEAR(steps.count * steps.step, 7.3e-3, 1e-15);
  EXPECT_LE(steps.step, STEP_STRETCH * DT);
}

TEST(PhysicsSteps, BeyondMaxStepsTheWorldWaits)
{
  const auto steps = physics_steps(0.5, DT, MAX_STEPS);
  EXPECT_NEAR(steps.count * steps.step, MAX_STEPS * DT, 1e-15);
}

TEST(PhysicsSteps, NoPeriodIsOneTimestep)
{
  for (double bad : {0.0, -1e-3, std::numeric_limits<double>::quiet_NaN()}) {
    const auto steps = physics_steps(bad, DT, MAX_STEPS);
    EXPECT_EQ(steps.count, 1);
    EXPECT_DOUBLE_EQ(steps.step, DT);
  }
}

TEST(PhysicsSteps, JitteryCyclesKeepThePhysicsOnTheClock)
{
  // the periods around a stall of a loaded host (ms), then 1000 on-time cycles
  std::vector<double> periods{1.065, 1.21, 0.79, 0.925, 1.789, 0.272, 1.054, 0.926, 3.4,
    0.1, 0.2, 12.0, 0.05};
  periods.insert(periods.end(), 1000, 1.0);
  double clock = 0.0, physics = 0.0;
  for (double ms : periods) {
    const auto steps = physics_steps(ms * 1e-3, DT, MAX_STEPS);
    EXPECT_GE(steps.count, 1);
    EXPECT_LE(steps.step, STEP_STRETCH * DT * (1.0 + 1e-12));
    clock += ms * 1e-3;
    physics += steps.count * steps.step;
    EXPECT_NEAR(physics, clock, 1e-12);
  }
}
