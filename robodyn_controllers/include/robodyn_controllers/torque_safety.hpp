// The safety arithmetic of the computed-torque controller, free of ROS so that it is
// tested on its own: effort clamp, torque-rate limit and the position hold's gains.
#ifndef ROBODYN_CONTROLLERS__TORQUE_SAFETY_HPP_
#define ROBODYN_CONTROLLERS__TORQUE_SAFETY_HPP_

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace robodyn_controllers
{

// The derived position hold (robodyn_ros.control.safety.hold, the same numbers): at the
// state (q, qd), tau = g(q) + M(q) a with a_j = w_j^2 (q_h,j - q_j) - 2 w_j qd_j, the
// inverse dynamics of a critically damped acceleration towards q_h at zero velocity, so the
// joints decouple whatever the pose (a diagonal PD does not: where two axes align, a joint
// with the others free feels far less than M_jj, and the hold rings). w_j is the lowest of
// 2 pi HOLD_BANDWIDTH, sqrt(effort_j / (HOLD_REACH M_jj)) (full effort at HOLD_REACH of
// error) and HOLD_DELAY_MARGIN / latency (half the w L = 0.65 at which a critically damped
// 1 kHz loop with L of transport latency loses its stability).
constexpr double HOLD_REACH = 0.5;
constexpr double HOLD_BANDWIDTH = 5.0;
constexpr double HOLD_DELAY_MARGIN = 0.32;

// A joint may move this much [rad or m] between two states beyond what its velocity limit
// allows in the time between them (sensor noise, quantisation, jitter); as robodyn_ros'
// JUMP_TOLERANCE. JUMPS_TO_FAULT rejected states within JUMP_WINDOW [s] latch the safe
// command on an untrusted state (robodyn_ros' supervisor: two sources that disagree).
constexpr double JUMP_TOLERANCE = 0.01;
// A position this far [rad or m] beyond a joint's limits is not the arm's (its hard stops
// are at the limits; a simulator's soft stops give way by millimetres): the state is
// rejected, as a jump (robodyn_ros' IMPOSSIBLE_BEYOND).
constexpr double IMPOSSIBLE_BEYOND = 0.05;
// The C++ controller judges a jump over this much time [s] at least: after a late cycle
// controller_manager catches up with short ones, while the hardware's state moved on over
// the whole delay (a read() that blocked, a stalled host), which the cycle times did not
// see. A glitch of 0.5 rad is still one (at 2.6 rad/s, 0.14 rad are allowed).
constexpr double JUMP_MIN_ELAPSED = 0.05;
constexpr int JUMPS_TO_FAULT = 3;
constexpr double JUMP_WINDOW = 1.0;
// A state stream that repeats the same positions and velocities, bit for bit, for at least
// FROZEN_SECONDS [s] while its velocities say some joint moved more than FROZEN_MOTION
// [rad or m] meanwhile is frozen (a driver that stopped reading its encoders), not an arm
// at rest (whose velocities read 0, or whose positions change). 50 ms on both paths (the
// node counts its states' stamps): a law that runs on a frozen state while its reference
// moves pushes the arm open-loop (0.2 s of it took an arm to 10 rad/s).
constexpr double FROZEN_SECONDS = 0.05;
constexpr double FROZEN_MOTION = 1e-3;
// After a state fault, this long [s] of continuous, plausible states and the C++
// controller's safe command becomes the position hold where the arm is then.
constexpr double TRUST_AFTER = 0.1;

// Counts of what the limits changed (reported on /diagnostics).
struct LimitCounts
{
  unsigned long clamped = 0;
  unsigned long rate_limited = 0;
};

// The largest change of any torque [N m or N] for an output `elapsed` [s] after the last
// one: max_rate [N m/s] x elapsed, at least 0 (a clock that stepped back) and at most one
// nominal `period` [s]. A late cycle gets one period's step, never more: the hardware
// applies each command for a cycle, so a step is judged per cycle. The same function as
// robodyn_ros.control.safety.kernels.rate_step (a test feeds both the same sequences).
inline double rate_step(double max_rate, double elapsed, double period) noexcept
{
  return max_rate * std::min(std::max(elapsed, 0.0), period);
}

// The one safety arithmetic of both paths (robodyn_ros.control.safety.kernels.limit_into is
// the same): clamp first, then limit the step,
//   out_i = last_i + clip(clip(t_i, +-limit_i) - last_i, +-max_step),
// with t_i the target, or last_i when the target is not finite (returns false). In this
// order no output ever steps by more than max_step, not even when a limit was lowered
// below the last output (the output then walks down to it at the rate limit): a step is
// what a gearbox and the arm feel, an output above a lowered limit is one the hardware
// itself still bounds. `last` becomes `out`.
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

// -1 when every joint moved from `previous` by at most velocity[j] x elapsed + tolerance
// (wrap[j] non-zero, or wrap null for none: a continuous joint, distance modulo 2 pi); else
// the first joint that moved farther: a glitch, not motion (robodyn_ros'
// kernels.position_jump is the same function). A joint without velocity limit (inf) is
// not checked.
inline int position_jump(
  const double * q, const double * previous, const double * velocity, const double * wrap,
  std::size_t n, double elapsed, double tolerance) noexcept
{
  for (std::size_t j = 0; j < n; ++j) {
    double delta = std::abs(q[j] - previous[j]);
    if (wrap != nullptr && wrap[j] != 0.0) {
      delta = std::fmod(delta, 2.0 * M_PI);
      delta = std::min(delta, 2.0 * M_PI - delta);
    }
    if (delta > velocity[j] * std::max(elapsed, 0.0) + tolerance) {
      return static_cast<int>(j);
    }
  }
  return -1;
}

// Seconds a frozen stream has repeated itself after a state `same` as the last valid one,
// `elapsed` [s] later (0 when it changed), and whether it now counts as frozen (see
// FROZEN_SECONDS): the velocities qd say the joints moved while the positions did not.
inline bool frozen_state(
  bool same, const double * qd, std::size_t n, double elapsed, double & frozen_for,
  double seconds = FROZEN_SECONDS) noexcept
{
  frozen_for = same ? frozen_for + std::max(elapsed, 0.0) : 0.0;
  double fastest = 0.0;
  for (std::size_t j = 0; j < n; ++j) {fastest = std::max(fastest, std::abs(qd[j]));}
  return frozen_for >= seconds && fastest * frozen_for > FROZEN_MOTION;
}

// Bandwidth w_j [rad/s] of the derived hold of joint j (see HOLD_REACH), for a loop of
// `latency` [s] beyond its cycle (<= 0: none); 0 for a joint without positive inertia.
inline double hold_bandwidth(double effort_limit, double inertia, double latency) noexcept
{
  if (!(inertia > 0.0)) {return 0.0;}
  double w = std::min(2.0 * M_PI * HOLD_BANDWIDTH, std::sqrt(effort_limit /
    (HOLD_REACH * inertia)));
  if (latency > 0.0) {w = std::min(w, HOLD_DELAY_MARGIN / latency);}
  return w;
}

// Stiffness of a hold for joint j on its own: min(effort / HOLD_REACH, M_jj (2 pi f)^2)
// (a given hold_kd without hold_kp; the decoupled hold's equivalent is M_jj w_j^2).
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

// The hold watching itself (robodyn_ros.control.safety.hold: PositionHold.watch, the same
// numbers): a healthy decoupled hold only slows the arm, so a joint moving faster than
// HOLD_RUNAWAY x the larger of its velocity guard and its speed when the hold started says
// the loop is later than the hold was built for; the bandwidths halve, at most
// HOLD_SOFTENINGS times, judged again HOLD_SETTLE [s] later.
constexpr double HOLD_RUNAWAY = 1.25;
constexpr int HOLD_SOFTENINGS = 4;
constexpr double HOLD_SETTLE = 0.1;

// The speed above which the hold runs away, per joint: HOLD_RUNAWAY max(guard, |qd|) (a
// non-finite qd counts as 0).
inline void arm_hold_watch(
  std::size_t n, const double * qd, const double * guard, double * runaway) noexcept
{
  for (std::size_t i = 0; i < n; ++i) {
    const double speed = std::isfinite(qd[i]) ? std::abs(qd[i]) : 0.0;
    runaway[i] = HOLD_RUNAWAY * std::max(guard[i], speed);
  }
}

// One valid state's velocities `qd` at time `now` [s] while the derived hold of bandwidths
// `w` is in force: the joint whose speed made the bandwidths halve (w, runaway,
// settle_until and softenings updated), or -1 (within HOLD_SETTLE of a halving only the
// bounds rise with the momentum the stiffer hold gave).
inline int watch_hold(
  std::size_t n, const double * qd, const double * guard, double now, double * w,
  double * runaway, double & settle_until, int & softenings) noexcept
{
  int worst = -1;
  double margin = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double speed = std::isfinite(qd[i]) ? std::abs(qd[i]) : 0.0;
    if (now < settle_until) {
      runaway[i] = std::max(runaway[i], HOLD_RUNAWAY * speed);
    } else if (speed - runaway[i] > margin) {
      margin = speed - runaway[i];
      worst = static_cast<int>(i);
    }
  }
  if (worst < 0 || softenings >= HOLD_SOFTENINGS) {return -1;}
  ++softenings;
  for (std::size_t i = 0; i < n; ++i) {w[i] *= 0.5;}
  arm_hold_watch(n, qd, guard, runaway);
  settle_until = now + HOLD_SETTLE;
  return worst;
}

// Joint i's value in the sample-th configuration spread over [lower, upper] ([-pi, pi]
// when unbounded) by golden-ratio steps: where the derived acceleration limit looks for the
// largest M_jj (robodyn_ros.control.controller_config.spread_configurations, the same).
inline double spread_value(int sample, std::size_t i, double lower, double upper) noexcept
{
  const bool bounded = std::isfinite(lower) && std::isfinite(upper);
  const double lo = bounded ? lower : -M_PI;
  const double hi = bounded ? upper : M_PI;
  return lo + std::fmod(0.6180339887 * sample + 0.4142135624 * static_cast<double>(i + 1),
           1.0) * (hi - lo);
}

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__TORQUE_SAFETY_HPP_
