// ComputedTorqueController, the cycle's safety: the state read and judged, the reference
// taken and checked, the law, the hold and its watch, the faults, the collision observer.
#include "robodyn_controllers/computed_torque_controller.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "computed_torque_internal.hpp"

namespace robodyn_controllers
{
// The observer on this cycle's state with the command in force since the previous one
// (last_cmd_, before this cycle's limit); a collision is the configured reaction at once.
// Declared only while the controller commands (active or its hold), as the node's
// CollisionWatch (supervisor.commanding): in safe mode the arm is held already, and the
// state that put it there may be the lie (a jumping stream, once accepted again, moves
// the estimate as a push would); the estimate itself is still published.
void ComputedTorqueController::observe_collision(bool valid, double dt) noexcept
{
  observer_clock_ += dt > 0.0 ? dt : nominal_period_;  // as the rate limit counts it
  if (!valid || !observer_.update(dynamics_, observer_clock_, q_.data(), qd_.data(),
    last_cmd_.data()))
  {
    return;
  }
  const double * r = observer_.residual();
  bool over = false;
  for (std::size_t i = 0; i < n_; ++i) {over = over || std::abs(r[i]) > collision_threshold_[i];}
  if (!over || mode_ == Mode::SAFE) {
    over_cycles_ = 0;
    in_contact_ = false;
    return;
  }
  if (++over_cycles_ < params_.collision.debounce || in_contact_) {return;}
  in_contact_ = true;
  ++collisions_;
  int used = std::snprintf(collision_buffer_, sizeof(collision_buffer_),
    "collision: external torque estimate");
  for (std::size_t i = 0; i < n_ && used > 0 &&
    static_cast<std::size_t>(used) < sizeof(collision_buffer_); ++i)
  {
    if (std::abs(r[i]) > collision_threshold_[i]) {
      used += std::snprintf(collision_buffer_ + used, sizeof(collision_buffer_) - used,
        " %s %.3g N m (threshold %.3g)", params_.joints[i].c_str(), r[i],
        collision_threshold_[i]);
    }
  }
  if (reaction_ == Reaction::HOLD) {
    fault("collision", collision_buffer_, true);
  } else if (reaction_ == Reaction::COMPLIANT) {
    compliant_ = true;
    fault("collision", collision_buffer_, false);
  } else {
    event_ = "collision";
  }
}

// q, qd (and the effort applied) from the state interfaces; false if one is not finite.
bool ComputedTorqueController::read_state() noexcept
{
  const std::size_t per_joint = params_.use_effort_state ? 3 : 2;
  has_effort_state_ = params_.use_effort_state;
  bool finite = state_interfaces_.size() == per_joint * n_;
  for (std::size_t i = 0; finite && i < n_; ++i) {
    const auto q = state_interfaces_[per_joint * i].get_optional();
    const auto qd = state_interfaces_[per_joint * i + 1].get_optional();
    q_[i] = q.has_value() ? *q : NaN;
    qd_[i] = qd.has_value() ? *qd : NaN;
    if (has_effort_state_) {
      const auto e = state_interfaces_[per_joint * i + 2].get_optional();
      effort_[i] = e.has_value() ? *e : NaN;
    }
    finite = std::isfinite(q_[i]) && std::isfinite(qd_[i]);
  }
  return finite;
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
bool ComputedTorqueController::accept_state(bool finite, double dt) noexcept
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
      velocity_limit_.data(), nullptr, n_,
      std::max(after_previous ? dt : since_valid_, JUMP_MIN_ELAPSED), JUMP_TOLERANCE);
  }
  for (std::size_t i = 0; finite && j < 0 && i < n_; ++i) {
    if (q_[i] < lower_[i] - IMPOSSIBLE_BEYOND || q_[i] > upper_[i] + IMPOSSIBLE_BEYOND) {
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
void ComputedTorqueController::reject_state(std::size_t j) noexcept
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
    params_.joints[j].c_str(), q_[j], q_[j] - last_q_[j], 1e3 * since_valid_, lower_[j],
    upper_[j]);
  fault("position_jump", reason_buffer_, false);
}

