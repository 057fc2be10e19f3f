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

#include "computed_torque_internal.hpp"

namespace robodyn_controllers
{
using hardware_interface::HW_IF_ACCELERATION;
using hardware_interface::HW_IF_EFFORT;
using hardware_interface::HW_IF_POSITION;
using hardware_interface::HW_IF_VELOCITY;

CallbackReturn ComputedTorqueController::on_init()
{
  try {
    param_listener_ = std::make_shared<ParamListener>(get_node());
    watch_gains();
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

CallbackReturn ComputedTorqueController::on_configure(const rclcpp_lifecycle::State &)
{
  stop_publishing();  // its thread reads the model loaded below
  params_ = param_listener_->get_params();
  n_ = params_.joints.size();
  std::string error;
  law_ = make_law(params_.mode);  // the YAML's one_of admits only law_names()
  if (!law_) {
    RCLCPP_ERROR(get_node()->get_logger(), "robodyn controller: mode '%s' has no law",
      params_.mode.c_str());
    return CallbackReturn::ERROR;
  }
  law_->configure(n_);
  gains_.configure(n_);
  law_settings_ = LawSettings{params_.include_gravity, params_.include_friction,
    params_.feedforward_pd, params_.inertia_feedforward, params_.velocity_lag};
  if (!load_model(error) || !load_gains(error) || !load_collision(error) ||
    !load_tool_wrench(error))
  {
    RCLCPP_ERROR(get_node()->get_logger(), "robodyn controller: %s", error.c_str());
    return CallbackReturn::ERROR;
  }
  for (auto * v : {&q_, &qd_, &effort_, &q_ref_, &qd_ref_, &qdd_ref_, &tau_, &gravity_,
      &hold_q_, &last_q_, &last_qd_, &previous_q_, &out_, &last_cmd_, &inertia_,
      &applied_cmd_, &hold_w_, &hold_acc_, &zero_qd_, &hold_guard_, &hold_runaway_,
      &accepted_q_, &accepted_qd_, &brake_time_})
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
  // the external torque estimate (~/external_torque), with a tool wrench the position
  ring_.configure(RING_RECORDS, (REFERENCES + (observe_ ? 1 : 0) + (wrench_on_ ? 1 : 0)) * n_);
  if (observe_) {
    external_topic_ = node->create_publisher<JointStateMsg>("~/external_torque", 10);
    external_msg_.name = params_.joints;
    external_msg_.effort.assign(n_, 0.0);
  }
  if (wrench_on_) {
    wrench_topic_ = node->create_publisher<WrenchMsg>("~/tool_wrench", 10);
    wrench_msg_.header.frame_id = params_.base_link;
  }
  DiagnosticsSnapshot prototype;  // sized here: update() only copies into one
  prototype.residual.assign(observe_ ? n_ : 0, 0.0);
  diagnostics_slot_.configure(prototype);
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
  braking_ = false;
  have_accepted_ = false;
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
  snapshot_diagnostics(get_node()->now());
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
  braking_ = false;
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
        refuse_reference(why);
      } else {
        mode_ = Mode::ACTIVE;
        braking_ = false;
        std::copy(q_ref_.begin(), q_ref_.end(), accepted_q_.begin());
        std::copy(qd_ref_.begin(), qd_ref_.end(), accepted_qd_.begin());
        have_accepted_ = true;
        reason_ = "following the chained reference";
      }
    } else if (!is_in_chained_mode()) {
      enter_hold("no controller is chained: holding the position reached");
    } else if (missing_reference_ > params_.reference_timeout) {
      event_ = "stale_reference";
      enter_hold("the chained reference stopped updating: holding the position reached");
    }
  }
  if (braking_ && mode_ == Mode::HOLD) {brake(dt);}
  if (valid && mode_ == Mode::ACTIVE && law_->follows_reference(law_settings_) &&
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
  // gains set while running reach their values on this clock, whatever the mode
  gains_.step(time.seconds(), kp_.data(), kd_.data(), params_.gain_ramp_time);
  if (!valid && mode_ != Mode::SAFE) {  // one rejected state: the last command stands
    std::copy(last_cmd_.begin(), last_cmd_.end(), tau_.begin());
  } else if (mode_ == Mode::ACTIVE || braking_) {
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
  // /diagnostics every diagnostics_period, and at once (10 ms apart at most) when the
  // mode, the event or the fault count changed.
  diagnostics_due_ = diagnostics_due_ || mode_ != mode_before || event_ != event_before ||
    faults_ != faults_before;
  since_diagnostics_ += dt;
  if (since_diagnostics_ >= params_.diagnostics_period ||
    (diagnostics_due_ && since_diagnostics_ >= DIAGNOSTICS_SPACING))
  {
    since_diagnostics_ = 0.0;
    diagnostics_due_ = false;
    snapshot_diagnostics(time);
  }
  return return_type::OK;
}

CallbackReturn ComputedTorqueController::on_cleanup(const rclcpp_lifecycle::State &)
{
  stop_publishing();
  return CallbackReturn::SUCCESS;
}

ComputedTorqueController::~ComputedTorqueController() {stop_publishing();}

}  // namespace robodyn_controllers

#include "pluginlib/class_list_macros.hpp"

PLUGINLIB_EXPORT_CLASS(
  robodyn_controllers::ComputedTorqueController,
  controller_interface::ChainableControllerInterface)
