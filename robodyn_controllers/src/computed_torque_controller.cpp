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
  const unsigned int rate = get_update_rate();
  nominal_period_ = rate > 0 ? 1.0 / rate : 0.001;
  SupervisorSettings core;
  if (!load_model(core, error) || !load_law(error) || !load_gains(core, error) ||
    !load_collision(core, error) || !load_tool_wrench(error))
  {
    RCLCPP_ERROR(get_node()->get_logger(), "robodyn controller: %s", error.c_str());
    return CallbackReturn::ERROR;
  }
  core.joints = params_.joints;
  core.position_margin = params_.position_margin;
  core.velocity_margin = params_.velocity_margin;
  core.reference_margin = params_.reference_margin;
  core.max_tracking_error = params_.max_tracking_error;
  core.reference_timeout = params_.reference_timeout;
  core.max_torque_rate = params_.max_torque_rate;
  core.gain_ramp_time = params_.gain_ramp_time;
  core.nominal_period = nominal_period_;
  core.include_gravity = params_.include_gravity;
  if (!load_targets(core, error)) {
    RCLCPP_ERROR(get_node()->get_logger(), "robodyn controller: %s", error.c_str());
    return CallbackReturn::ERROR;
  }
  try {
    core_.configure(core, dynamics_, *law_, law_settings_);
  } catch (const std::invalid_argument & e) {
    RCLCPP_ERROR(get_node()->get_logger(), "robodyn controller: %s", e.what());
    return CallbackReturn::ERROR;
  }
  reference_.assign(REFERENCES * n_, 0.0);
  commanded_.assign(n_, NaN);
  make_topics();
  start_publishing();
  RCLCPP_INFO(
    get_node()->get_logger(), "robodyn controller: %zu joints of %s, %s law, %u Hz", n_,
    params_.model_name.c_str(), params_.mode.c_str(), rate);
  return CallbackReturn::SUCCESS;
}

// The publishers and their messages, sized for n_ joints (on_configure).
void ComputedTorqueController::make_topics()
{
  auto node = get_node();
  const bool observe = core_.observing();
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
  const std::size_t keys = KEY_COUNT - (law_->estimate() ? 0 : PAYLOAD_KEYS);
  status.values.resize(keys);
  for (std::size_t k = 0; k < keys; ++k) {
    status.values[k].key = KEYS[k];
    status.values[k].value.reserve(TEXT);
  }
  // the records: reference position, velocity, the command, and with collision detection
  // the external torque estimate (~/external_torque), with a tool wrench the position
  ring_.configure(RING_RECORDS, (REFERENCES + (observe ? 1 : 0) + (wrench_on_ ? 1 : 0)) * n_);
  if (observe) {
    external_topic_ = node->create_publisher<JointStateMsg>("~/external_torque", 10);
    external_msg_.name = params_.joints;
    external_msg_.effort.assign(n_, 0.0);
  }
  if (wrench_on_) {
    wrench_topic_ = node->create_publisher<WrenchMsg>("~/tool_wrench", 10);
    wrench_msg_.header.frame_id = params_.base_link;
  }
  estimate_topic_.reset();
  if (law_->estimate()) {  // ~/payload_estimate at the diagnostics rate, in the tip frame
    estimate_topic_ = node->create_publisher<InertiaMsg>("~/payload_estimate", 10);
    estimate_msg_.header.frame_id = params_.tip_link.empty() ? "tip" : params_.tip_link;
  }
  DiagnosticsSnapshot prototype;  // sized here: update() only copies into one
  prototype.residual.assign(observe ? n_ : 0, 0.0);
  prototype.jacobian.assign(law_->tip_jacobian() ? 6 * n_ : 0, 0.0);
  diagnostics_slot_.configure(prototype);
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
  targets_.reset();  // the chained reference until a target comes
  since_diagnostics_ = params_.diagnostics_period;  // first status at the first cycle
  // last_update_ns_ is kept: a re-activation within a cycle. The rate limit starts from
  // the hardware's effort command (what it was last told, by this controller before a
  // re-activation or by another one), else the effort it measures, else g(q).
  const bool finite = read_state();
  for (std::size_t i = 0; i < n_; ++i) {
    const auto command = command_interfaces_[i].get_optional();
    commanded_[i] = command.has_value() ? *command : NaN;
  }
  // A restart within one switch (released less than a period ago): the release step was
  // never applied, and this cycle's step is the only one the hardware sees.
  const auto since_release = std::chrono::steady_clock::now() - release_time_;
  const bool restart = released_ &&
    since_release < std::chrono::duration<double>(nominal_period_);
  released_ = false;
  core_.activate(finite, has_effort_state_, commanded_.data(), restart);
  return CallbackReturn::SUCCESS;
}

