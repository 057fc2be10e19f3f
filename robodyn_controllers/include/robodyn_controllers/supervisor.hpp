// The C++ control core's cycle, without ROS: one law (joint_laws.hpp) run under the
// supervisor, the same safety arithmetic as robodyn_ros/control/safety (the node path).
// Each cycle it judges the state (finite, plausible, inside the guards, not frozen), takes
// or refuses the reference (inside the limits, its stopping point too), runs the law, the
// hold or the safe command, watches the hold, observes collisions (momentum_observer.hpp),
// blends gains set while running (gain_blend.hpp) and clamps and rate-limits the torque
// (torque_safety.hpp). ComputedTorqueController is the ros2_control adapter over it: it
// reads the interfaces into the buffers below, calls cycle() and writes out(); tests drive
// it with plain arrays (test/test_supervisor.cpp).
//
// Modes (the node's vocabulary: docs/architecture.md): ACTIVE follows the reference; HOLD
// holds the position reached (no reference, a stale or refused one: a refused moving one
// first stops at the acceleration limits); SAFE is latched by a fault until activate():
// the position hold on a trusted state, else gravity + damping.
// cycle(), activate() and release() allocate nothing, take no lock and never throw.
#ifndef ROBODYN_CONTROLLERS__SUPERVISOR_HPP_
#define ROBODYN_CONTROLLERS__SUPERVISOR_HPP_

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "robodyn_controllers/dh_dynamics.hpp"
#include "robodyn_controllers/gain_blend.hpp"
#include "robodyn_controllers/joint_laws.hpp"
#include "robodyn_controllers/momentum_observer.hpp"
#include "robodyn_controllers/torque_safety.hpp"

namespace robodyn_controllers
{

// What a collision (collision_debounce cycles over a threshold) does.
enum class CollisionReaction {HOLD, COMPLIANT, REPORT};

// The supervisor's settings: the controller's parameters of the same names, expanded to n
// values per joint, and the joints' limits (effort [N m or N], velocity [rad/s or m/s],
// acceleration [rad/s^2 or m/s^2], position [rad or m]).
struct SupervisorSettings
{
  std::vector<std::string> joints;  // names, for the reasons
  std::vector<double> effort_limit, velocity_limit, acceleration_limit, lower, upper;
  std::vector<double> kp, kd;  // the law's gains (their units the law's)
  std::vector<double> hold_kp, hold_kd;  // empty: the derived, decoupled hold
  std::vector<double> damping;  // [N m s/rad] of the untrusted safe command
  double position_margin = 0.0, velocity_margin = 0.0, reference_margin = 0.0;
  double max_tracking_error = 0.0;  // [rad or m], 0: off
  double reference_timeout = 0.1;  // [s] without a written reference while chained
  double max_torque_rate = 1000.0;  // [N m/s]
  double gain_ramp_time = 0.0;  // [s]
  double nominal_period = 0.001;  // [s]
  bool include_gravity = true;
  std::vector<double> collision_thresholds;  // [N m], n; empty: no observer
  int collision_debounce = 1;
  CollisionReaction collision_reaction = CollisionReaction::HOLD;
  double observer_gain = 100.0;  // [1/s]
};

class Supervisor
{
public:
  enum class Mode {ACTIVE, HOLD, SAFE};
  // A state further than this from the previous one [s] is a gap the collision observer
  // holds its estimate across (robodyn_ros.control.collision_watch.MAX_STEP).
  static constexpr double OBSERVER_MAX_STEP = 0.005;

  // Sizes everything for settings.joints (not real-time); throws std::invalid_argument
  // naming a setting of the wrong size or value. `dynamics` and `law` (configured for the
  // same joints) must outlive the supervisor.
  void configure(
    const SupervisorSettings & settings, DhDynamics & dynamics, JointLaw & law,
    const LawSettings & law_settings);

  // This cycle's state, n values each, written by the adapter before activate(), cycle()
  // or release(); effort() only when the hardware reports it (has_effort: the rate limit's
  // first start).
  double * q() noexcept {return q_.data();}
  double * qd() noexcept {return qd_.data();}
  double * effort() noexcept {return effort_.data();}

