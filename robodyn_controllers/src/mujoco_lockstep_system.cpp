// robodyn_controllers/MujocoLockstepSystem: the lock-step MuJoCo hardware (what it does and
// its parameters: mujoco_lockstep_system.hpp).

#include "robodyn_controllers/mujoco_lockstep_system.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <thread>

#include "hardware_interface/types/hardware_interface_type_values.hpp"
#include "robodyn_controllers/physics_steps.hpp"
#include "robodyn_controllers/torque_safety.hpp"

namespace robodyn_controllers
{
using hardware_interface::CallbackReturn;
using hardware_interface::return_type;

MujocoLockstepSystem::~MujocoLockstepSystem()
{
  if (data_ != nullptr) {mj_deleteData(data_);}
  if (model_ != nullptr) {mj_deleteModel(model_);}
}

CallbackReturn MujocoLockstepSystem::on_init(
  const hardware_interface::HardwareComponentInterfaceParams & params)
{
  if (SystemInterface::on_init(params) != CallbackReturn::SUCCESS) {
    return CallbackReturn::ERROR;
  }
  const auto & hw = get_hardware_info().hardware_parameters;
  const auto found = hw.find("mujoco_model");
  if (found == hw.end()) {
    return fail("the hardware parameter mujoco_model (an MJCF path) is missing");
  }
  char error[1000] = "";
  model_ = mj_loadXML(found->second.c_str(), nullptr, error, sizeof(error));
  if (model_ == nullptr) {
    return fail("cannot load " + found->second + ": " + error);
  }
  data_ = mj_makeData(model_);
  timestep_ = model_->opt.timestep;
  for (const auto & joint : get_hardware_info().joints) {
    const int j = mj_name2id(model_, mjOBJ_JOINT, joint.name.c_str());
    const int a = mj_name2id(model_, mjOBJ_ACTUATOR, joint.name.c_str());
    if (j < 0 || a < 0) {
      return fail("joint " + joint.name + ": no MuJoCo joint and actuator of that name");
    }
    qpos_.push_back(model_->jnt_qposadr[j]);
    dof_.push_back(model_->jnt_dofadr[j]);
    actuator_.push_back(a);
    data_->qpos[qpos_.back()] = initial(joint, hardware_interface::HW_IF_POSITION, 0.0);
    data_->ctrl[a] = initial(joint, hardware_interface::HW_IF_EFFORT, 0.0);
    effort_max_.push_back(command_max(joint));
  }
  const auto rate = hw.find("max_torque_rate");
  max_rate_ = rate == hw.end() ? 1000.0 : std::stod(rate->second);
  if (!(max_rate_ > 0.0 && std::isfinite(max_rate_))) {
    return fail("max_torque_rate " + rate->second + ": valid: finite and > 0 [N m/s]");
  }
  mj_forward(model_, data_);
  const std::size_t n = qpos_.size();
  claimed_.assign(n, false);
  handover_.assign(n, 0);
  waiting_.assign(n, false);
  hold_q_.assign(n, 0.0);
  hold_w_.assign(n, 0.0);
  hold_acc_.assign(model_->nv, 0.0);
  hold_force_.assign(model_->nv, 0.0);
  for (std::size_t i = 0; i < n; ++i) {start_hold(i);}
  frozen_.assign(3 * n, 0.0);
  const auto inject = hw.find("fault_injection");
  if (inject != hw.end() && inject->second == "true") {
    if (!get_node()) {return fail("fault_injection: the hardware has no node to listen on");}
    injector_ = get_node()->create_subscription<std_msgs::msg::String>(
      "~/inject_fault", rclcpp::QoS(10).reliable(),
      [this](const std_msgs::msg::String & msg) {request_fault(msg.data);});
    RCLCPP_WARN(get_logger(), "MujocoLockstepSystem: fault injection enabled on %s "
      "(test only)", injector_->get_topic_name());
    if (!configure_push(hw)) {return CallbackReturn::ERROR;}
    configure_witness();
  }
  return CallbackReturn::SUCCESS;
}

return_type MujocoLockstepSystem::perform_command_mode_switch(
  const std::vector<std::string> & start, const std::vector<std::string> & stop)
{
  const auto & joints = get_hardware_info().joints;
  for (std::size_t i = 0; i < joints.size(); ++i) {
    const std::string name = joints[i].name + "/" + hardware_interface::HW_IF_EFFORT;
    const bool starts = std::find(start.begin(), start.end(), name) != start.end();
    const bool stops = std::find(stop.begin(), stop.end(), name) != stop.end();
    if (stops && !starts && claimed_[i]) {
      claimed_[i] = false;
      start_hold(i);
      RCLCPP_INFO(get_logger(), "MujocoLockstepSystem: %s released: held at %.4f by the "
        "hardware (bias force + M a, a critically damped at %.4g rad/s)",
        joints[i].name.c_str(), hold_q_[i], hold_w_[i]);
    } else if (starts) {
      // The command interface starts at the torque applied now (the hardware's hold, or
      // the last command): a controller that starts from it, or writes nothing in its
      // first cycle, continues the torque instead of stepping to a stale value.
      claimed_[i] = true;
      if (i < command_.size()) {
        (void)set_command(command_[i], data_->ctrl[actuator_[i]], true);
      }
      if (stops) {  // one controller hands over to another in this switch
        handover_[i] = HANDOVER_CYCLES;
        start_hold(i);
      }
    }
  }
  return return_type::OK;
}

CallbackReturn MujocoLockstepSystem::on_activate(const rclcpp_lifecycle::State &)
{
  using namespace hardware_interface;  // NOLINT: the HW_IF_* names
  position_.clear();
  velocity_.clear();
  effort_.clear();
  command_.clear();
  for (const auto & joint : get_hardware_info().joints) {
    position_.push_back(get_state_interface_handle(joint.name + "/" + HW_IF_POSITION));
    velocity_.push_back(get_state_interface_handle(joint.name + "/" + HW_IF_VELOCITY));
    effort_.push_back(get_state_interface_handle(joint.name + "/" + HW_IF_EFFORT));
    command_.push_back(get_command_interface_handle(joint.name + "/" + HW_IF_EFFORT));
    (void)set_command(command_.back(), data_->ctrl[actuator_[command_.size() - 1]], true);
  }
  return CallbackReturn::SUCCESS;
}

return_type MujocoLockstepSystem::read(const rclcpp::Time & time, const rclcpp::Duration & period)
{
  if (written_) {advance(time, period.seconds());}  // the last write's efforts, until now
  written_ = false;
  publish_truth(time);
  const Fault fault = take_fault();
  if (fault == Fault::LATE) {
    std::this_thread::sleep_for(std::chrono::duration<double>(fault_seconds_));
  }
  for (std::size_t i = 0; i < position_.size(); ++i) {
    double q = data_->qpos[qpos_[i]];
    double qd = data_->qvel[dof_[i]];
    double effort = data_->actuator_force[actuator_[i]];
    const bool hit = fault_joint_ == 0 || fault_joint_ == static_cast<int>(i) + 1;
    if (fault != Fault::NONE && hit) {  // take_fault: NONE once its cycles ran out
      if (fault == Fault::NAN_STATE) {q = std::numeric_limits<double>::quiet_NaN();}
      if (fault == Fault::OUT_OF_RANGE) {q += 10.0;}
      if (fault == Fault::JUMP) {q += 0.5;}
      if (fault == Fault::FROZEN) {
        if (fault_first_) {
          frozen_[3 * i] = q;
          frozen_[3 * i + 1] = qd;
          frozen_[3 * i + 2] = effort;
        }
        q = frozen_[3 * i];
        qd = frozen_[3 * i + 1];
        effort = frozen_[3 * i + 2];
      }
    }
    (void)set_state(position_[i], q, false);
    (void)set_state(velocity_[i], qd, false);
    (void)set_state(effort_[i], effort, false);
  }
  fault_first_ = false;
  if (fault_cycles_ > 0) {--fault_cycles_;}
  return return_type::OK;
}

return_type MujocoLockstepSystem::write(const rclcpp::Time &, const rclcpp::Duration & period)
{
  const double dt = timestep_;
  const double elapsed = period.seconds();
  const double step = rate_step(max_rate_, std::isfinite(elapsed) ? elapsed : dt, dt);
  for (std::size_t i = 0; i < command_.size(); ++i) {
    double value = std::numeric_limits<double>::quiet_NaN();
    waiting_[i] = false;
    if (claimed_[i] && get_command(command_[i], value, false) && std::isfinite(value)) {
      if (handover_[i] > 0 && value == 0.0) {  // the deactivated controller's halt value
        --handover_[i];
        waiting_[i] = true;  // held as if released until the new controller writes
        continue;
      }
      double & ctrl = data_->ctrl[actuator_[i]];
      // A drive saturates at its effort limit, whatever it is told: ros2_control's own
      // limiter is off on these chains, and the JTC alone writes its PD unclamped.
      value = std::clamp(value, -effort_max_[i], effort_max_[i]);
      if (handover_[i] > 0) {  // the new controller's commands, slewed from the torque
        --handover_[i];         // applied at the handover at max_torque_rate meanwhile
        ctrl += std::clamp(value - ctrl, -step, step);
      } else {
        ctrl = value;
      }
    }
  }
  written_ = true;
  return return_type::OK;
}

void MujocoLockstepSystem::advance(const rclcpp::Time & time, double elapsed)
{
  const double dt = timestep_;
  const PhysicsSteps steps = physics_steps(elapsed, dt, MAX_STEPS);
  const double step = rate_step(max_rate_, steps.count * steps.step, dt);
  take_push();
  std::fill(contact_torque_.begin(), contact_torque_.end(), 0.0);
  model_->opt.timestep = steps.step;
  for (int k = 0; k < steps.count; ++k) {
    mj_step1(model_, data_);  // positions and velocities: the bias force of this state
    if (k == 0) {  // the hold, like the controllers' commands, moves once per cycle
      hold(step);
    }
    push();
    mj_step2(model_, data_);
    if (k == 0) {contact();}  // the contact of this cycle's first step, as its push
  }
  model_->opt.timestep = dt;
  publish_witness(time);
}

void MujocoLockstepSystem::request_fault(const std::string & text)
{
  std::istringstream in(text);
  std::string kind;
  double seconds = 0.0;
  int joint = 0;
  in >> kind >> seconds;
  if (!in || !(seconds > 0.0 && seconds <= 10.0)) {
    RCLCPP_ERROR(get_logger(), "inject_fault '%s': expected '<kind> <seconds in (0, 10]> "
      "[joint]'", text.c_str());
    return;
  }
  if (!(in >> joint)) {joint = 0;}
  const Fault fault = kind == "nan" ? Fault::NAN_STATE : kind == "out_of_range" ?
    Fault::OUT_OF_RANGE : kind == "frozen" ? Fault::FROZEN : kind == "jump" ? Fault::JUMP :
    kind == "late" ? Fault::LATE : Fault::NONE;
  if (fault == Fault::NONE || joint < 0 || joint > static_cast<int>(qpos_.size())) {
    RCLCPP_ERROR(get_logger(), "inject_fault '%s': kind one of nan, out_of_range, frozen, "
      "jump, late; joint 0 (all) to %zu", text.c_str(), qpos_.size());
    return;
  }
  const auto cycles = static_cast<std::uint64_t>(std::ceil(seconds / timestep_));
  const auto late_us = static_cast<std::uint64_t>(std::round(seconds * 1e6));
  pending_.store((static_cast<std::uint64_t>(fault) << 56) |
    (static_cast<std::uint64_t>(joint) << 48) |
    ((fault == Fault::LATE ? late_us : cycles) & 0xFFFFFFFFFFFFull), std::memory_order_release);
  RCLCPP_WARN(get_logger(), "MujocoLockstepSystem: injecting %s for %.3f s on %s",
    kind.c_str(), seconds, joint == 0 ? "every joint" : "one joint");
}

MujocoLockstepSystem::Fault MujocoLockstepSystem::take_fault()
{
  const std::uint64_t word = pending_.exchange(0, std::memory_order_acquire);
  if (word != 0) {
    fault_ = static_cast<Fault>(word >> 56);
    fault_joint_ = static_cast<int>((word >> 48) & 0xFF);
    const std::uint64_t amount = word & 0xFFFFFFFFFFFFull;
    fault_first_ = true;
    if (fault_ == Fault::LATE) {
      fault_seconds_ = 1e-6 * static_cast<double>(amount);
      fault_cycles_ = 0;
      return Fault::LATE;
    }
    fault_cycles_ = amount;
  }
  return fault_cycles_ > 0 ? fault_ : Fault::NONE;
}

bool MujocoLockstepSystem::configure_push(const std::unordered_map<std::string, std::string> & hw)
{
  const auto body = hw.find("push_body");
  const auto point = hw.find("push_point");
  if (body == hw.end() || point == hw.end()) {return true;}  // no push on this arm
  push_body_ = mj_name2id(model_, mjOBJ_BODY, body->second.c_str());
  std::istringstream in(point->second);
  in >> push_point_[0] >> push_point_[1] >> push_point_[2];
  if (push_body_ < 0 || !in) {
    fail("push_body '" + body->second + "' / push_point '" + point->second + "': a body "
      "of the MJCF and three numbers [m]");
    return false;
  }
  pusher_ = get_node()->create_subscription<std_msgs::msg::String>(
    "~/push", rclcpp::QoS(10).reliable(),
    [this](const std_msgs::msg::String & msg) {request_push(msg.data);});
  truth_topic_ = get_node()->create_publisher<sensor_msgs::msg::JointState>(
    "~/external_torque", 10);
  truth_ = std::make_unique<realtime_tools::RealtimePublisher<sensor_msgs::msg::JointState>>(
    truth_topic_);
  for (const auto & joint : get_hardware_info().joints) {
    truth_msg_.name.push_back(joint.name);
  }
  truth_msg_.position.assign(qpos_.size(), 0.0);
  truth_msg_.effort.assign(qpos_.size(), 0.0);
  applied_push_.assign(model_->nv, 0.0);
  contact_torque_.assign(model_->nv, 0.0);
  return true;
}

void MujocoLockstepSystem::contact()
{
  if (!truth_ || data_->ncon == 0) {return;}
  const int rows = data_->nefc;
  if (rows > static_cast<int>(contact_rows_.size())) {
    std::fill(contact_torque_.begin(), contact_torque_.end(),
      std::numeric_limits<double>::quiet_NaN());
    return;
  }
  for (int r = 0; r < rows; ++r) {
    const int type = data_->efc_type[r];
    const bool is_contact = type == mjCNSTR_CONTACT_FRICTIONLESS ||
      type == mjCNSTR_CONTACT_PYRAMIDAL || type == mjCNSTR_CONTACT_ELLIPTIC;
    contact_rows_[r] = is_contact ? data_->efc_force[r] : 0.0;
  }
  mj_mulJacTVec(model_, data_, contact_torque_.data(), contact_rows_.data());
}

void MujocoLockstepSystem::request_push(const std::string & text)
{
  std::istringstream in(text);
  std::array<double, 7> values{};
  for (double & v : values) {in >> v;}
  if (!in || !(values[6] > 0.0 && values[6] <= 10.0) ||
    !std::all_of(values.begin(), values.end(), [](double v) {return std::isfinite(v);}))
  {
    RCLCPP_ERROR(get_logger(), "push '%s': expected 'fx fy fz mx my mz seconds' (finite, "
      "seconds in (0, 10])", text.c_str());
    return;
  }
  if (push_pending_.load(std::memory_order_acquire)) {return;}  // one at a time
  push_request_ = values;
  push_pending_.store(true, std::memory_order_release);
  RCLCPP_WARN(get_logger(), "MujocoLockstepSystem: pushing the tool with (%g %g %g) N, "
    "(%g %g %g) N m for %g s", values[0], values[1], values[2], values[3], values[4],
    values[5], values[6]);
}

void MujocoLockstepSystem::take_push()
{
  if (!push_pending_.load(std::memory_order_acquire)) {return;}
  push_wrench_ = push_request_;
  push_until_ = data_->time + push_request_[6];
  push_pending_.store(false, std::memory_order_release);
}

void MujocoLockstepSystem::push()
{
  if (push_body_ < 0) {return;}
  mju_zero(data_->qfrc_applied, model_->nv);
  if (data_->time < push_until_) {
    const mjtNum * rot = data_->xmat + 9 * push_body_;
    const mjtNum * origin = data_->xpos + 3 * push_body_;
    mjtNum point[3], force[3], torque[3];
    for (int r = 0; r < 3; ++r) {
      point[r] = origin[r] + rot[3 * r] * push_point_[0] + rot[3 * r + 1] * push_point_[1] +
        rot[3 * r + 2] * push_point_[2];
      force[r] = push_wrench_[r];
      torque[r] = push_wrench_[3 + r];
    }
    mj_applyFT(model_, data_, force, torque, point, push_body_, data_->qfrc_applied);
  }
  mju_copy(applied_push_.data(), data_->qfrc_applied, model_->nv);
}

void MujocoLockstepSystem::publish_truth(const rclcpp::Time & time)
{
  if (!truth_) {return;}
  truth_msg_.header.stamp = time;
  for (std::size_t i = 0; i < dof_.size(); ++i) {
    truth_msg_.position[i] = data_->qpos[qpos_[i]];  // the state it goes with
    truth_msg_.effort[i] = applied_push_[dof_[i]] + contact_torque_[dof_[i]];
  }
  (void)truth_->try_publish(truth_msg_);
}

void MujocoLockstepSystem::configure_witness()
{
  witness_topic_ = get_node()->create_publisher<sensor_msgs::msg::JointState>(
    "~/applied_step", rclcpp::QoS(100).reliable());
  witness_ = std::make_unique<realtime_tools::RealtimePublisher<sensor_msgs::msg::JointState>>(
    witness_topic_);
  for (const auto & joint : get_hardware_info().joints) {
    witness_msg_.name.push_back(joint.name);
  }
  const std::size_t n = actuator_.size();
  witness_msg_.position.assign(n, 0.0);
  witness_msg_.velocity.assign(n, 0.0);
  witness_msg_.effort.assign(n, 0.0);
  applied_.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {applied_[i] = data_->actuator_force[actuator_[i]];}
}

void MujocoLockstepSystem::publish_witness(const rclcpp::Time & time)
{
  if (!witness_) {return;}
  for (std::size_t i = 0; i < applied_.size(); ++i) {
    const double now = data_->actuator_force[actuator_[i]];
    const double change = std::abs(now - applied_[i]);
    applied_[i] = now;
    witness_msg_.velocity[i] = std::max(witness_msg_.velocity[i], change);
    witness_msg_.position[i] = std::max(witness_msg_.position[i], change);
    witness_msg_.effort[i] = now;
  }
  if (++witness_cycles_ < WITNESS_CYCLES) {return;}
  witness_msg_.header.stamp = time;
  if (witness_->try_publish(witness_msg_)) {
    witness_cycles_ = 0;
    std::fill(witness_msg_.velocity.begin(), witness_msg_.velocity.end(), 0.0);
  }
}

CallbackReturn MujocoLockstepSystem::fail(const std::string & why)
{
  RCLCPP_ERROR(get_logger(), "MujocoLockstepSystem: %s", why.c_str());
  return CallbackReturn::ERROR;
}

void MujocoLockstepSystem::start_hold(std::size_t i)
{
  hold_q_[i] = data_->qpos[qpos_[i]];
  const int dof = dof_[i];
  std::fill(hold_acc_.begin(), hold_acc_.end(), 0.0);
  hold_acc_[dof] = 1.0;
  mj_mulM(model_, data_, hold_force_.data(), hold_acc_.data());  // M e_dof: M_dof,dof
  hold_w_[i] = hold_bandwidth(effort_max_[i], hold_force_[dof], 0.0);
  hold_acc_[dof] = 0.0;
}

// The controllers' hold (torque_safety.hpp) on the joints no controller drives: the bias
// force (C qd + g, MuJoCo's own) + (M a) of a_i = w_i^2 (q_hold - q) - 2 w_i qd on those
// joints (0 on the others), so that the held joints decouple whatever the pose.
void MujocoLockstepSystem::hold(double step)
{
  bool any = false;
  for (std::size_t i = 0; i < claimed_.size(); ++i) {
    const int dof = dof_[i];
    hold_acc_[dof] = 0.0;
    if (claimed_[i] && !waiting_[i]) {continue;}
    any = true;
    hold_acc_[dof] = hold_w_[i] * hold_w_[i] * (hold_q_[i] - data_->qpos[qpos_[i]]) -
      2.0 * hold_w_[i] * data_->qvel[dof];
  }
  if (!any) {return;}
  mj_mulM(model_, data_, hold_force_.data(), hold_acc_.data());
  for (std::size_t i = 0; i < claimed_.size(); ++i) {
    if (claimed_[i] && !waiting_[i]) {continue;}
    const int dof = dof_[i];
    const double target = data_->qfrc_bias[dof] + hold_force_[dof];
    double & ctrl = data_->ctrl[actuator_[i]];
    const double clamped = std::clamp(target, -effort_max_[i], effort_max_[i]);
    ctrl += std::clamp(clamped - ctrl, -step, step);
  }
}

double MujocoLockstepSystem::command_max(const hardware_interface::ComponentInfo & joint)
{
  for (const auto & command : joint.command_interfaces) {
    if (command.name == hardware_interface::HW_IF_EFFORT && !command.max.empty()) {
      return std::abs(std::stod(command.max));
    }
  }
  return std::numeric_limits<double>::infinity();
}

double MujocoLockstepSystem::initial(
  const hardware_interface::ComponentInfo & joint, const std::string & name, double value)
{
  for (const auto & state : joint.state_interfaces) {
    if (state.name == name && !state.initial_value.empty()) {
      return std::stod(state.initial_value);
    }
  }
  return value;
}

}  // namespace robodyn_controllers

#include "pluginlib/class_list_macros.hpp"

PLUGINLIB_EXPORT_CLASS(
  robodyn_controllers::MujocoLockstepSystem, hardware_interface::SystemInterface)
