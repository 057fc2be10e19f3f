// robodyn_controllers/MujocoLockstepSystem: MuJoCo physics stepped inside controller_manager's
// loop, by each control cycle's period (one step at the nominal rate; see write()).
//
// read() hands the controllers the state after the last step and write() applies their
// efforts until the next cycle, as a real arm's driver does at 1 kHz: every state is
// fresh, every command acts for one period. (mujoco_ros2_control's plugin runs its
// physics in a thread of its own at real time; its states lag the physics by a few steps
// and a command waits for the next one: right for a free-running simulation, not for
// measuring a controller's own tracking.) Hardware parameters: `mujoco_model` (an MJCF
// path: one joint and one `motor` actuator per ros2_control joint, both named as the
// joint). Joint state interfaces position, velocity and effort; command interface effort;
// `initial_value` of position and effort state the start pose and torque.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "hardware_interface/system_interface.hpp"
#include "hardware_interface/types/hardware_interface_return_values.hpp"
#include "hardware_interface/types/hardware_interface_type_values.hpp"
#include "mujoco/mujoco.h"
#include "rclcpp/rclcpp.hpp"

namespace robodyn_controllers
{
using hardware_interface::CallbackReturn;
using hardware_interface::return_type;

class MujocoLockstepSystem : public hardware_interface::SystemInterface
{
public:
  ~MujocoLockstepSystem() override
  {
    if (data_ != nullptr) {mj_deleteData(data_);}
    if (model_ != nullptr) {mj_deleteModel(model_);}
  }

  CallbackReturn on_init(const hardware_interface::HardwareComponentInterfaceParams & params)
  override
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
    }
    mj_forward(model_, data_);
    return CallbackReturn::SUCCESS;
  }

  CallbackReturn on_activate(const rclcpp_lifecycle::State &) override
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

  // The state after the last physics step.
  return_type read(const rclcpp::Time &, const rclcpp::Duration &) override
  {
    for (std::size_t i = 0; i < position_.size(); ++i) {
      (void)set_state(position_[i], data_->qpos[qpos_[i]], false);
      (void)set_state(velocity_[i], data_->qvel[dof_[i]], false);
      (void)set_state(effort_[i], data_->actuator_force[actuator_[i]], false);
    }
    return return_type::OK;
  }

  // The controllers' efforts until the next cycle (a non-finite command keeps the last):
  // as many physics steps as the cycle's period holds (one at the nominal rate; a late
  // cycle advances the physics as far as the world went on meanwhile, as a real arm's
  // does, at most MAX_STEPS).
  return_type write(const rclcpp::Time &, const rclcpp::Duration & period) override
  {
    for (std::size_t i = 0; i < command_.size(); ++i) {
      double value = std::numeric_limits<double>::quiet_NaN();
      if (get_command(command_[i], value, false) && std::isfinite(value)) {
        data_->ctrl[actuator_[i]] = value;
      }
    }
    const double steps = std::round(period.seconds() / model_->opt.timestep);
    const int count = std::isfinite(steps) ? static_cast<int>(std::clamp(steps, 1.0, MAX_STEPS))
      : 1;
    for (int k = 0; k < count; ++k) {mj_step(model_, data_);}
    return return_type::OK;
  }

private:
  static constexpr double MAX_STEPS = 20.0;  // physics steps of one late cycle, at most

  CallbackReturn fail(const std::string & why)
  {
    RCLCPP_ERROR(get_logger(), "MujocoLockstepSystem: %s", why.c_str());
    return CallbackReturn::ERROR;
  }

  static double initial(
    const hardware_interface::ComponentInfo & joint, const std::string & name, double value)
  {
    for (const auto & state : joint.state_interfaces) {
      if (state.name == name && !state.initial_value.empty()) {
        return std::stod(state.initial_value);
      }
    }
    return value;
  }

  mjModel * model_ = nullptr;
  mjData * data_ = nullptr;
  std::vector<int> qpos_, dof_, actuator_;
  std::vector<hardware_interface::StateInterface::SharedPtr> position_, velocity_, effort_;
  std::vector<hardware_interface::CommandInterface::SharedPtr> command_;
};

}  // namespace robodyn_controllers

#include "pluginlib/class_list_macros.hpp"

PLUGINLIB_EXPORT_CLASS(
  robodyn_controllers::MujocoLockstepSystem, hardware_interface::SystemInterface)
