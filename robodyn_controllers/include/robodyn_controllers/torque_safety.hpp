// The safety arithmetic of the computed-torque controller, free of ROS so that it is
// tested on its own: effort clamp, torque-rate limit and the position hold's gains.
#ifndef ROBODYN_CONTROLLERS__TORQUE_SAFETY_HPP_
#define ROBODYN_CONTROLLERS__TORQUE_SAFETY_HPP_

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace robodyn_controllers
{

// The derived position hold: full effort at this error [rad or m], at most this bandwidth
// [Hz] on the joint's own inertia, critically damped (as robodyn_ros' supervisor).
constexpr double HOLD_REACH = 0.5;
constexpr double HOLD_BANDWIDTH = 5.0;

// Counts of what the limits changed (reported on /diagnostics).
struct LimitCounts
{
  unsigned long clamped = 0;
  unsigned long rate_limited = 0;
};

// out_i = last_i + clip(clip(target_i, +-limit_i) - last_i, +-max_step); `last` becomes
// `out`. A non-finite target keeps the last value and returns false.
inline bool limit_torque(
  const double * target, const double * effort_limit, double max_step, std::size_t n,
  double * last, double * out, LimitCounts & counts) noexcept
{
  bool finite = true;
  for (std::size_t i = 0; i < n; ++i) {
    double t = target[i];
    if (!std::isfinite(t)) {
      finite = false;
      t = last[i];
    }
    const double clamped = std::clamp(t, -effort_limit[i], effort_limit[i]);
    if (clamped != t) {++counts.clamped;}
    const double step = std::clamp(clamped - last[i], -max_step, max_step);
    if (step != clamped - last[i]) {++counts.rate_limited;}
    out[i] = last[i] + step;
    last[i] = out[i];
  }
  return finite;
}

// Stiffness of the derived hold for joint j: min(effort / HOLD_REACH, M_jj (2 pi f)^2).
inline double hold_stiffness(double effort_limit, double inertia) noexcept
{
  const double w = 2.0 * M_PI * HOLD_BANDWIDTH;
  return std::min(effort_limit / HOLD_REACH, std::max(inertia, 0.0) * w * w);
}

// Critical damping of a stiffness on an inertia: 2 sqrt(kp M_jj).
inline double critical_damping(double kp, double inertia) noexcept
{
  return 2.0 * std::sqrt(std::max(kp, 0.0) * std::max(inertia, 0.0));
}

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__TORQUE_SAFETY_HPP_