  // Starts from the hold at the state in q(), qd() (`finite`: it was read and is finite).
  // The rate limit starts from `commanded` (the hardware's effort command, NaN where none),
  // else the effort state (when `has_effort`), else g(q); `restart` (a deactivate and
  // activate within one cycle: the release step was never applied) starts it from the
  // command in force before the release.
  void activate(bool finite, bool has_effort, const double * commanded, bool restart) noexcept;
  // One cycle `dt` [s] after the last (<= 0 or not finite: a repeated time, counted as one
  // period by the rate limit), at `now` [s] on the same clock (gain blends, adaptation):
  // `reference` 3n values (positions, velocities, accelerations) when written this cycle,
  // else nullptr; `chained` whether a controller feeds the reference. Returns out().
  const double * cycle(
    double now, double dt, bool finite, const double * reference, bool chained) noexcept;
  // The task-space law's feed-forward wrench for the next cycle() (6, DH frame 0;
  // LawInput::wrench), or nullptr; the caller keeps it valid through that cycle.
  void feed_wrench(const double * wrench) noexcept {wrench_ = wrench;}
  // The last command before the interfaces are released: one rate-limited step towards
  // the hold at the release position (the trip's hold when latched, gravity + damping on
  // an untrusted state). Returns out().
  const double * release(bool finite) noexcept;
  // Gains for the law, n each, checked (any thread; update() blends them in).
  void request_gains(const std::vector<double> & kp, const std::vector<double> & kd)
  {
    gains_.request(kp, kd);
  }
  // A tool spring for the task-space laws (6 stiffnesses, the damping ratio), checked (any
  // thread; update() blends it in over gain_ramp_time, as the gains).
  void request_spring(const std::array<double, 6> & stiffness, double damping_ratio)
  {
    spring_.request(std::vector<double>(stiffness.begin(), stiffness.end()),
      std::vector<double>(6, damping_ratio));
  }
  // The law's settings in force (the tool spring as blended so far).
  const LawSettings & law_settings() const noexcept {return law_settings_;}

  // What the cycle did, for the adapter's topics and /diagnostics.
  const double * out() const noexcept {return out_.data();}
  Mode mode() const noexcept {return mode_;}
  bool tracking() const noexcept {return mode_ == Mode::ACTIVE || braking_;}
  const std::vector<double> & reference_position() const noexcept {return q_ref_;}
  const std::vector<double> & reference_velocity() const noexcept {return qd_ref_;}
  // The position this cycle's command tracks: the reference while following it or
  // stopping, the hold position when holding.
  const std::vector<double> & tracked_position() const noexcept
  {
    return tracking() ? q_ref_ : hold_q_;
  }
  const std::vector<double> & law_kp() const noexcept {return kp_;}
  const double * estimate() const noexcept {return law_ ? law_->estimate() : nullptr;}
  const char * event() const noexcept {return event_;}
  const char * reason() const noexcept {return reason_;}
  bool trusted() const noexcept {return state_trusted_;}
  bool compliant() const noexcept {return compliant_;}
  bool in_contact() const noexcept {return in_contact_;}
  unsigned long faults() const noexcept {return faults_;}
  unsigned long cycles() const noexcept {return cycles_;}
  unsigned long collisions() const noexcept {return collisions_;}
  const LimitCounts & counts() const noexcept {return counts_;}
  const char * collision_text() const noexcept {return collision_buffer_;}
  const char * hold_text() const noexcept {return hold_buffer_;}
  bool observing() const noexcept {return observe_;}
  // The external torque estimate [N m or N], n values, with an observer; else nullptr.
  const double * residual() const noexcept {return observe_ ? observer_.residual() : nullptr;}

private:
  const double * wrench_ = nullptr;  // feed_wrench()'s, for compute_law
  bool accept_state(bool finite, double dt) noexcept;
  void reject_state(std::size_t j) noexcept;
  const char * check_state() noexcept;  // formats its reason into reason_buffer_
  void judge_state(bool finite, bool valid) noexcept;
  void follow(double dt, const double * reference, bool chained) noexcept;
  bool take_reference(const double * reference, double period) noexcept;
  const char * check_reference() noexcept;
  void refuse_reference(const char * why) noexcept;
  void check_tracking() noexcept;
  void brake(double dt) noexcept;
  void command(double now, bool valid) noexcept;
  void compute_law() noexcept;
  void compute_hold() noexcept;
  void compute_gravity_damping() noexcept;
  void enter_hold(const char * reason) noexcept;
  void fault(const char * event, const char * reason, bool trusted) noexcept;
  void observe_collision(bool valid, double dt) noexcept;
  void watch_own_hold() noexcept;

  SupervisorSettings s_;
  DhDynamics * dynamics_ = nullptr;
  JointLaw * law_ = nullptr;
  LawSettings law_settings_;
  std::size_t n_ = 0;