// The position and velocity guards; nullptr when the state is inside them.
const char * ComputedTorqueController::check_state() noexcept
{
  for (std::size_t i = 0; i < n_; ++i) {
    const double m = params_.position_margin;
    if (q_[i] < lower_[i] + m || q_[i] > upper_[i] - m) {
      std::snprintf(reason_buffer_, sizeof(reason_buffer_),
        "%s at %.4f leaves its limits [%.4f, %.4f] shrunk by %.3f",
        params_.joints[i].c_str(), q_[i], lower_[i], upper_[i], m);
      return reason_buffer_;
    }
    const double v = velocity_limit_[i] * (1.0 + params_.velocity_margin);
    if (std::abs(qd_[i]) > v) {
      std::snprintf(reason_buffer_, sizeof(reason_buffer_),
        "%s moves at %.4f, beyond its velocity limit x (1 + margin) = %.4f",
        params_.joints[i].c_str(), qd_[i], v);
      return reason_buffer_;
    }
  }
  return nullptr;
}

// Takes the chained reference if the controller before this one wrote it this cycle
// (each value is consumed: NaN until written again). False when it was not written.
bool ComputedTorqueController::take_reference(double period) noexcept
{
  const auto & refs = ordered_exported_reference_interfaces_;
  bool written = refs.size() == REFERENCES * n_;
  for (std::size_t i = 0; written && i < n_; ++i) {
    const auto p = refs[REFERENCES * i]->get_optional();
    written = p.has_value() && std::isfinite(*p);
  }
  if (!written) {
    missing_reference_ += period;
    return false;
  }
  bool unchanged = true;
  for (std::size_t i = 0; i < n_; ++i) {
    double v[REFERENCES];
    for (std::size_t k = 0; k < REFERENCES; ++k) {
      const auto value = refs[REFERENCES * i + k]->get_optional();
      v[k] = value.has_value() && std::isfinite(*value) ? *value : 0.0;  // absent: 0
      (void)refs[REFERENCES * i + k]->set_value(NaN);
    }
    unchanged = unchanged && have_reference_ && v[0] == q_ref_[i];
    q_ref_[i] = v[0];
    qd_ref_[i] = v[1];
    qdd_ref_[i] = v[2];
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

// A reference outside the limits (shrunk by reference_margin), whose stopping point at the
// acceleration limit (q + qd |qd| / (2 a)) is, too fast or accelerating beyond the
// acceleration limit; nullptr if none. A trajectory that stays inside the range without
// exceeding the acceleration limit passes at every sample (to stop before the edge at
// distance d from speed v takes d >= v^2 / (2 a)): the node path's check of the whole
// interpolation (control/reference/envelope.py) admits no trajectory this refuses.
const char * ComputedTorqueController::check_reference() noexcept
{
  for (std::size_t i = 0; i < n_; ++i) {
    const double m = params_.reference_margin;
    const double a = acceleration_limit_[i];
    const double stop = q_ref_[i] +
      (a > 0.0 && std::isfinite(a) ? qd_ref_[i] * std::abs(qd_ref_[i]) / (2.0 * a) : 0.0);
    if (q_ref_[i] < lower_[i] + m || q_ref_[i] > upper_[i] - m ||
      stop < lower_[i] + m - STOP_TOLERANCE || stop > upper_[i] - m + STOP_TOLERANCE ||
      std::abs(qd_ref_[i]) > velocity_limit_[i] || std::abs(qdd_ref_[i]) > acceleration_limit_[i])
    {
      std::snprintf(reason_buffer_, sizeof(reason_buffer_),
        "the reference of %s (%.4f, %.4f/s, %.4f/s^2, stopping at %.4f) leaves its limits "
        "[%.4f, %.4f] shrunk by %.3f, its velocity limit %.4f or its acceleration limit "
        "%.4f: stopping at the acceleration limits, then holding the position reached",
        params_.joints[i].c_str(), q_ref_[i], qd_ref_[i], qdd_ref_[i], stop, lower_[i],
        upper_[i], m, velocity_limit_[i], acceleration_limit_[i]);
      return reason_buffer_;
    }
  }
  return nullptr;
}

// The reference refused: the hold (enter_hold), preceded by a controlled stop (header) when
// the controller was following a moving reference.
void ComputedTorqueController::refuse_reference(const char * why) noexcept
{
  bool moving = false;
  for (std::size_t i = 0; i < n_; ++i) {moving = moving || accepted_qd_[i] != 0.0;}
  moving = moving && have_accepted_ && mode_ == Mode::ACTIVE;
  enter_hold(why);
  if (!moving) {return;}
  brake_end_ = 0.0;
  for (std::size_t i = 0; i < n_; ++i) {
    const double a = acceleration_limit_[i];
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
void ComputedTorqueController::brake(double dt) noexcept
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
void ComputedTorqueController::compute_law() noexcept
{
  law_->torque(dynamics_, law_settings_,
    LawInput{q_.data(), qd_.data(), q_ref_.data(), qd_ref_.data(), qdd_ref_.data(),
      kp_.data(), kd_.data()}, tau_.data());
}

// The position hold. Derived: g(q) + M(q) a, a_i = w_i^2 (q_hold - q) - 2 w_i qd, the
// inverse dynamics at zero velocity (seed 000 eq. 29 with qd = 0, qdd = a; without g when
// the law leaves gravity to the robot). Given gains: g(q) + Kp (q_hold - q) - Kd qd.
void ComputedTorqueController::compute_hold() noexcept
{
  if (decoupled_hold_) {
    for (std::size_t i = 0; i < n_; ++i) {
      hold_acc_[i] = hold_w_[i] * hold_w_[i] * (hold_q_[i] - q_[i]) -
        2.0 * hold_w_[i] * qd_[i];
    }
    dynamics_.inverse_dynamics(q_.data(), zero_qd_.data(), hold_acc_.data(), tau_.data());
    if (!params_.include_gravity) {
      dynamics_.gravity(q_.data(), hold_acc_.data());
      for (std::size_t i = 0; i < n_; ++i) {tau_[i] -= hold_acc_[i];}
    }
    return;
  }
  if (params_.include_gravity) {
    dynamics_.gravity(q_.data(), tau_.data());
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
void ComputedTorqueController::watch_own_hold() noexcept
{
  const int j = watch_hold(n_, qd_.data(), hold_guard_.data(), clock_, hold_w_.data(),
    hold_runaway_.data(), hold_settle_until_, hold_softenings_);
  if (j < 0) {return;}
  event_ = "hold_softened";
  std::snprintf(hold_buffer_, sizeof(hold_buffer_), "position hold runs away: %s at %.3g "
    "(a loop later than the hold was built for, or commands not applied); bandwidths "
    "halved (%d of %d)",
    params_.joints[static_cast<std::size_t>(j)].c_str(),
    std::abs(qd_[static_cast<std::size_t>(j)]), hold_softenings_, HOLD_SOFTENINGS);
}

// The state cannot be trusted: g at the last finite position, damping on a finite velocity.
void ComputedTorqueController::compute_gravity_damping() noexcept
{
  if (!have_last_q_) {
    std::copy(last_cmd_.begin(), last_cmd_.end(), tau_.begin());
    return;
  }
  if (params_.include_gravity) {
    dynamics_.gravity(last_q_.data(), tau_.data());
  } else {
    std::fill(tau_.begin(), tau_.end(), 0.0);
  }
  for (std::size_t i = 0; i < n_ && state_valid_; ++i) {  // damping on a valid state only
    tau_[i] -= damping_[i] * qd_[i];
  }
}

// Hold the position reached; gains derived there when hold_kp / hold_kd are empty.
void ComputedTorqueController::enter_hold(const char * reason) noexcept
{
  reason_ = reason;
  if (mode_ == Mode::HOLD) {return;}
  mode_ = Mode::HOLD;
  std::copy(last_q_.begin(), last_q_.end(), hold_q_.begin());  // the last valid position
  if (!derived_kp_ && !derived_kd_) {return;}
  dynamics_.mass_diagonal(hold_q_.data(), inertia_.data());
  if (decoupled_hold_) {
    arm_hold_watch(n_, last_qd_.data(), hold_guard_.data(), hold_runaway_.data());
    hold_settle_until_ = -std::numeric_limits<double>::infinity();
    hold_softenings_ = 0;
  }
  for (std::size_t i = 0; i < n_; ++i) {
    if (decoupled_hold_) {  // one cycle of latency: the loop closes in the hardware's cycle
      hold_w_[i] = hold_bandwidth(effort_limit_[i], inertia_[i], 0.0);
      continue;
    }
    if (derived_kp_) {hold_kp_[i] = hold_stiffness(effort_limit_[i], inertia_[i]);}
    if (derived_kd_) {hold_kd_[i] = critical_damping(hold_kp_[i], inertia_[i]);}
  }
}

// Latches the safe command: the position hold when the state is trusted, else gravity +
// damping. Stays until deactivate + activate.
void ComputedTorqueController::fault(
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
