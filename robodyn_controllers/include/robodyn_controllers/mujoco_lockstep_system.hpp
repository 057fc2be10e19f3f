// robodyn_controllers/MujocoLockstepSystem: MuJoCo physics stepped inside controller_manager's
// loop, by each control cycle's period (one step at the nominal rate; see advance()).
//
// read() hands the controllers the state after the last step and write() applies their
// efforts until the next cycle, as a real arm's driver does at 1 kHz: every state is
// fresh, every command acts for one period. (mujoco_ros2_control's plugin runs its
// physics in a thread of its own at real time; its states lag the physics by a few steps
// and a command waits for the next one: right for a free-running simulation, not for
// measuring a controller's own tracking.) Hardware parameters: `mujoco_model` (an MJCF
// path: one joint and one `motor` actuator per ros2_control joint, both named as the
// joint), `max_torque_rate` [N m/s] (default 1000). Joint state interfaces position,
// velocity and effort; command interface effort; `initial_value` of position and effort
// state the start pose and torque.
//
// It never lets go of the arm: a joint whose effort interface no controller claims (before
// the first controller activates, and from the moment a controller releases it:
// deactivate, switch, unload, error) is held by the hardware itself, as a brake or a
// driver's own servo would, at the position where it was released: MuJoCo's bias force
// (g(q) + C(q, qd) qd) plus M(q) a, a the controllers' derived hold acceleration
// (torque_safety.hpp: critically damped, each held joint decoupled), clamped to the
// command interface's max and moving at most max_torque_rate x min(elapsed, timestep) per
// control cycle (a late cycle's further physics steps keep it, as they keep the
// controllers' commands) from the torque applied when it was released. When one controller
// hands the joint over to another in one switch, for 0.1 s the deactivated one's halt
// value (0: the JointTrajectoryController's on_deactivate) is not applied (the hardware
// holds the joint until the new controller writes) and the new controller's commands move
// the applied torque at most max_torque_rate x the period a cycle, as a drive's torque
// slew limit would.
//
// The test hardware robodyn_controllers/MujocoTestSystem (test/mujoco_test_system.hpp, built
// with the tests only) derives from it: it corrupts the states, pushes the tool and
// publishes the applied torque's witness through the protected hooks below, which do nothing
// here.

#ifndef ROBODYN_CONTROLLERS__MUJOCO_LOCKSTEP_SYSTEM_HPP_
#define ROBODYN_CONTROLLERS__MUJOCO_LOCKSTEP_SYSTEM_HPP_

#include <string>
#include <vector>

#include "hardware_interface/system_interface.hpp"
#include "hardware_interface/types/hardware_interface_return_values.hpp"
#include "mujoco/mujoco.h"
#include "rclcpp/rclcpp.hpp"

namespace robodyn_controllers
{

class MujocoLockstepSystem : public hardware_interface::SystemInterface
{
public:
  using CallbackReturn = hardware_interface::CallbackReturn;
  using return_type = hardware_interface::return_type;

  ~MujocoLockstepSystem() override;

  CallbackReturn on_init(const hardware_interface::HardwareComponentInterfaceParams & params)
  override;

  // Which joints' efforts a controller claims from now on; the others are held (see the
  // file's comment). Said once per change in the log.
  return_type perform_command_mode_switch(
    const std::vector<std::string> & start, const std::vector<std::string> & stop) override;

  CallbackReturn on_activate(const rclcpp_lifecycle::State &) override;

  // The physics advanced by this cycle's period under the last write's efforts (see
  // advance()), then its state.
  return_type read(const rclcpp::Time & time, const rclcpp::Duration & period) override;

  // The controllers' efforts, applied from now until the next read() (a non-finite command
  // keeps the last).
  return_type write(const rclcpp::Time & time, const rclcpp::Duration & period) override;

protected:
  // read()'s physics: advance() when write() ran since the last read().
  void step_physics(const rclcpp::Time & time, const rclcpp::Duration & period);