  // per joint, sized in configure
  std::vector<double> q_, qd_, effort_, q_ref_, qd_ref_, qdd_ref_, tau_, gravity_;
  std::vector<double> kp_, kd_, hold_kp_, hold_kd_, hold_q_, last_q_, out_, last_cmd_;
  std::vector<double> last_qd_;  // with last_q_: the last valid state (plausible, finite)
  std::vector<double> previous_q_;  // the previous finite sample, valid or not
  std::vector<double> applied_cmd_;  // the command in force before release()
  std::vector<double> inertia_;  // M_jj at the hold position
  // the derived hold (torque_safety.hpp): bandwidth per joint [rad/s], its acceleration and
  // a zero velocity for the inverse dynamics that gives M(q) a + g(q)
  std::vector<double> hold_w_, hold_acc_, zero_qd_;
  // the hold watching itself (torque_safety.hpp: watch_hold): the velocity guard, the
  // speeds above which the hold runs away, until when a halving settles [s of clock_]
  std::vector<double> hold_guard_, hold_runaway_;
  double hold_settle_until_ = 0.0;
  int hold_softenings_ = 0;
  char hold_buffer_[256] = "none";  // the last halving, for /diagnostics (hold_watch)
  bool decoupled_hold_ = true;  // neither hold_kp nor hold_kd given
  bool derived_kp_ = true, derived_kd_ = true;  // hold gains derived where the hold starts
  GainBlend gains_;  // kp and kd set while running, blended in over gain_ramp_time
  GainBlend spring_;  // the tool spring (K_x, zeta x 6) set while running, the same way
  std::array<double, 6> spring_zeta_{};
  bool have_reference_ = false;  // q_ref_ holds a reference taken since the activation
  // Consecutive cycles whose reference position repeated the last one; AT_REST_CYCLES of
  // them and the reference is at rest (a trajectory's end, not a clock that repeated a
  // time: a JointTrajectoryController keeps feeding the last point's velocity).
  int unchanged_cycles_ = 0;
  static constexpr int AT_REST_CYCLES = 10;
  // A reference refused while following one (check_reference) starts a controlled stop:
  // each joint decelerates from the last accepted reference (position, velocity) at its
  // acceleration limit to rest, the law tracking that, then the hold starts where the arm
  // came to rest. check_reference admits only references whose stopping point is inside
  // the range, so the stop is too (a hold at the position reached let the arm's momentum
  // carry it past the position guard: a latched trip at the range's edge).
  std::vector<double> accepted_q_, accepted_qd_, brake_time_;  // brake_time_ [s] per joint
  bool have_accepted_ = false;  // accepted_q_ holds a reference accepted since activation
  bool braking_ = false;
  double braking_for_ = 0.0, brake_end_ = 0.0;  // [s] since the stop began, its length
  // A stopping point this far outside the range is floating-point noise [rad or m].
  static constexpr double STOP_TOLERANCE = 1e-9;

  Mode mode_ = Mode::HOLD;
  const char * event_ = "none";   // the node's event names (cycle_events.py)
  const char * reason_ = "inactive";
  bool state_trusted_ = false;
  bool have_last_q_ = false;
  bool state_valid_ = false;  // this cycle's state is finite and plausible
  bool have_previous_ = false;
  double since_valid_ = 0.0;  // time since the last valid state [s]
  double frozen_for_ = 0.0;  // time the state stream has repeated itself [s]
  double valid_for_ = 0.0;  // time of continuous valid states in safe mode, untrusted [s]
  double jump_times_[JUMPS_TO_FAULT] = {0.0};  // clock_ of the last rejected jumps
  int jumps_ = 0;
  double clock_ = 0.0;  // time since activation [s], summed cycle periods
  double missing_reference_ = 0.0;  // time since the reference was last written [s]
  unsigned long faults_ = 0, cycles_ = 0;
  LimitCounts counts_;
  char reason_buffer_[512] = {0};  // a guard's reason, formatted without allocating

  // Collision detection (off without thresholds).
  MomentumObserver observer_;
  bool observe_ = false;
  int over_cycles_ = 0;
  bool in_contact_ = false;
  bool compliant_ = false;  // the latched safe command is a chosen gravity + damping
  double observer_clock_ = 0.0;  // [s] since activation, the cycles' periods summed
  unsigned long collisions_ = 0;
  char collision_buffer_[512] = {0};  // the last collision's line
};

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__SUPERVISOR_HPP_
