// Generalized momentum observer: the external joint torque from the applied torque and the
// measured motion, for the real-time loop. The arithmetic of robodyn_ros'
// dynamics/momentum_observer.py (docs/collisions.md), sample by sample:
//
//   p = M(q) qd,  s = C(q, qd)^T qd - g(q) - tau_f(qd)   (C^T qd = Mdot qd - C qd, seed 000
//   eq. 55's skew symmetry of Mdot - 2C),
//   r_k = (1 - K dt) r_{k-1} + K (p_k - p_{k-1} - (tau_k + (s_{k-1} + s_k) / 2) dt),
//
// tau_k being the torque applied since the previous sample (the previous command). r
// follows the external torque through a first-order low-pass of time constant 1/K. p and
// C^T qd - g come from DhDynamics::observer_terms: one pass out and one in, no M or C.
#ifndef ROBODYN_CONTROLLERS__MOMENTUM_OBSERVER_HPP_
#define ROBODYN_CONTROLLERS__MOMENTUM_OBSERVER_HPP_

#include <cstddef>
#include <vector>

#include "robodyn_controllers/dh_dynamics.hpp"

namespace robodyn_controllers
{

class MomentumObserver
{
public:
  // gain K [1/s] in (0, 1000], max_step [s] in (0, 0.1], gain * max_step <= 0.5; throws
  // std::invalid_argument naming the value. Allocates (not real-time).
  void configure(std::size_t joints, double gain, double max_step);
  // Forget the estimate: the next sample sets p(0), r restarts from 0.
  void reset() noexcept;
  // One sample at `stamp` [s]: q, qd, and tau applied since the previous sample; `dyn` the
  // controller's dynamics (friction included). Returns false (and changes nothing) on a
  // non-finite input. A first sample, or one not after the last, sets p(0); one more than
  // max_step after the last holds r (a gap, counted), and so does the sample after either:
  // the controller stamps a state with its update()'s time, taken after the hardware's
  // read(), so a loop that stalls between the two stamps the state with the stall's end
  // and the next state's one period spans the stall's motion. A sample that repeats the
  // last one bit for bit while a velocity is not zero (a driver repeating its reading) is
  // skipped, counted in repeats(): the next fresh sample spans it.
  bool update(
    DhDynamics & dyn, double stamp, const double * q, const double * qd,
    const double * tau) noexcept;
  const double * residual() const noexcept {return r_.data();}
  std::size_t gaps() const noexcept {return gaps_;}
  std::size_t repeats() const noexcept {return repeats_;}

private:
  double gain_ = 50.0, max_step_ = 0.005, stamp_ = 0.0;
  bool started_ = false, after_gap_ = false;
  std::size_t gaps_ = 0, repeats_ = 0;
  std::vector<double> p_, p_prev_, s_, s_prev_, cg_, r_, q_prev_, qd_prev_;
};

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__MOMENTUM_OBSERVER_HPP_
