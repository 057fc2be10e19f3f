// The momentum observer; see momentum_observer.hpp.
#include "robodyn_controllers/momentum_observer.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace robodyn_controllers
{

void MomentumObserver::configure(std::size_t joints, double gain, double max_step)
{
  if (!(std::isfinite(gain) && gain > 0.0 && gain <= 1000.0)) {
    throw std::invalid_argument(
      "collision.gain must be within (0, 1000] 1/s, got " + std::to_string(gain));
  }
  if (!(std::isfinite(max_step) && max_step > 0.0 && max_step <= 0.1) ||
    gain * max_step > 0.5)
  {
    throw std::invalid_argument(
      "observer max_step " + std::to_string(max_step) + " s: must be within (0, 0.1] with "
      "gain x max_step <= 0.5");
  }
  gain_ = gain;
  max_step_ = max_step;
  for (auto * v : {&p_, &p_prev_, &s_, &s_prev_, &cg_, &r_, &q_prev_, &qd_prev_}) {
    v->assign(joints, 0.0);
  }
  reset();
}

void MomentumObserver::reset() noexcept
{
  started_ = false;
  after_gap_ = false;
  gaps_ = 0;
  repeats_ = 0;
  for (double & v : r_) {v = 0.0;}
}

bool MomentumObserver::update(
  DhDynamics & dyn, double stamp, const double * q, const double * qd,
  const double * tau) noexcept
{
  const std::size_t n = r_.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (!(std::isfinite(q[i]) && std::isfinite(qd[i]) && std::isfinite(tau[i]))) {
      return false;
    }
  }
  if (!std::isfinite(stamp)) {return false;}
  if (started_) {  // a repeat of the last sample while moving: a driver repeating itself
    bool same = true, moving = false;
    for (std::size_t i = 0; i < n; ++i) {
      same = same && q[i] == q_prev_[i] && qd[i] == qd_prev_[i];
      moving = moving || qd[i] != 0.0;
    }
    if (same && moving) {
      ++repeats_;
      return true;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    q_prev_[i] = q[i];
    qd_prev_[i] = qd[i];
  }
  dyn.observer_terms(q, qd, p_.data(), s_.data());  // M qd, C^T qd - g
  for (std::size_t i = 0; i < n; ++i) {cg_[i] = 0.0;}
  dyn.add_friction(qd, cg_.data());                  // tau_f
  for (std::size_t i = 0; i < n; ++i) {
    s_[i] -= cg_[i];  // C^T qd - g - tau_f
  }
  const double dt = stamp - stamp_;
  const bool steady = started_ && dt > 0.0 && dt <= max_step_;
  if (steady && !after_gap_) {
    const double decay = 1.0 - gain_ * dt;
    for (std::size_t i = 0; i < n; ++i) {
      const double beta = (0.5 * (s_prev_[i] + s_[i]) + tau[i]) * dt;
      r_[i] = r_[i] * decay + gain_ * ((p_[i] - p_prev_[i]) - beta);
    }
  } else if (started_ && dt > max_step_) {
    ++gaps_;
  }
  after_gap_ = started_ && !steady;  // the next sample's interval may hold this one's
  started_ = true;
  stamp_ = stamp;
  p_prev_.swap(p_);
  s_prev_.swap(s_);
  return true;
}

}  // namespace robodyn_controllers
