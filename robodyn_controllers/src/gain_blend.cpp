// Gains blended in while running (gain_blend.hpp).
#include "robodyn_controllers/gain_blend.hpp"

#include <algorithm>
#include <cmath>

namespace robodyn_controllers
{

void GainBlend::configure(std::size_t n)
{
  n_ = n;
  slot_.configure(Gains{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)});
  for (auto * v : {&kp0_, &kd0_, &kp1_, &kd1_}) {v->assign(n, 0.0);}
  blending_ = false;
}

void GainBlend::request(const std::vector<double> & kp, const std::vector<double> & kd)
{
  Gains & back = slot_.back();
  back.kp.assign(kp.begin(), kp.end());
  back.kd.assign(kd.begin(), kd.end());
  slot_.commit();
}

bool GainBlend::step(double now, double * kp, double * kd, double duration) noexcept
{
  if (const Gains * target = slot_.take()) {
    if (target->kp.size() == n_ && target->kd.size() == n_) {
      std::copy(kp, kp + n_, kp0_.begin());
      std::copy(kd, kd + n_, kd0_.begin());
      std::copy(target->kp.begin(), target->kp.end(), kp1_.begin());
      std::copy(target->kd.begin(), target->kd.end(), kd1_.begin());
      t0_ = now;
      blending_ = true;
    }
  }
  if (!blending_) {return false;}
  const double s = duration <= 0.0 ? 1.0 : std::min(std::max((now - t0_) / duration, 0.0), 1.0);
  const double w = 0.5 - 0.5 * std::cos(M_PI * s);
  for (std::size_t i = 0; i < n_; ++i) {
    kp[i] = kp0_[i] + w * (kp1_[i] - kp0_[i]);
    kd[i] = kd0_[i] + w * (kd1_[i] - kd0_[i]);
  }
  if (s >= 1.0) {blending_ = false;}
  return true;
}

}  // namespace robodyn_controllers
