// How the lock-step simulation (mujoco_lockstep_system) steps its physics through one
// control cycle: by the cycle's period exactly, in equal steps. No dependency: the
// arithmetic is tested apart (test/test_physics_steps.cpp).
#ifndef ROBODYN_CONTROLLERS__PHYSICS_STEPS_HPP_
#define ROBODYN_CONTROLLERS__PHYSICS_STEPS_HPP_

#include <algorithm>
#include <cmath>

namespace robodyn_controllers
{

// The physics steps of one cycle: `count` steps of `step` [s] each.
struct PhysicsSteps
{
  int count;
  double step;
};

// Physics steps at most this many model timesteps long: a cycle up to 10 % late is one step.
constexpr double STEP_STRETCH = 1.1;
// A cycle's period stepped at least [s] (two reads at one time: a step of no time).
constexpr double MIN_SPAN = 1e-6;

// The steps of a cycle of `elapsed` [s] (its period; not finite or <= 0: one timestep)
// for a model of `timestep` [s]: they add up to the period exactly, up to `max_steps`
// timesteps (beyond, the simulated world waits for the loop: a stall of the host is not
// the arm's), each at most STEP_STRETCH timesteps, and at least one, so that every command
// is applied. Why not whole timesteps with the remainder carried: at least one a cycle, an
// early cycle (controller_manager catching up, 0.27 ms after the last) then put the
// physics a step ahead of the clock the JTC samples its reference on.
inline PhysicsSteps physics_steps(double elapsed, double timestep, double max_steps) noexcept
{
  const double wanted = std::isfinite(elapsed) && elapsed > 0.0 ? elapsed : timestep;
  const double span = std::clamp(wanted, MIN_SPAN, max_steps * timestep);
  const int count = std::max(1, static_cast<int>(std::ceil(span / (STEP_STRETCH * timestep))));
  return {count, span / count};
}

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__PHYSICS_STEPS_HPP_