CallbackReturn ComputedTorqueController::on_deactivate(const rclcpp_lifecycle::State &)
{
  write_release();
  snapshot_diagnostics(get_node()->now());
  return CallbackReturn::SUCCESS;
}

// The core's release step, written: controller_manager deactivates between two cycles,
// so this is the next cycle's command, not a second one in this cycle.
void ComputedTorqueController::write_release() noexcept
{
  const double * out = core_.release(read_state());
  release_time_ = std::chrono::steady_clock::now();
  released_ = true;
  for (std::size_t i = 0; i < n_ && i < command_interfaces_.size(); ++i) {
    (void)command_interfaces_[i].set_value(out[i]);
  }
}

// q, qd (and the effort applied) from the state interfaces into the core; false if one is
// not finite.
bool ComputedTorqueController::read_state() noexcept
{
  const std::size_t per_joint = params_.use_effort_state ? 3 : 2;
  has_effort_state_ = params_.use_effort_state;
  bool finite = state_interfaces_.size() == per_joint * n_;
  double * q = core_.q();
  double * qd = core_.qd();
  double * effort = core_.effort();
  for (std::size_t i = 0; finite && i < n_; ++i) {
    const auto p = state_interfaces_[per_joint * i].get_optional();
    const auto v = state_interfaces_[per_joint * i + 1].get_optional();
    q[i] = p.has_value() ? *p : NaN;
    qd[i] = v.has_value() ? *v : NaN;
    if (has_effort_state_) {
      const auto e = state_interfaces_[per_joint * i + 2].get_optional();
      effort[i] = e.has_value() ? *e : NaN;
    }
    finite = std::isfinite(q[i]) && std::isfinite(qd[i]);
  }
  return finite;
}

// The chained reference if the controller before this one wrote it this cycle (each value
// is consumed: NaN until written again; an absent velocity or acceleration is 0), as the
// core takes it (positions, velocities, accelerations); nullptr when not written.
const double * ComputedTorqueController::read_reference() noexcept
{
  const auto & refs = ordered_exported_reference_interfaces_;
  bool written = refs.size() == REFERENCES * n_;
  for (std::size_t i = 0; written && i < n_; ++i) {
    const auto p = refs[REFERENCES * i]->get_optional();
    written = p.has_value() && std::isfinite(*p);
  }
  if (!written) {return nullptr;}
  for (std::size_t i = 0; i < n_; ++i) {
    for (std::size_t k = 0; k < REFERENCES; ++k) {
      const auto value = refs[REFERENCES * i + k]->get_optional();
      reference_[k * n_ + i] = value.has_value() && std::isfinite(*value) ? *value : 0.0;
      (void)refs[REFERENCES * i + k]->set_value(NaN);
    }
  }
  return reference_.data();
}

return_type ComputedTorqueController::update_reference_from_subscribers(
  const rclcpp::Time &, const rclcpp::Duration &)
{
  return return_type::OK;  // references come only from a chained controller
}

return_type ComputedTorqueController::update_and_write_commands(
  const rclcpp::Time & time, const rclcpp::Duration &)
{
  // The cycle's time from the stamps of ~/reference (the core's rate limit: a late cycle
  // moves one period's worth, never more); the first cycle after an activation is one
  // nominal period after it.
  const std::int64_t now_ns = time.nanoseconds();
  const double dt = last_update_ns_ > 0 ?
    1e-9 * static_cast<double>(now_ns - last_update_ns_) : nominal_period_;
  last_update_ns_ = now_ns;
  const Mode mode_before = core_.mode();
  const char * event_before = core_.event();
  const unsigned long faults_before = core_.faults();
  const bool finite = read_state();
  const double * reference = targets_.reference(dynamics_, core_, time.seconds(),
    read_reference());
  core_.feed_wrench(wrenches_.wrench(core_, time.seconds()));
  const double * out = core_.cycle(time.seconds(), dt, finite, reference,
    is_in_chained_mode());
  for (std::size_t i = 0; i < n_; ++i) {(void)command_interfaces_[i].set_value(out[i]);}
  publish(time);
  // /diagnostics every diagnostics_period, and at once (10 ms apart at most) when the
  // mode, the event or the fault count changed.
  diagnostics_due_ = diagnostics_due_ || core_.mode() != mode_before ||
    core_.event() != event_before || core_.faults() != faults_before;
  since_diagnostics_ += std::isfinite(dt) ? dt : 0.0;
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
