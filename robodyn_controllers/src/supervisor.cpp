// The C++ control core's cycle (supervisor.hpp): the state judged, the reference taken and
// checked, the law, the hold and its watch, the faults, the collision observer, the limits.
#include "robodyn_controllers/supervisor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace robodyn_controllers
{
namespace
{
constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

void require(const std::vector<double> & values, std::size_t n, bool allow_empty,
  const char * name)
{
  if (values.size() == n || (allow_empty && values.empty())) {return;}
  throw std::invalid_argument(std::string(name) + ": expected " + std::to_string(n) +
          " values (one per joint), got " + std::to_string(values.size()));
}
}  // namespace

void Supervisor::configure(
  const SupervisorSettings & settings, DhDynamics & dynamics, JointLaw & law,
  const LawSettings & law_settings)
{
  const std::size_t n = settings.joints.size();
  for (const auto & [values, allow_empty, name] : {
      std::tuple{&settings.effort_limit, false, "effort_limit"},
      {&settings.velocity_limit, false, "velocity_limit"},
      {&settings.acceleration_limit, false, "acceleration_limit"},
      {&settings.lower, false, "lower"}, {&settings.upper, false, "upper"},
      {&settings.kp, false, "kp"}, {&settings.kd, false, "kd"},
      {&settings.hold_kp, true, "hold_kp"}, {&settings.hold_kd, true, "hold_kd"},
      {&settings.damping, false, "damping"},
      {&settings.collision_thresholds, true, "collision.thresholds"}})
  {
    require(*values, n, allow_empty, name);
  }
  for (double v : settings.collision_thresholds) {
    if (!(v > 0.0)) {
      throw std::invalid_argument("collision.thresholds: every value must be > 0 N m, got " +
              std::to_string(v));
    }
  }
  if (!(settings.nominal_period > 0.0)) {
    throw std::invalid_argument("the nominal period must be > 0 s");
  }
  observe_ = !settings.collision_thresholds.empty();
  if (observe_) {observer_.configure(n, settings.observer_gain, OBSERVER_MAX_STEP);}
  std::snprintf(collision_buffer_, sizeof(collision_buffer_), "%s",
    observe_ ? "none" : "off (collision.thresholds empty)");
  s_ = settings;
  n_ = n;
  dynamics_ = &dynamics;
  law_ = &law;
  law_settings_ = law_settings;
  for (auto * v : {&q_, &qd_, &effort_, &q_ref_, &qd_ref_, &qdd_ref_, &tau_, &gravity_,
      &hold_q_, &last_q_, &last_qd_, &previous_q_, &out_, &last_cmd_, &inertia_,
      &applied_cmd_, &hold_w_, &hold_acc_, &zero_qd_, &hold_guard_, &hold_runaway_,
      &accepted_q_, &accepted_qd_, &brake_time_})
  {
    v->assign(n_, 0.0);
  }
  for (std::size_t i = 0; i < n_; ++i) {  // the guard check_state() applies
    hold_guard_[i] = s_.velocity_limit[i] * (1.0 + s_.velocity_margin);
  }
  kp_ = s_.kp;
  kd_ = s_.kd;
  gains_.configure(n_);
  spring_.configure(6);
  spring_zeta_.fill(law_settings_.cartesian_damping_ratio);
  hold_kp_ = s_.hold_kp.empty() ? std::vector<double>(n_, NaN) : s_.hold_kp;
  hold_kd_ = s_.hold_kd.empty() ? std::vector<double>(n_, NaN) : s_.hold_kd;
  derived_kp_ = s_.hold_kp.empty();  // derived when a hold starts
  derived_kd_ = s_.hold_kd.empty();
  decoupled_hold_ = derived_kp_ && derived_kd_;
  mode_ = Mode::HOLD;
  reason_ = "inactive";
  collisions_ = 0;
}

void Supervisor::activate(
  bool finite, bool has_effort, const double * commanded, bool restart) noexcept
{
  counts_ = LimitCounts{};
  faults_ = 0;
  cycles_ = 0;
  event_ = "none";
  std::snprintf(hold_buffer_, sizeof(hold_buffer_), "none");
  missing_reference_ = 0.0;
  unchanged_cycles_ = 0;
  have_reference_ = false;
  mode_ = Mode::ACTIVE;  // so that enter_hold below takes the hold position
  have_last_q_ = have_previous_ = false;
  jumps_ = 0;
  clock_ = since_valid_ = frozen_for_ = valid_for_ = 0.0;
  if (observe_) {observer_.reset();}
  over_cycles_ = 0;
  in_contact_ = compliant_ = false;
  observer_clock_ = 0.0;
  finite = accept_state(finite, 0.0);
  if (finite) {dynamics_->gravity(q_.data(), gravity_.data());}
  for (std::size_t i = 0; i < n_; ++i) {
    const double from_state = has_effort ? effort_[i] : NaN;
    if (commanded != nullptr && std::isfinite(commanded[i])) {
      last_cmd_[i] = commanded[i];
    } else if (std::isfinite(from_state)) {
      last_cmd_[i] = from_state;
    } else {
      last_cmd_[i] = finite && s_.include_gravity ? gravity_[i] : 0.0;
    }
  }
  if (restart) {std::copy(applied_cmd_.begin(), applied_cmd_.end(), last_cmd_.begin());}
  braking_ = false;
  have_accepted_ = false;
  if (!finite) {
    fault("non_finite_state", "a joint state is not finite at activation", false);
  } else {
    state_trusted_ = true;
    enter_hold("waiting for a reference (chain a trajectory controller)");
  }
}

const double * Supervisor::cycle(
  double now, double dt, bool finite, const double * reference, bool chained) noexcept
{
  if (!std::isfinite(dt)) {dt = 0.0;}
  ++cycles_;
  const bool valid = accept_state(finite, dt);
  judge_state(finite, valid);
  if (observe_) {observe_collision(valid, dt);}
  if (mode_ != Mode::SAFE) {follow(dt, reference, chained);}
  if (braking_ && mode_ == Mode::HOLD) {brake(dt);}
  if (valid && mode_ == Mode::ACTIVE && law_->follows_reference(law_settings_) &&
    s_.max_tracking_error > 0.0)
  {
    check_tracking();
  }
  if (valid && decoupled_hold_ && (mode_ == Mode::HOLD || (mode_ == Mode::SAFE &&
    state_trusted_)))
  {
    watch_own_hold();
  }
  command(now, valid);
  // The torque's step: max_torque_rate x min(elapsed, period), so a late cycle moves one
  // period's worth, never more, and an early one less. A cycle whose time does not advance
  // (Gazebo's controller_manager reads its time from a /clock that arrives a step late at
  // random, while the physics did step) counts as one period: the hardware still applies
  // this write for a step.
  const bool torque_finite = limit_torque(tau_.data(), s_.effort_limit.data(),
    rate_step(s_.max_torque_rate, dt > 0.0 ? dt : s_.nominal_period, s_.nominal_period), n_,
    last_cmd_.data(), out_.data(), counts_);
  if (!torque_finite && mode_ != Mode::SAFE) {
    fault("non_finite_torque", "the law gave a non-finite torque: position hold", valid);
  }
  return out_.data();
}

// The state's faults: not finite, or valid and outside the guards (check_state).
void Supervisor::judge_state(bool finite, bool valid) noexcept
{
  if (mode_ != Mode::SAFE) {
    const char * why = nullptr;
    if (!finite) {
      fault("non_finite_state", "a joint state is not finite: gravity + damping", false);
    } else if (valid && (why = check_state()) != nullptr) {
      fault("guard", why, true);
    }
  } else if (!valid) {
    state_trusted_ = false;  // a position hold needs a state to hold with
  }
}

// The reference of this cycle taken and checked, or the hold when there is none.
void Supervisor::follow(double dt, const double * reference, bool chained) noexcept
{
  if (take_reference(reference, dt)) {
    const char * why = check_reference();
    if (why != nullptr) {
      event_ = "reference_outside_limits";
      refuse_reference(why);
      return;
    }
    mode_ = Mode::ACTIVE;
    braking_ = false;
    std::copy(q_ref_.begin(), q_ref_.end(), accepted_q_.begin());
    std::copy(qd_ref_.begin(), qd_ref_.end(), accepted_qd_.begin());
    have_accepted_ = true;
    reason_ = "following the chained reference";
  } else if (!chained) {
    enter_hold("no controller is chained: holding the position reached");
  } else if (missing_reference_ > s_.reference_timeout) {
    event_ = "stale_reference";
    enter_hold("the chained reference stopped updating: holding the position reached");
  }
}

void Supervisor::check_tracking() noexcept
{
  for (std::size_t i = 0; i < n_; ++i) {
    if (std::abs(q_ref_[i] - q_[i]) > s_.max_tracking_error) {
      std::snprintf(reason_buffer_, sizeof(reason_buffer_),
        "%s is %.4f from its reference (max_tracking_error %.3f): the arm does not follow "
        "the commands", s_.joints[i].c_str(), q_ref_[i] - q_[i], s_.max_tracking_error);
      fault("tracking_error", reason_buffer_, true);
      return;
    }
  }
}

// The torque target tau_ of this cycle: the last command on one rejected state, the law
// while following or stopping, the hold, or gravity + damping.
void Supervisor::command(double now, bool valid) noexcept
{
  // gains set while running reach their values on this clock, whatever the mode
  gains_.step(now, kp_.data(), kd_.data(), s_.gain_ramp_time);
  if (spring_.step(now, law_settings_.cartesian_stiffness.data(), spring_zeta_.data(),
    s_.gain_ramp_time))
  {
    law_settings_.cartesian_damping_ratio = spring_zeta_[0];
  }
  if (!valid && mode_ != Mode::SAFE) {  // one rejected state: the last command stands
    std::copy(last_cmd_.begin(), last_cmd_.end(), tau_.begin());
  } else if (mode_ == Mode::ACTIVE || braking_) {
    compute_law();
    // a law with state learns only while it follows a reference, touching nothing
    law_->adapt(now, mode_ == Mode::ACTIVE && !braking_ && !in_contact_);
  } else if (mode_ == Mode::HOLD || state_trusted_) {
    compute_hold();
  } else {
    compute_gravity_damping();
  }
}

const double * Supervisor::release(bool finite) noexcept
{
  finite = accept_state(finite, s_.nominal_period);
  if (finite && mode_ != Mode::SAFE) {
    mode_ = Mode::ACTIVE;  // so that enter_hold takes the position reached
    enter_hold("released");
    compute_hold();
  } else if (finite && state_trusted_) {
    compute_hold();
  } else {
    compute_gravity_damping();
  }
  braking_ = false;
  std::copy(last_cmd_.begin(), last_cmd_.end(), applied_cmd_.begin());
  (void)limit_torque(tau_.data(), s_.effort_limit.data(),
    rate_step(s_.max_torque_rate, s_.nominal_period, s_.nominal_period), n_,
    last_cmd_.data(), out_.data(), counts_);
  mode_ = Mode::HOLD;
  event_ = "deactivated";
  reason_ = "inactive: effort interfaces released after one step towards the hold at the "
    "release position; the hardware holds the arm from here (docs/real_arm.md)";
  return out_.data();
}

// The reference written this cycle (3n values), or nullptr: false, and the time without
// one grows by `period`.
bool Supervisor::take_reference(const double * reference, double period) noexcept
{
  if (reference == nullptr) {
    missing_reference_ += period;
    return false;
  }
  bool unchanged = true;
  for (std::size_t i = 0; i < n_; ++i) {
    unchanged = unchanged && have_reference_ && reference[i] == q_ref_[i];
    q_ref_[i] = reference[i];
    qd_ref_[i] = reference[n_ + i];
    qdd_ref_[i] = reference[2 * n_ + i];
  }
  unchanged_cycles_ = unchanged ? unchanged_cycles_ + 1 : 0;
  // The position stopped changing for AT_REST_CYCLES: the trajectory ended (header). One
  // repeated cycle is not enough: a controller_manager whose clock repeats a time (Gazebo)
  // makes the JointTrajectoryController write the same sample twice mid-motion.
  if (unchanged_cycles_ >= AT_REST_CYCLES) {
    std::fill(qd_ref_.begin(), qd_ref_.end(), 0.0);
    std::fill(qdd_ref_.begin(), qdd_ref_.end(), 0.0);
  }
  have_reference_ = true;
  missing_reference_ = 0.0;
  return true;
}

// The observer on this cycle's state with the command in force since the previous one
// (last_cmd_, before this cycle's limit); a collision is the configured reaction at once.
// Declared only while the controller commands (active or its hold), as the node's
// CollisionWatch (supervisor.commanding): in safe mode the arm is held already, and the
// state that put it there may be the lie (a jumping stream, once accepted again, moves
// the estimate as a push would); the estimate itself is still published.
void Supervisor::observe_collision(bool valid, double dt) noexcept
{
  observer_clock_ += dt > 0.0 ? dt : s_.nominal_period;  // as the rate limit counts it
  if (!valid || !observer_.update(*dynamics_, observer_clock_, q_.data(), qd_.data(),
    last_cmd_.data()))
  {
    return;
  }
  const double * r = observer_.residual();
  bool over = false;
  for (std::size_t i = 0; i < n_; ++i) {
    over = over || std::abs(r[i]) > s_.collision_thresholds[i];
  }
  if (!over || mode_ == Mode::SAFE) {
    over_cycles_ = 0;
    in_contact_ = false;
    return;
  }
  if (++over_cycles_ < s_.collision_debounce || in_contact_) {return;}
  in_contact_ = true;
  ++collisions_;
  int used = std::snprintf(collision_buffer_, sizeof(collision_buffer_),
    "collision: external torque estimate");
  for (std::size_t i = 0; i < n_ && used > 0 &&
    static_cast<std::size_t>(used) < sizeof(collision_buffer_); ++i)
  {
    if (std::abs(r[i]) > s_.collision_thresholds[i]) {
      used += std::snprintf(collision_buffer_ + used, sizeof(collision_buffer_) - used,
        " %s %.3g N m (threshold %.3g)", s_.joints[i].c_str(), r[i],
        s_.collision_thresholds[i]);
    }
  }
  if (s_.collision_reaction == CollisionReaction::HOLD) {
    fault("collision", collision_buffer_, true);
  } else if (s_.collision_reaction == CollisionReaction::COMPLIANT) {
    compliant_ = true;
    fault("collision", collision_buffer_, false);
  } else {
    event_ = "collision";
  }
}

// Whether this cycle's state (read_state: `finite`, `dt` [s] after the last cycle) is
// valid: finite, inside the joints' limits widened by IMPOSSIBLE_BEYOND (no arm is beyond
// its hard stops), within reach of a known state at the velocity limits (position_jump)
// and not a frozen stream (frozen_state). A valid state becomes the last valid one
// (last_q_, last_qd_). The known state is the last valid one, except in safe mode on an
// untrusted state: there it is the previous sample (the last valid one may be long gone,
// the arm moved meanwhile), so a stream that is continuous again steers the gravity
// and damping of the safe command. JUMPS_TO_FAULT rejected states within JUMP_WINDOW, or
// a frozen stream, latch the safe command on an untrusted state: the arm's report lies.
bool Supervisor::accept_state(bool finite, double dt) noexcept
{
  dt = std::max(dt, 0.0);
  clock_ += dt;
  since_valid_ += dt;
  state_valid_ = false;
  const bool after_previous = mode_ == Mode::SAFE && !state_trusted_;
  const bool have = after_previous ? have_previous_ : have_last_q_;
  int j = -1;
  if (finite && have) {
    j = position_jump(q_.data(), after_previous ? previous_q_.data() : last_q_.data(),
      s_.velocity_limit.data(), nullptr, n_,
      std::max(after_previous ? dt : since_valid_, JUMP_MIN_ELAPSED), JUMP_TOLERANCE);
  }
  for (std::size_t i = 0; finite && j < 0 && i < n_; ++i) {
    if (q_[i] < s_.lower[i] - IMPOSSIBLE_BEYOND || q_[i] > s_.upper[i] + IMPOSSIBLE_BEYOND) {
      j = static_cast<int>(i);
    }
  }
  have_previous_ = finite;
  if (finite) {std::copy(q_.begin(), q_.end(), previous_q_.begin());}
  valid_for_ = finite && j < 0 ? valid_for_ : 0.0;
  if (!finite) {return false;}
  if (j >= 0) {
    reject_state(static_cast<std::size_t>(j));
    return false;
  }
  bool same = have_last_q_;
  for (std::size_t i = 0; same && i < n_; ++i) {
    same = q_[i] == last_q_[i] && qd_[i] == last_qd_[i];
  }
  if (frozen_state(same, qd_.data(), n_, dt, frozen_for_)) {
    valid_for_ = 0.0;
    if (mode_ != Mode::SAFE) {
      std::snprintf(reason_buffer_, sizeof(reason_buffer_),
        "the joint states repeated themselves for %.0f ms while their velocities say the "
        "arm moves (a driver that stopped reading its encoders?): gravity at the last "
        "valid position", 1e3 * frozen_for_);
      fault("frozen_state", reason_buffer_, false);
    }
    return false;
  }
  std::copy(q_.begin(), q_.end(), last_q_.begin());
  std::copy(qd_.begin(), qd_.end(), last_qd_.begin());
  have_last_q_ = true;
  since_valid_ = 0.0;
  state_valid_ = true;
  valid_for_ = after_previous ? valid_for_ + dt : 0.0;
  if (after_previous && valid_for_ >= TRUST_AFTER && !compliant_) {
    // Continuous, plausible states for TRUST_AFTER: stop the arm where it is (gravity +
    // damping alone lets a moving arm coast; a position hold brakes it, and holds even on
    // a stream with a constant offset). Still latched: deactivate + activate to resume.
    mode_ = Mode::ACTIVE;
    enter_hold(reason_);
    mode_ = Mode::SAFE;
    state_trusted_ = true;
    event_ = "state_continuous";
  }
  return true;
}

// A finite state rejected for joint j (a jump or an impossible position): counted, and the
// JUMPS_TO_FAULT-th within JUMP_WINDOW latches the safe command on an untrusted state.
void Supervisor::reject_state(std::size_t j) noexcept
{
  if (mode_ == Mode::SAFE) {return;}
  jump_times_[jumps_ % JUMPS_TO_FAULT] = clock_;
  ++jumps_;
  event_ = "position_jump";
  const double oldest = jump_times_[jumps_ % JUMPS_TO_FAULT];  // of the last three
  if (jumps_ < JUMPS_TO_FAULT || clock_ - oldest >= JUMP_WINDOW) {return;}
  std::snprintf(reason_buffer_, sizeof(reason_buffer_),
    "%d joint states within %g s were not the arm's (%s at %.4f: %+.4g from the last valid "
    "state %.1f ms before, limits [%.4f, %.4f]): the state cannot be trusted: gravity + "
    "damping on the states that follow", JUMPS_TO_FAULT, JUMP_WINDOW,
    s_.joints[j].c_str(), q_[j], q_[j] - last_q_[j], 1e3 * since_valid_, s_.lower[j],
    s_.upper[j]);
  fault("position_jump", reason_buffer_, false);
}

// The position and velocity guards; nullptr when the state is inside them.
const char * Supervisor::check_state() noexcept
{
  for (std::size_t i = 0; i < n_; ++i) {
    const double m = s_.position_margin;
    if (q_[i] < s_.lower[i] + m || q_[i] > s_.upper[i] - m) {
      std::snprintf(reason_buffer_, sizeof(reason_buffer_),
        "%s at %.4f leaves its limits [%.4f, %.4f] shrunk by %.3f",
        s_.joints[i].c_str(), q_[i], s_.lower[i], s_.upper[i], m);
      return reason_buffer_;
    }
    const double v = s_.velocity_limit[i] * (1.0 + s_.velocity_margin);
    if (std::abs(qd_[i]) > v) {
      std::snprintf(reason_buffer_, sizeof(reason_buffer_),
        "%s moves at %.4f, beyond its velocity limit x (1 + margin) = %.4f",
        s_.joints[i].c_str(), qd_[i], v);
      return reason_buffer_;
    }
  }
  return nullptr;
}

// A reference outside the limits (shrunk by reference_margin), whose stopping point at the
// acceleration limit (q + qd |qd| / (2 a)) is, too fast or accelerating beyond the
// acceleration limit; nullptr if none. A trajectory that stays inside the range without
// exceeding the acceleration limit passes at every sample (to stop before the edge at
// distance d from speed v takes d >= v^2 / (2 a)): the node path's check of the whole
// interpolation (control/reference/envelope.py) admits no trajectory this refuses.
const char * Supervisor::check_reference() noexcept
{
  for (std::size_t i = 0; i < n_; ++i) {
    const double m = s_.reference_margin;
    const double a = s_.acceleration_limit[i];
    const double stop = q_ref_[i] +
      (a > 0.0 && std::isfinite(a) ? qd_ref_[i] * std::abs(qd_ref_[i]) / (2.0 * a) : 0.0);
    if (q_ref_[i] < s_.lower[i] + m || q_ref_[i] > s_.upper[i] - m ||
      stop < s_.lower[i] + m - STOP_TOLERANCE || stop > s_.upper[i] - m + STOP_TOLERANCE ||
      std::abs(qd_ref_[i]) > s_.velocity_limit[i] ||
      std::abs(qdd_ref_[i]) > s_.acceleration_limit[i])
    {
      std::snprintf(reason_buffer_, sizeof(reason_buffer_),
        "the reference of %s (%.4f, %.4f/s, %.4f/s^2, stopping at %.4f) leaves its limits "
        "[%.4f, %.4f] shrunk by %.3f, its velocity limit %.4f or its acceleration limit "
        "%.4f: stopping at the acceleration limits, then holding the position reached",
        s_.joints[i].c_str(), q_ref_[i], qd_ref_[i], qdd_ref_[i], stop, s_.lower[i],
        s_.upper[i], m, s_.velocity_limit[i], s_.acceleration_limit[i]);
      return reason_buffer_;
    }
  }
  return nullptr;
}

// The reference refused: the hold (enter_hold), preceded by a controlled stop (header) when
// the controller was following a moving reference.
void Supervisor::refuse_reference(const char * why) noexcept
{
  bool moving = false;
  for (std::size_t i = 0; i < n_; ++i) {moving = moving || accepted_qd_[i] != 0.0;}
  moving = moving && have_accepted_ && mode_ == Mode::ACTIVE;
  enter_hold(why);
  if (!moving) {return;}
  brake_end_ = 0.0;
  for (std::size_t i = 0; i < n_; ++i) {
    const double a = s_.acceleration_limit[i];
    brake_time_[i] = a > 0.0 && std::isfinite(a) ? std::abs(accepted_qd_[i]) / a : 0.0;
    brake_end_ = std::max(brake_end_, brake_time_[i]);
  }
  braking_for_ = 0.0;  // at the accepted reference's time: update() brakes this cycle on
  braking_ = brake_end_ > 0.0;
}

// One cycle of the controlled stop: joint i at constant deceleration v_i / T_i for T_i =
// |v_i| / a_i from the last accepted reference (accepted_q_, accepted_qd_: no reference is
// accepted while braking) into q_ref_, qd_ref_, qdd_ref_; when every joint is at rest, the
// hold at the position the arm reached.
void Supervisor::brake(double dt) noexcept
{
  braking_for_ += dt;
  if (braking_for_ >= brake_end_) {
    braking_ = false;
    mode_ = Mode::ACTIVE;  // so that enter_hold takes the position reached
    enter_hold(reason_);
    return;
  }
  for (std::size_t i = 0; i < n_; ++i) {
    const double end = brake_time_[i];
    const double t = std::min(braking_for_, end);
    const double a = end > 0.0 ? accepted_qd_[i] / end : 0.0;
    q_ref_[i] = accepted_q_[i] + accepted_qd_[i] * t - 0.5 * a * t * t;
    qd_ref_[i] = accepted_qd_[i] - a * t;
    qdd_ref_[i] = braking_for_ < end ? -a : 0.0;
  }
}

// The configured law into tau_ [N m or N] (joint_laws.hpp: one class per mode, held to
// robodyn_ros' laws).
void Supervisor::compute_law() noexcept
{
  law_->torque(*dynamics_, law_settings_,
    LawInput{q_.data(), qd_.data(), q_ref_.data(), qd_ref_.data(), qdd_ref_.data(),
      kp_.data(), kd_.data(), wrench_}, tau_.data());
}

// The position hold. Derived: g(q) + M(q) a, a_i = w_i^2 (q_hold - q) - 2 w_i qd, the
// inverse dynamics at zero velocity (seed 000 eq. 29 with qd = 0, qdd = a; without g when
// the law leaves gravity to the robot). Given gains: g(q) + Kp (q_hold - q) - Kd qd.
void Supervisor::compute_hold() noexcept
{
  if (decoupled_hold_) {
    for (std::size_t i = 0; i < n_; ++i) {
      hold_acc_[i] = hold_w_[i] * hold_w_[i] * (hold_q_[i] - q_[i]) -
        2.0 * hold_w_[i] * qd_[i];
    }
    dynamics_->inverse_dynamics(q_.data(), zero_qd_.data(), hold_acc_.data(), tau_.data());
    if (!s_.include_gravity) {
      dynamics_->gravity(q_.data(), hold_acc_.data());
      for (std::size_t i = 0; i < n_; ++i) {tau_[i] -= hold_acc_[i];}
    }
    return;
  }
  if (s_.include_gravity) {
    dynamics_->gravity(q_.data(), tau_.data());
  } else {
    std::fill(tau_.begin(), tau_.end(), 0.0);
  }
  for (std::size_t i = 0; i < n_; ++i) {
    tau_[i] += hold_kp_[i] * (hold_q_[i] - q_[i]) - hold_kd_[i] * qd_[i];
  }
}

// The hold watches itself (torque_safety.hpp: watch_hold): a hold that drives a joint
// faster than at its start halves its bandwidths; said as the event hold_softened and in
// /diagnostics' hold_watch. The C++ loop closes in one cycle, where a derived hold does not
// ring; a hardware interface with latency of its own is where this acts.
void Supervisor::watch_own_hold() noexcept
{
  const int j = watch_hold(n_, qd_.data(), hold_guard_.data(), clock_, hold_w_.data(),
    hold_runaway_.data(), hold_settle_until_, hold_softenings_);
  if (j < 0) {return;}
  event_ = "hold_softened";
  std::snprintf(hold_buffer_, sizeof(hold_buffer_), "position hold runs away: %s at %.3g "
    "(a loop later than the hold was built for, or commands not applied); bandwidths "
    "halved (%d of %d)",
    s_.joints[static_cast<std::size_t>(j)].c_str(),
    std::abs(qd_[static_cast<std::size_t>(j)]), hold_softenings_, HOLD_SOFTENINGS);
}

// The state cannot be trusted: g at the last finite position, damping on a finite velocity.
void Supervisor::compute_gravity_damping() noexcept
{
  if (!have_last_q_) {
    std::copy(last_cmd_.begin(), last_cmd_.end(), tau_.begin());
    return;
  }
  if (s_.include_gravity) {
    dynamics_->gravity(last_q_.data(), tau_.data());
  } else {
    std::fill(tau_.begin(), tau_.end(), 0.0);
  }
  for (std::size_t i = 0; i < n_ && state_valid_; ++i) {  // damping on a valid state only
    tau_[i] -= s_.damping[i] * qd_[i];
  }
}

// Hold the position reached; gains derived there when hold_kp / hold_kd are empty.
void Supervisor::enter_hold(const char * reason) noexcept
{
  reason_ = reason;
  if (mode_ == Mode::HOLD) {return;}
  mode_ = Mode::HOLD;
  std::copy(last_q_.begin(), last_q_.end(), hold_q_.begin());  // the last valid position
  if (!derived_kp_ && !derived_kd_) {return;}
  dynamics_->mass_diagonal(hold_q_.data(), inertia_.data());
  if (decoupled_hold_) {
    arm_hold_watch(n_, last_qd_.data(), hold_guard_.data(), hold_runaway_.data());
    hold_settle_until_ = -std::numeric_limits<double>::infinity();
    hold_softenings_ = 0;
  }
  for (std::size_t i = 0; i < n_; ++i) {
    if (decoupled_hold_) {  // one cycle of latency: the loop closes in the hardware's cycle
      hold_w_[i] = hold_bandwidth(s_.effort_limit[i], inertia_[i], 0.0);
      continue;
    }
    if (derived_kp_) {hold_kp_[i] = hold_stiffness(s_.effort_limit[i], inertia_[i]);}
    if (derived_kd_) {hold_kd_[i] = critical_damping(hold_kp_[i], inertia_[i]);}
  }
}

// Latches the safe command: the position hold when the state is trusted, else gravity +
// damping. Stays until deactivate + activate.
void Supervisor::fault(
  const char * event, const char * reason, bool trusted) noexcept
{
  if (mode_ == Mode::SAFE) {return;}
  braking_ = false;
  if (trusted) {
    mode_ = Mode::ACTIVE;
    enter_hold(reason);
  }
  mode_ = Mode::SAFE;
  state_trusted_ = trusted;
  event_ = event;
  reason_ = reason;
  ++faults_;
}

}  // namespace robodyn_controllers
