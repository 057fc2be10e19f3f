// The feed-forward tool wrench (wrench_feed.hpp), in the order of robodyn_ros'
// control/reference/wrench_target.py.
#include "robodyn_controllers/wrench_feed.hpp"

#include <algorithm>
#include <cmath>

namespace robodyn_controllers
{
namespace
{
// v (3) scaled down to norm at most limit; whether it was.
bool scale_down(double * v, double limit) noexcept
{
  const double norm = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!(norm > limit)) {return false;}
  for (int k = 0; k < 3; ++k) {v[k] *= limit / norm;}
  return true;
}
}  // namespace

WrenchCheck check_wrench(
  const double * force, const double * torque, const std::array<double, 9> & base_rotation,
  const WrenchBounds & bounds, double * out) noexcept
{
  double f[3], m[3];
  for (int k = 0; k < 3; ++k) {
    if (!(std::isfinite(force[k]) && std::isfinite(torque[k]))) {
      return WrenchCheck::NOT_FINITE;
    }
    f[k] = force[k];
    m[k] = torque[k];
  }
  const bool cut_f = scale_down(f, bounds.max_force);
  const bool cut_m = scale_down(m, bounds.max_torque);
  for (int r = 0; r < 3; ++r) {  // R^T v: the base link's vector in frame 0
    out[r] = base_rotation[r] * f[0] + base_rotation[3 + r] * f[1] +
      base_rotation[6 + r] * f[2];
    out[3 + r] = base_rotation[r] * m[0] + base_rotation[3 + r] * m[1] +
      base_rotation[6 + r] * m[2];
  }
  return cut_f || cut_m ? WrenchCheck::SCALED : WrenchCheck::APPLIED;
}

void WrenchFeed::configure(const WrenchBounds & bounds) noexcept
{
  bounds_ = bounds;
  reset();
}

void WrenchFeed::aim(const double * wrench, double now) noexcept
{
  std::copy(wrench, wrench + 6, target_.begin());
  stamp_ = now;
  have_target_ = true;
  timed_out_ = false;
}

const double * WrenchFeed::value(double now) noexcept
{
  if (!have_target_) {return nullptr;}
  const double step = have_last_ ? std::min(std::max(now - last_, 0.0), MAX_STEP) : 0.0;
  last_ = now;
  have_last_ = true;
  const bool late = now - stamp_ > bounds_.timeout;
  timed_out_ = timed_out_ || late;
  const double rates[2] = {bounds_.max_force / bounds_.rise_time,
    bounds_.max_torque / bounds_.rise_time};
  bool any = false;
  for (int part = 0; part < 2; ++part) {
    double change[3];
    for (int k = 0; k < 3; ++k) {
      const double target = late ? 0.0 : target_[3 * part + k];
      change[k] = target - applied_[3 * part + k];
      any = any || target != 0.0;
    }
    scale_down(change, rates[part] * step);
    for (int k = 0; k < 3; ++k) {applied_[3 * part + k] += change[k];}
  }
  for (double v : applied_) {any = any || v != 0.0;}
  if (!any) {  // timed out and ramped down: nothing to apply
    have_target_ = false;
    return nullptr;
  }
  return applied_.data();
}

void WrenchFeed::reset() noexcept
{
  target_.fill(0.0);
  applied_.fill(0.0);
  have_target_ = have_last_ = timed_out_ = false;
}

}  // namespace robodyn_controllers
