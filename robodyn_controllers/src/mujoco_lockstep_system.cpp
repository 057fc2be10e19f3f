// robodyn_controllers/MujocoLockstepSystem: the lock-step MuJoCo hardware (what it does and
// its parameters: mujoco_lockstep_system.hpp).

#include "robodyn_controllers/mujoco_lockstep_system.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

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
  step_physics(time, period);
  for (std::size_t i = 0; i < position_.size(); ++i) {
    report(i, position(i), velocity(i), applied(i));
  }
  return return_type::OK;
}

void MujocoLockstepSystem::step_physics(
  const rclcpp::Time & time, const rclcpp::Duration & period)
{
  if (written_) {advance(time, period.seconds());}  // the last write's efforts, until now
  written_ = false;
}

void MujocoLockstepSystem::report(std::size_t i, double q, double qd, double effort)
{
  (void)set_state(position_[i], q, false);
  (void)set_state(velocity_[i], qd, false);
  (void)set_state(effort_[i], effort, false);
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
  before_steps();
  model_->opt.timestep = steps.step;
  for (int k = 0; k < steps.count; ++k) {
    mj_step1(model_, data_);  // positions and velocities: the bias force of this state
    if (k == 0) {  // the hold, like the controllers' commands, moves once per cycle
      hold(step);
    }
    during_step();
    mj_step2(model_, data_);
    if (k == 0) {after_first_step();}
  }
  model_->opt.timestep = dt;
  after_steps(time);
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
