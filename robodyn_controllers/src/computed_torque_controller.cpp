// robodyn_controllers/ComputedTorqueController; see the header for what it does.
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

#include "hardware_interface/types/hardware_interface_type_values.hpp"

namespace robodyn_controllers
{
using controller_interface::CallbackReturn;
using controller_interface::InterfaceConfiguration;
using controller_interface::interface_configuration_type;
using controller_interface::return_type;
using hardware_interface::HW_IF_ACCELERATION;
using hardware_interface::HW_IF_EFFORT;
using hardware_interface::HW_IF_POSITION;
using hardware_interface::HW_IF_VELOCITY;

namespace
{
constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t REFERENCES = 3;  // position, velocity, acceleration per joint
// /diagnostics keys, in order (values are filled in place in the real-time loop)
constexpr const char * KEYS[] = {"state", "reason", "event", "mode", "safe_command",
  "chained", "faults", "clamped", "rate_limited", "cycles", "records_dropped",
  "external_torque", "last_collision", "collisions", "hold_watch"};
constexpr std::size_t KEY_COUNT = sizeof(KEYS) / sizeof(KEYS[0]);
constexpr std::size_t TEXT = 256;  // capacity reserved for each diagnostics string
// The publishing thread drains the cycle records this often; the ring holds a second.
constexpr auto PUBLISH_PERIOD = std::chrono::milliseconds(2);
constexpr std::size_t RING_RECORDS = 1000;
// A change of mode, event or fault count is published this soon [s], not a period later.
constexpr double DIAGNOSTICS_SPACING = 0.01;
// A state further than this from the previous one [s] is a gap the collision observer
// holds its estimate across (robodyn_ros.control.collision_watch.MAX_STEP).
constexpr double OBSERVER_MAX_STEP = 0.005;

const char * mode_name(ComputedTorqueController::Mode mode)
{
  switch (mode) {
    case ComputedTorqueController::Mode::ACTIVE: return "active";
    case ComputedTorqueController::Mode::HOLD: return "hold";
    default: return "safe";
  }
}

// Expands a gain list of 1 or n values to n; false (with the reason) otherwise.
bool expand(
  const std::vector<double> & values, std::size_t n, bool allow_empty, const char * name,
  std::vector<double> & out, std::string & error)
{
  if (values.size() == 1 || values.size() == n) {
    out.assign(n, values[0]);
    if (values.size() == n) {out = values;}
    return true;
  }
  if (allow_empty && values.empty()) {
    out.clear();
    return true;
  }
  error = std::string(name) + ": expected 1 or " + std::to_string(n) + " values, got " +
    std::to_string(values.size());
  return false;
}

void assign(std::string & target, const char * text)
{
  target.assign(text, std::min(std::strlen(text), TEXT - 1));
}
}  // namespace

CallbackReturn ComputedTorqueController::on_init()
{
  try {
    param_listener_ = std::make_shared<ParamListener>(get_node());
  } catch (const std::exception & e) {
    RCLCPP_ERROR(get_node()->get_logger(), "robodyn controller parameters: %s", e.what());
    return CallbackReturn::ERROR;
  }
  return CallbackReturn::SUCCESS;
}

InterfaceConfiguration ComputedTorqueController::command_interface_configuration() const
{
  InterfaceConfiguration cfg{interface_configuration_type::INDIVIDUAL, {}};
  for (const auto & joint : params_.joints) {
    cfg.names.push_back(joint + "/" + HW_IF_EFFORT);
  }
  return cfg;
}

InterfaceConfiguration ComputedTorqueController::state_interface_configuration() const
{
  InterfaceConfiguration cfg{interface_configuration_type::INDIVIDUAL, {}};
  for (const auto & joint : params_.joints) {
    cfg.names.push_back(joint + "/" + HW_IF_POSITION);
    cfg.names.push_back(joint + "/" + HW_IF_VELOCITY);
    if (params_.use_effort_state) {cfg.names.push_back(joint + "/" + HW_IF_EFFORT);}
  }
  return cfg;
}

// The DH rows, inertials and limits robodyn export wrote, checked (model_check.hpp: every
// value finite, the limits and inertias physical, the rows those of the robot in
// controller_manager's robot_description), into DhDynamics.
bool ComputedTorqueController::load_model(std::string & error)
{
  links_.assign(n_, DhLink{});
  std::vector<JointLimits> limits(n_);
  for (std::size_t i = 0; i < n_; ++i) {
    const std::string & joint = params_.joints[i];
    const auto found = params_.model.joints_map.find(joint);
    if (found == params_.model.joints_map.end() || found->second.dh.size() != 5) {
      error = "model." + joint + ": no DH row (write the file with robodyn export)";
      return false;
    }
    const auto & row = found->second;
    const struct {const char * field; const std::vector<double> values;} fields[] = {
      {"dh", row.dh}, {"com", row.com}, {"inertia", row.inertia}, {"mass", {row.mass}},
      {"viscous", {row.viscous}}, {"coulomb", {row.coulomb}}};
    for (const auto & f : fields) {
      for (std::size_t k = 0; k < f.values.size(); ++k) {
        if (!std::isfinite(f.values[k])) {
          error = "model." + joint + "." + f.field + "[" + std::to_string(k) +
            "]: not finite (joint " + std::to_string(i + 1) + "; valid: a finite number)";
          return false;
        }
      }
    }
    DhLink & l = links_[i];
    l.a = row.dh[0]; l.alpha = row.dh[1]; l.d = row.dh[2]; l.theta0 = row.dh[3];
    l.beta = row.dh[4]; l.prismatic = row.prismatic; l.mass = row.mass;
    std::copy(row.com.begin(), row.com.end(), l.com.begin());
    std::copy(row.inertia.begin(), row.inertia.end(), l.inertia.begin());
    l.viscous = row.viscous; l.coulomb = row.coulomb; l.smoothing = params_.friction_smoothing;
    limits[i] = {row.effort_limit, row.velocity_limit, row.acceleration_limit,
      row.position_limits[0], row.position_limits[1]};
    if (!(limits[i].lower < limits[i].upper)) {
      error = "model." + joint + ".position_limits: lower must be below upper";
      return false;
    }
  }
  std::vector<bool> continuous;
  error = check_against_description(get_robot_description(), params_.joints, links_, limits,
    continuous);
  if (!error.empty()) {return false;}
  try {
    dynamics_.configure(links_, {params_.gravity[0], params_.gravity[1], params_.gravity[2]});
  } catch (const std::exception & e) {
    error = std::string("model: ") + e.what();
    return false;
  }
  effort_limit_.assign(n_, 0.0);
  velocity_limit_.assign(n_, 0.0);
  acceleration_limit_.assign(n_, 0.0);
  lower_.assign(n_, 0.0);
  upper_.assign(n_, 0.0);
  for (std::size_t i = 0; i < n_; ++i) {
    effort_limit_[i] = limits[i].effort;
    velocity_limit_[i] = limits[i].velocity;
    acceleration_limit_[i] = limits[i].acceleration;
    lower_[i] = limits[i].lower;
    upper_[i] = limits[i].upper;
  }
  derive_acceleration_limits();
  for (std::size_t i = 0; i < n_; ++i) {limits[i].acceleration = acceleration_limit_[i];}
  error = check_limits_and_inertia(params_.joints, links_, limits, continuous,
    {params_.gravity[0], params_.gravity[1], params_.gravity[2]});
  return error.empty();
}

// acceleration_limit 0: effort_limit / the largest M_jj(q) over 17 configurations spread
// over the joint ranges (the acceleration the effort limit gives that joint anywhere).
void ComputedTorqueController::derive_acceleration_limits()
{
  std::vector<JointLimits> ranges(n_);
  for (std::size_t i = 0; i < n_; ++i) {
    ranges[i].lower = lower_[i];
    ranges[i].upper = upper_[i];
  }
  std::vector<double> q(n_), diag(n_), most(n_, 0.0);
  for (int sample = 0; sample < 17; ++sample) {
    spread_configuration(sample, ranges, q);
    dynamics_.mass_diagonal(q.data(), diag.data());
    for (std::size_t i = 0; i < n_; ++i) {most[i] = std::max(most[i], diag[i]);}
  }
  for (std::size_t i = 0; i < n_; ++i) {
    if (acceleration_limit_[i] == 0.0 && most[i] > 0.0) {
      acceleration_limit_[i] = effort_limit_[i] / most[i];
    }
  }
}

bool ComputedTorqueController::load_collision(std::string & error)
{
  observe_ = !params_.collision.thresholds.empty();
  std::snprintf(collision_buffer_, sizeof(collision_buffer_), "%s",
    observe_ ? "none" : "off (collision.thresholds empty)");
  if (!observe_) {return true;}
  if (!expand(params_.collision.thresholds, n_, false, "collision.thresholds",
    collision_threshold_, error))
  {
    return false;
  }
  for (double v : collision_threshold_) {
    if (!(v > 0.0)) {
      error = "collision.thresholds: every value must be > 0 N m, got " + std::to_string(v);
      return false;
    }
  }
  const auto & reaction = params_.collision.reaction;
  reaction_ = reaction == "compliant" ? Reaction::COMPLIANT :
    (reaction == "report" ? Reaction::REPORT : Reaction::HOLD);
  try {
    observer_.configure(n_, params_.collision.gain, OBSERVER_MAX_STEP);
  } catch (const std::invalid_argument & e) {
    error = e.what();
    return false;
  }
  return true;
}

// The observer on this cycle's state with the command in force since the previous one
// (last_cmd_, before this cycle's limit); a collision is the configured reaction at once.
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
  if (!over) {
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
  if (mode_ == Mode::SAFE) {return;}  // already latched: counted and said
  if (reaction_ == Reaction::HOLD) {
    fault("collision", collision_buffer_, true);
  } else if (reaction_ == Reaction::COMPLIANT) {
    compliant_ = true;
    fault("collision", collision_buffer_, false);
  } else {
    event_ = "collision";
  }
}

bool ComputedTorqueController::load_gains(std::string & error)
{
  return expand(params_.kp, n_, false, "kp", kp_, error) &&
         expand(params_.kd, n_, false, "kd", kd_, error) &&
         expand(params_.hold_kp, n_, true, "hold_kp", hold_kp_, error) &&
         expand(params_.hold_kd, n_, true, "hold_kd", hold_kd_, error) &&
         expand(params_.damping, n_, false, "damping", damping_, error);
}

CallbackReturn ComputedTorqueController::on_configure(const rclcpp_lifecycle::State &)
{
  params_ = param_listener_->get_params();
  n_ = params_.joints.size();
  std::string error;
  law_ = params_.mode == "feedforward" ? Law::FEEDFORWARD :
    (params_.mode == "gravity" ? Law::GRAVITY : Law::COMPUTED_TORQUE);
  if (!load_model(error) || !load_gains(error) || !load_collision(error)) {
    RCLCPP_ERROR(get_node()->get_logger(), "robodyn controller: %s", error.c_str());
    return CallbackReturn::ERROR;
  }
  for (auto * v : {&q_, &qd_, &effort_, &q_ref_, &qd_ref_, &qdd_ref_, &acc_, &tau_, &gravity_,
      &hold_q_, &last_q_, &last_qd_, &previous_q_, &out_, &last_cmd_, &inertia_,
      &applied_cmd_, &hold_w_, &hold_acc_, &zero_qd_, &hold_guard_, &hold_runaway_})
  {
    v->assign(n_, 0.0);
  }
  for (std::size_t i = 0; i < n_; ++i) {  // the guard check_state() applies
    hold_guard_[i] = velocity_limit_[i] * (1.0 + params_.velocity_margin);
  }
  if (hold_kp_.empty()) {hold_kp_.assign(n_, NaN);}  // derived when a hold starts
  if (hold_kd_.empty()) {hold_kd_.assign(n_, NaN);}
  derived_kp_ = std::isnan(hold_kp_[0]);
  derived_kd_ = std::isnan(hold_kd_[0]);
  decoupled_hold_ = derived_kp_ && derived_kd_;
  auto node = get_node();
  reference_topic_ = node->create_publisher<JointStateMsg>("~/reference", 10);
  commands_topic_ = node->create_publisher<CommandsMsg>("~/commands", 10);
  diagnostics_topic_ = node->create_publisher<DiagnosticsMsg>("/diagnostics", 10);
  diagnostics_publisher_ =
    std::make_unique<realtime_tools::RealtimePublisher<DiagnosticsMsg>>(diagnostics_topic_);
  reference_msg_.name = params_.joints;
  reference_msg_.position.assign(n_, 0.0);
  reference_msg_.velocity.assign(n_, 0.0);
  reference_msg_.effort.assign(n_, 0.0);
  commands_msg_.data.assign(n_, 0.0);
  diagnostics_msg_.status.resize(1);
  auto & status = diagnostics_msg_.status[0];
  status.name = node->get_name();
  status.hardware_id = params_.model_name;
  status.message.reserve(2 * TEXT);
  status.values.resize(KEY_COUNT);
  for (std::size_t k = 0; k < KEY_COUNT; ++k) {
    status.values[k].key = KEYS[k];
    status.values[k].value.reserve(TEXT);
  }
  const unsigned int rate = get_update_rate();
  nominal_period_ = rate > 0 ? 1.0 / rate : 0.001;
  // the records: reference position, velocity, the command, and with collision detection
  // the external torque estimate (~/external_torque)
  ring_.configure(RING_RECORDS, (REFERENCES + (observe_ ? 1 : 0)) * n_);
  if (observe_) {
    external_topic_ = node->create_publisher<JointStateMsg>("~/external_torque", 10);
    external_msg_.name = params_.joints;
    external_msg_.effort.assign(n_, 0.0);
  }
  start_publishing();
  RCLCPP_INFO(
    node->get_logger(), "robodyn controller: %zu joints of %s, %s law, %u Hz", n_,
    params_.model_name.c_str(), params_.mode.c_str(), rate);
  return CallbackReturn::SUCCESS;
}

std::vector<hardware_interface::CommandInterface::SharedPtr>
ComputedTorqueController::on_export_reference_interfaces_list()
{
  std::vector<hardware_interface::CommandInterface::SharedPtr> refs;
  const std::string prefix = get_node()->get_name();
  for (const auto & joint : params_.joints) {
    for (const char * kind : {HW_IF_POSITION, HW_IF_VELOCITY, HW_IF_ACCELERATION}) {
      auto ref = std::make_shared<hardware_interface::CommandInterface>(
        prefix + "/" + joint, kind);
      (void)ref->set_value(NaN);
      refs.push_back(ref);
    }
  }
  return refs;
}

bool ComputedTorqueController::on_set_chained_mode(bool) {return true;}

CallbackReturn ComputedTorqueController::on_activate(const rclcpp_lifecycle::State &)
{
  for (auto & ref : ordered_exported_reference_interfaces_) {(void)ref->set_value(NaN);}
  counts_ = LimitCounts{};
  faults_ = 0;
  cycles_ = 0;
  event_ = "none";
  std::snprintf(hold_buffer_, sizeof(hold_buffer_), "none");
  missing_reference_ = 0.0;
  since_diagnostics_ = params_.diagnostics_period;  // first status at the first cycle
  unchanged_cycles_ = 0;
  have_reference_ = false;  // last_update_ns_ is kept: a re-activation within a cycle
  mode_ = Mode::ACTIVE;  // so that enter_hold below takes the hold position
  have_last_q_ = have_previous_ = false;
  jumps_ = 0;
  clock_ = since_valid_ = frozen_for_ = valid_for_ = 0.0;
  observer_.reset();
  over_cycles_ = 0;
  in_contact_ = compliant_ = false;
  observer_clock_ = 0.0;
  const bool finite = accept_state(read_state(), 0.0);
  // The rate limit starts from the hardware's effort command (what it was last told, by
  // this controller before a re-activation or by another one), else the effort it
  // measures, else g(q).
  if (finite) {dynamics_.gravity(q_.data(), gravity_.data());}
  for (std::size_t i = 0; i < n_; ++i) {
    const auto command = command_interfaces_[i].get_optional();
    const double from_state = has_effort_state_ ? effort_[i] : NaN;
    if (command.has_value() && std::isfinite(*command)) {
      last_cmd_[i] = *command;
    } else if (std::isfinite(from_state)) {
      last_cmd_[i] = from_state;
    } else {
      last_cmd_[i] = finite && params_.include_gravity ? gravity_[i] : 0.0;
    }
  }
  // A restart within one switch (released less than a period ago): the release step was
  // never applied, and this cycle's step is the only one the hardware sees.
  const auto since_release = std::chrono::steady_clock::now() - release_time_;
  if (released_ && since_release < std::chrono::duration<double>(nominal_period_)) {
    std::copy(applied_cmd_.begin(), applied_cmd_.end(), last_cmd_.begin());
  }
  released_ = false;
  if (!finite) {
    fault("non_finite_state", "a joint state is not finite at activation", false);
  } else {
    state_trusted_ = true;
    enter_hold("waiting for a reference (chain a trajectory controller)");
  }
  return CallbackReturn::SUCCESS;
}

CallbackReturn ComputedTorqueController::on_deactivate(const rclcpp_lifecycle::State &)
{
  write_release();
  (void)publish_diagnostics(get_node()->now());
  return CallbackReturn::SUCCESS;
}

// The last command before the effort interfaces are released: one rate-limited step
// towards the hold at the release position (the position hold of a trip when latched,
// gravity + damping when the state cannot be trusted). controller_manager deactivates
// between two cycles, so this is the next cycle's command, not a second one in this cycle.
void ComputedTorqueController::write_release() noexcept
{
  const bool finite = accept_state(read_state(), nominal_period_);
  if (finite && mode_ != Mode::SAFE) {
    mode_ = Mode::ACTIVE;  // so that enter_hold takes the position reached
    enter_hold("released");
    compute_hold();
  } else if (finite && state_trusted_) {
    compute_hold();
  } else {
    compute_gravity_damping();
  }
  std::copy(last_cmd_.begin(), last_cmd_.end(), applied_cmd_.begin());
  release_time_ = std::chrono::steady_clock::now();
  released_ = true;
  (void)limit_torque(tau_.data(), effort_limit_.data(),
    rate_step(params_.max_torque_rate, nominal_period_, nominal_period_), n_,
    last_cmd_.data(), out_.data(), counts_);
  for (std::size_t i = 0; i < n_ && i < command_interfaces_.size(); ++i) {
    (void)command_interfaces_[i].set_value(out_[i]);
  }
  mode_ = Mode::HOLD;
  event_ = "deactivated";
  reason_ = "inactive: effort interfaces released after one step towards the hold at the "
    "release position; the hardware holds the arm from here (docs/real_arm.md)";
}

return_type ComputedTorqueController::update_reference_from_subscribers(
  const rclcpp::Time &, const rclcpp::Duration &)
{
  return return_type::OK;  // references come only from a chained controller
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

// A reference outside the limits (shrunk by reference_margin), too fast or accelerating
// beyond the acceleration limit; nullptr if none.
const char * ComputedTorqueController::check_reference() noexcept
{
  for (std::size_t i = 0; i < n_; ++i) {
    const double m = params_.reference_margin;
    if (q_ref_[i] < lower_[i] + m || q_ref_[i] > upper_[i] - m ||
      std::abs(qd_ref_[i]) > velocity_limit_[i] || std::abs(qdd_ref_[i]) > acceleration_limit_[i])
    {
      std::snprintf(reason_buffer_, sizeof(reason_buffer_),
        "the reference of %s (%.4f, %.4f/s, %.4f/s^2) leaves its limits [%.4f, %.4f] shrunk "
        "by %.3f, its velocity limit %.4f or its acceleration limit %.4f: holding the "
        "position reached", params_.joints[i].c_str(), q_ref_[i], qd_ref_[i], qdd_ref_[i],
        lower_[i], upper_[i], m, velocity_limit_[i], acceleration_limit_[i]);
      return reason_buffer_;
    }
  }
  return nullptr;
}

// The law (header) into tau_ [N m or N].
void ComputedTorqueController::compute_law() noexcept
{
  if (law_ == Law::COMPUTED_TORQUE) {
    for (std::size_t i = 0; i < n_; ++i) {
      acc_[i] = qdd_ref_[i] + kd_[i] * (qd_ref_[i] - qd_[i]) + kp_[i] * (q_ref_[i] - q_[i]);
    }
    dynamics_.inverse_dynamics(q_.data(), qd_.data(), acc_.data(), tau_.data());
    if (params_.include_friction) {dynamics_.add_friction(qd_.data(), tau_.data());}
    if (!params_.include_gravity) {
      dynamics_.gravity(q_.data(), gravity_.data());
      for (std::size_t i = 0; i < n_; ++i) {tau_[i] -= gravity_[i];}
    }
    return;
  }
  if (law_ == Law::FEEDFORWARD) {
    dynamics_.inverse_dynamics(q_ref_.data(), qd_ref_.data(), qdd_ref_.data(), tau_.data());
    if (!params_.include_gravity) {
      dynamics_.gravity(q_ref_.data(), gravity_.data());
      for (std::size_t i = 0; i < n_; ++i) {tau_[i] -= gravity_[i];}
    }
    if (params_.include_friction) {dynamics_.add_friction(qd_ref_.data(), tau_.data());}
  } else {
    if (params_.include_gravity) {
      dynamics_.gravity(q_.data(), tau_.data());
    } else {
      std::fill(tau_.begin(), tau_.end(), 0.0);
    }
    if (params_.include_friction) {dynamics_.add_friction(qd_.data(), tau_.data());}
  }
  if (law_ == Law::GRAVITY || params_.feedforward_pd) {
    for (std::size_t i = 0; i < n_; ++i) {
      tau_[i] += kp_[i] * (q_ref_[i] - q_[i]) + kd_[i] * (qd_ref_[i] - qd_[i]);
    }
  }
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

return_type ComputedTorqueController::update_and_write_commands(
  const rclcpp::Time & time, const rclcpp::Duration &)
{
  // The torque's step: max_torque_rate x min(elapsed, period) from the cycle times (the
  // stamps of ~/reference), so a late cycle moves one period's worth, never more, and an
  // early one less. A cycle whose time does not advance (Gazebo's controller_manager reads
  // its time from a /clock that arrives a step late at random, while the physics did step)
  // counts as one period: the hardware still applies this write for a step. The first
  // cycle after an activation steps from the hardware's effort command.
  const std::int64_t now_ns = time.nanoseconds();
  double dt = last_update_ns_ > 0 ? 1e-9 * static_cast<double>(now_ns - last_update_ns_) :
    nominal_period_;
  last_update_ns_ = now_ns;
  if (!std::isfinite(dt)) {dt = 0.0;}
  ++cycles_;
  const Mode mode_before = mode_;
  const char * event_before = event_;
  const unsigned long faults_before = faults_;
  const bool finite = read_state();
  const bool valid = accept_state(finite, dt);
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
  if (observe_) {observe_collision(valid, dt);}
  if (mode_ != Mode::SAFE) {
    if (take_reference(dt)) {
      const char * why = check_reference();
      if (why != nullptr) {
        event_ = "reference_outside_limits";
        enter_hold(why);
      } else {
        mode_ = Mode::ACTIVE;
        reason_ = "following the chained reference";
      }
    } else if (!is_in_chained_mode()) {
      enter_hold("no controller is chained: holding the position reached");
    } else if (missing_reference_ > params_.reference_timeout) {
      event_ = "stale_reference";
      enter_hold("the chained reference stopped updating: holding the position reached");
    }
  }
  if (valid && mode_ == Mode::ACTIVE && law_ != Law::GRAVITY &&
    params_.max_tracking_error > 0.0)
  {
    for (std::size_t i = 0; i < n_; ++i) {
      if (std::abs(q_ref_[i] - q_[i]) > params_.max_tracking_error) {
        std::snprintf(reason_buffer_, sizeof(reason_buffer_),
          "%s is %.4f from its reference (max_tracking_error %.3f): the arm does not follow "
          "the commands", params_.joints[i].c_str(), q_ref_[i] - q_[i],
          params_.max_tracking_error);
        fault("tracking_error", reason_buffer_, true);
        break;
      }
    }
  }
  if (valid && decoupled_hold_ && (mode_ == Mode::HOLD || (mode_ == Mode::SAFE &&
    state_trusted_)))
  {
    watch_own_hold();
  }
  if (!valid && mode_ != Mode::SAFE) {  // one rejected state: the last command stands
    std::copy(last_cmd_.begin(), last_cmd_.end(), tau_.begin());
  } else if (mode_ == Mode::ACTIVE) {
    compute_law();
  } else if (mode_ == Mode::HOLD || state_trusted_) {
    compute_hold();
  } else {
    compute_gravity_damping();
  }
  const bool torque_finite = limit_torque(tau_.data(), effort_limit_.data(),
    rate_step(params_.max_torque_rate, dt > 0.0 ? dt : nominal_period_, nominal_period_), n_,
    last_cmd_.data(),
    out_.data(), counts_);
  if (!torque_finite && mode_ != Mode::SAFE) {
    fault("non_finite_torque", "the law gave a non-finite torque: position hold", valid);
  }
  for (std::size_t i = 0; i < n_; ++i) {(void)command_interfaces_[i].set_value(out_[i]);}
  publish(time);
  // /diagnostics every diagnostics_period, and at once (10 ms apart at most, retried
  // while the publisher is busy) when the mode, the event or the fault count changed.
  diagnostics_due_ = diagnostics_due_ || mode_ != mode_before || event_ != event_before ||
    faults_ != faults_before;
  since_diagnostics_ += dt;
  if (since_diagnostics_ >= params_.diagnostics_period ||
    (diagnostics_due_ && since_diagnostics_ >= DIAGNOSTICS_SPACING))
  {
    since_diagnostics_ = 0.0;
    diagnostics_due_ = !publish_diagnostics(time);
  }
  return return_type::OK;
}

// ~/reference (position, velocity: what is tracked; effort: the command) and ~/commands:
// this cycle's record into the ring (the publishing thread sends it).
void ComputedTorqueController::publish(const rclcpp::Time & time) noexcept
{
  if (cycles_ % static_cast<unsigned long>(params_.publish_every) != 0) {return;}
  double * record = ring_.begin(time.nanoseconds());
  if (record == nullptr) {return;}  // the ring is full: counted, reported on /diagnostics
  const bool tracking = mode_ == Mode::ACTIVE;
  for (std::size_t i = 0; i < n_; ++i) {
    record[i] = tracking ? q_ref_[i] : hold_q_[i];
    record[n_ + i] = tracking ? qd_ref_[i] : 0.0;
    record[2 * n_ + i] = out_[i];
  }
  if (observe_) {std::copy(observer_.residual(), observer_.residual() + n_, record + 3 * n_);}
  ring_.commit();
}

void ComputedTorqueController::start_publishing()
{
  stop_publishing();
  publishing_.store(true);
  publisher_thread_ = std::thread([this] {
      while (publishing_.load()) {
        std::this_thread::sleep_for(PUBLISH_PERIOD);
        publish_records();
      }
      publish_records();  // what the last cycles left
    });
}

void ComputedTorqueController::stop_publishing()
{
  publishing_.store(false);
  if (publisher_thread_.joinable()) {publisher_thread_.join();}
}

// The publishing thread: every waiting record as one JointState and one command message.
void ComputedTorqueController::publish_records()
{
  ring_.drain([this](std::int64_t stamp_ns, const double * record) {
      reference_msg_.header.stamp = rclcpp::Time(stamp_ns);
      std::copy(record, record + n_, reference_msg_.position.begin());
      std::copy(record + n_, record + 2 * n_, reference_msg_.velocity.begin());
      std::copy(record + 2 * n_, record + 3 * n_, reference_msg_.effort.begin());
      std::copy(record + 2 * n_, record + 3 * n_, commands_msg_.data.begin());
      // A write DDS refuses throws (RCLError): never out of this thread, which would end
      // the whole controller_manager (and a Gazebo server with it); the record is lost.
      try {
        reference_topic_->publish(reference_msg_);
        commands_topic_->publish(commands_msg_);
        if (observe_) {
          external_msg_.header.stamp = reference_msg_.header.stamp;
          std::copy(record + 3 * n_, record + 4 * n_, external_msg_.effort.begin());
          external_topic_->publish(external_msg_);
        }
      } catch (const std::exception &) {
        publish_failures_.fetch_add(1);
      }
    });
}

CallbackReturn ComputedTorqueController::on_cleanup(const rclcpp_lifecycle::State &)
{
  stop_publishing();
  return CallbackReturn::SUCCESS;
}

ComputedTorqueController::~ComputedTorqueController() {stop_publishing();}

bool ComputedTorqueController::publish_diagnostics(const rclcpp::Time & time) noexcept
{
  using diagnostic_msgs::msg::DiagnosticStatus;
  diagnostics_msg_.header.stamp = time;
  auto & status = diagnostics_msg_.status[0];
  status.level = mode_ == Mode::SAFE ? DiagnosticStatus::ERROR :
    ((mode_ == Mode::HOLD && std::strcmp(event_, "none") != 0) || in_contact_ ?
    DiagnosticStatus::WARN : DiagnosticStatus::OK);
  char text[2 * TEXT];
  std::snprintf(text, sizeof(text), "%s: %s", mode_name(mode_), reason_);
  status.message.assign(text, std::min(std::strlen(text), 2 * TEXT - 1));
  auto & v = status.values;
  assign(v[0].value, mode_name(mode_));
  assign(v[1].value, reason_);
  assign(v[2].value, event_);
  assign(v[3].value, params_.mode.c_str());
  assign(v[4].value, mode_ == Mode::SAFE && !state_trusted_ ?
    (compliant_ ? "gravity + damping (compliant: the arm yields to the contact)" :
    "gravity + damping") : "position hold");
  assign(v[5].value, is_in_chained_mode() ? "true" : "false");
  const unsigned long numbers[] = {faults_, counts_.clamped, counts_.rate_limited, cycles_,
    static_cast<unsigned long>(ring_.dropped()) + publish_failures_.load()};
  for (std::size_t k = 0; k < 5; ++k) {
    std::snprintf(text, sizeof(text), "%lu", numbers[k]);
    assign(v[6 + k].value, text);
  }
  if (observe_) {
    int used = 0;
    const double * r = observer_.residual();
    for (std::size_t i = 0; i < n_ && used >= 0 && static_cast<std::size_t>(used) < TEXT;
      ++i)
    {
      used += std::snprintf(text + used, sizeof(text) - used, i ? " %.3f" : "%.3f", r[i]);
    }
    assign(v[11].value, text);
  } else {
    assign(v[11].value, "off");
  }
  assign(v[12].value, collision_buffer_);
  std::snprintf(text, sizeof(text), "%lu", collisions_);
  assign(v[13].value, text);
  assign(v[14].value, hold_buffer_);
  return diagnostics_publisher_->try_publish(diagnostics_msg_);
}

}  // namespace robodyn_controllers

#include "pluginlib/class_list_macros.hpp"

PLUGINLIB_EXPORT_CLASS(
  robodyn_controllers::ComputedTorqueController,
  controller_interface::ChainableControllerInterface)