  // Joint i's state as the physics has it [rad, rad/s, N m], and handed to the controllers.
  double position(std::size_t i) const {return data_->qpos[qpos_[i]];}
  double velocity(std::size_t i) const {return data_->qvel[dof_[i]];}
  double applied(std::size_t i) const {return data_->actuator_force[actuator_[i]];}
  void report(std::size_t i, double q, double qd, double effort);

  // A test hardware's hooks into advance() (nothing here), each called in the control
  // thread: before a cycle's physics steps; after each step's mj_step1 (its kinematics, the
  // bias force and the hold set: forces added here act in this step); after the cycle's
  // first step; after its last.
  virtual void before_steps() {}
  virtual void during_step() {}
  virtual void after_first_step() {}
  virtual void after_steps(const rclcpp::Time & /*time*/) {}

  CallbackReturn fail(const std::string & why);

  std::size_t joints() const {return qpos_.size();}

  mjModel * model_ = nullptr;
  mjData * data_ = nullptr;
  std::vector<int> qpos_, dof_, actuator_;
  double timestep_ = 0.0;  // the model's timestep [s] (opt.timestep: changed per cycle)

private:
  // At read(), when write() ran since the last one (the hardware is active): the physics
  // advances by the cycle's period exactly (physics_steps.hpp: the time since the last
  // read, the time the last write's efforts acted), as a real arm's world goes on, at most
  // MAX_STEPS steps' worth, at least one step, so every command is applied. A late cycle
  // advances as far as the world went on meanwhile, an early one (controller_manager
  // catching up: 0.27 ms after the last) only that far: with whole steps of the model's
  // timestep, at least one a cycle, each early cycle put the physics up to a step ahead of
  // the clock the JTC samples its reference on (1.5e-3 rad of tracking error at 1.5 rad/s,
  // decaying over 0.2 s, beside two hogs). By
  // read()'s period, not write()'s (the cycle before's): a state reports what its cycle's
  // period did, as a controller integrates over (the collision observer's momentum).
  void advance(const rclcpp::Time & time, double elapsed);

  // Physics steps of one late cycle, at most: beyond 20 ms the simulated world waits for
  // the loop (a stall of the host is not the arm's; at most 20 ms of a stale command).
  static constexpr double MAX_STEPS = 20.0;
  // A handover's wait for the new controller's first command, at most [cycles]: 0.1 s at
  // 1 kHz (a forward controller's first message; the C++ controller writes at once).
  static constexpr int HANDOVER_CYCLES = 100;

  // The hold of joint i starts here, at its current position, from its current torque.
  void start_hold(std::size_t i);

  // The unclaimed joints' torques for the next physics step (after mj_step1), each moving
  // at most `step` [N m or N]: max_torque_rate x min(elapsed, timestep), the controllers'
  // arithmetic (torque_safety.hpp rate_step).
  void hold(double step);

  // The command interface's `max` [N m or N] (infinite when not given).
  static double command_max(const hardware_interface::ComponentInfo & joint);

  static double initial(
    const hardware_interface::ComponentInfo & joint, const std::string & name, double value);

  std::vector<bool> claimed_;  // a controller writes this joint's effort
  // Cycles left of a handover: an effort of exactly 0 is the halt value a deactivated
  // controller left in the interface (the JointTrajectoryController writes 0 on deactivate,
  // after the hardware's switch), not the new controller's command: the hardware holds
  // meanwhile; the new controller's commands are slewed at max_torque_rate.
  std::vector<int> handover_;
  std::vector<bool> waiting_;  // this cycle: held, the new controller has not written yet
  std::vector<double> hold_q_, hold_w_, effort_max_;
  // the hold's acceleration and M times it, per MuJoCo dof (sized nv at configure)
  std::vector<mjtNum> hold_acc_, hold_force_;
  bool written_ = false;  // write() ran since the last read(): the physics advances
  double max_rate_ = 1000.0;
  std::vector<hardware_interface::StateInterface::SharedPtr> position_, velocity_, effort_;
  std::vector<hardware_interface::CommandInterface::SharedPtr> command_;
};

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__MUJOCO_LOCKSTEP_SYSTEM_HPP_
