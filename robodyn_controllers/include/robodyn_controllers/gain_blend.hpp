// Gains changed while the controller runs, without ROS: a requested (kp, kd) is blended in
// over `gain_ramp_time` [s] with a raised cosine, w = (1 - cos(pi s)) / 2, s the share of
// the ramp elapsed, so the law's torque changes smoothly (the supervisor's rate limit
// bounds every cycle's step besides). Why a blend and not a swap: a stiffer spring
// switched in at once is a torque step of (K1 - K0) e on every joint. The reference is
// robodyn_ros/control/laws/gain_blend.py (held to it through robodyn_gain_blend).
//
// The request comes from the parameter services' thread (one writer); update() takes it
// without a lock (LatestSlot: the newest request wins, none is half-read).
#ifndef ROBODYN_CONTROLLERS__GAIN_BLEND_HPP_
#define ROBODYN_CONTROLLERS__GAIN_BLEND_HPP_

#include <cstddef>
#include <vector>

#include "robodyn_controllers/latest_slot.hpp"

namespace robodyn_controllers
{

class GainBlend
{
public:
  // n joints (not real-time); drops a waiting request and a blend under way.
  void configure(std::size_t n);
  // New target gains, n each, checked before (any one thread; not real-time).
  void request(const std::vector<double> & kp, const std::vector<double> & kd);
  // At `now` [s]: start a waiting request from the gains kp, kd (n each, updated in
  // place), advance the blend over `duration` [s] (<= 0: at once); true when they changed.
  // Allocates nothing, takes no lock.
  bool step(double now, double * kp, double * kd, double duration) noexcept;
  // A blend is under way.
  bool blending() const noexcept {return blending_;}

private:
  struct Gains
  {
    std::vector<double> kp, kd;
  };
  std::size_t n_ = 0;
  LatestSlot<Gains> slot_;
  std::vector<double> kp0_, kd0_, kp1_, kd1_;
  double t0_ = 0.0;
  bool blending_ = false;
};

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__GAIN_BLEND_HPP_
