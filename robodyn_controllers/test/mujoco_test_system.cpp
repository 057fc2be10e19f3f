// robodyn_controllers/MujocoTestSystem: the lock-step MuJoCo hardware with fault
// injection, pushes and the applied-step witness (what it does: mujoco_test_system.hpp).

#include "mujoco_test_system.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <thread>

namespace robodyn_controllers
{
using hardware_interface::CallbackReturn;
using hardware_interface::return_type;

CallbackReturn MujocoTestSystem::on_init(
  const hardware_interface::HardwareComponentInterfaceParams & params)
{
  if (MujocoLockstepSystem::on_init(params) != CallbackReturn::SUCCESS) {
    return CallbackReturn::ERROR;
  }
  if (!get_node()) {return fail("MujocoTestSystem: the hardware has no node to listen on");}
  frozen_.assign(3 * joints(), 0.0);
  injector_ = get_node()->create_subscription<std_msgs::msg::String>(
    "~/inject_fault", rclcpp::QoS(10).reliable(),
    [this](const std_msgs::msg::String & msg) {request_fault(msg.data);});
  RCLCPP_WARN(get_logger(), "MujocoTestSystem: fault injection enabled on %s (test only)",
    injector_->get_topic_name());
  if (!configure_push(get_hardware_info().hardware_parameters)) {return CallbackReturn::ERROR;}
  configure_witness();
  return CallbackReturn::SUCCESS;
}

return_type MujocoTestSystem::read(
  const rclcpp::Time & time, const rclcpp::Duration & period)
{
  step_physics(time, period);
  publish_truth(time);
  const Fault fault = take_fault();
  if (fault == Fault::LATE) {
    std::this_thread::sleep_for(std::chrono::duration<double>(fault_seconds_));
  }
  for (std::size_t i = 0; i < joints(); ++i) {
    double q = position(i), qd = velocity(i), effort = applied(i);
    const bool hit = fault_joint_ == 0 || fault_joint_ == static_cast<int>(i) + 1;
    if (fault != Fault::NONE && hit) {corrupt(fault, i, q, qd, effort);}
    report(i, q, qd, effort);
  }
  fault_first_ = false;
  if (fault_cycles_ > 0) {--fault_cycles_;}
  return return_type::OK;
}

void MujocoTestSystem::corrupt(Fault fault, std::size_t i, double & q, double & qd,
  double & effort)
{
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

void MujocoTestSystem::request_fault(const std::string & text)
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
  if (fault == Fault::NONE || joint < 0 || joint > static_cast<int>(joints())) {
    RCLCPP_ERROR(get_logger(), "inject_fault '%s': kind one of nan, out_of_range, frozen, "
      "jump, late; joint 0 (all) to %zu", text.c_str(), joints());
    return;
  }
  const auto cycles = static_cast<std::uint64_t>(std::ceil(seconds / timestep_));
  const auto late_us = static_cast<std::uint64_t>(std::round(seconds * 1e6));
  pending_.store((static_cast<std::uint64_t>(fault) << 56) |
    (static_cast<std::uint64_t>(joint) << 48) |
    ((fault == Fault::LATE ? late_us : cycles) & 0xFFFFFFFFFFFFull), std::memory_order_release);
  RCLCPP_WARN(get_logger(), "MujocoTestSystem: injecting %s for %.3f s on %s",
    kind.c_str(), seconds, joint == 0 ? "every joint" : "one joint");
}

MujocoTestSystem::Fault MujocoTestSystem::take_fault()
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

bool MujocoTestSystem::configure_push(const std::unordered_map<std::string, std::string> & hw)
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
  truth_msg_.position.assign(joints(), 0.0);
  truth_msg_.effort.assign(joints(), 0.0);
  applied_push_.assign(model_->nv, 0.0);
  contact_torque_.assign(model_->nv, 0.0);
  return true;
}

void MujocoTestSystem::after_first_step()
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

void MujocoTestSystem::request_push(const std::string & text)
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
  RCLCPP_WARN(get_logger(), "MujocoTestSystem: pushing the tool with (%g %g %g) N, "
    "(%g %g %g) N m for %g s", values[0], values[1], values[2], values[3], values[4],
    values[5], values[6]);
}

void MujocoTestSystem::before_steps()
{
  std::fill(contact_torque_.begin(), contact_torque_.end(), 0.0);
  if (!push_pending_.load(std::memory_order_acquire)) {return;}
  push_wrench_ = push_request_;
  push_until_ = data_->time + push_request_[6];
  push_pending_.store(false, std::memory_order_release);
}

void MujocoTestSystem::during_step()
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

void MujocoTestSystem::publish_truth(const rclcpp::Time & time)
{
  if (!truth_) {return;}
  truth_msg_.header.stamp = time;
  for (std::size_t i = 0; i < dof_.size(); ++i) {
    truth_msg_.position[i] = data_->qpos[qpos_[i]];  // the state it goes with
    truth_msg_.effort[i] = applied_push_[dof_[i]] + contact_torque_[dof_[i]];
  }
  (void)truth_->try_publish(truth_msg_);
}

void MujocoTestSystem::configure_witness()
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

void MujocoTestSystem::after_steps(const rclcpp::Time & time)
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

}  // namespace robodyn_controllers

#include "pluginlib/class_list_macros.hpp"

PLUGINLIB_EXPORT_CLASS(
  robodyn_controllers::MujocoTestSystem, hardware_interface::SystemInterface)
