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
// joint), `max_torque_rate` [N m/s] (default 1000). Joint state interfaces position,
// velocity and effort; command interface effort; `initial_value` of position and effort
// state the start pose and torque.
//
// It never lets go of the arm: a joint whose effort interface no controller claims (before
// the first controller activates, and from the moment a controller releases it:
// deactivate, switch, unload, error) is held by the hardware itself, as a brake or a
// driver's own servo would, at the position where it was released: MuJoCo's bias force
// (g(q) + C(q, qd) qd) plus a critically damped PD with the controllers' derived hold gains
// (torque_safety.hpp), clamped to the command interface's max and moving at most
// max_torque_rate x min(elapsed, timestep) per control cycle (a late cycle's further physics
// steps keep it, as they keep the controllers' commands) from the torque applied when it was
// released. When one controller hands the joint over to another in one switch, for 0.1 s
// the deactivated one's halt value (0: the JointTrajectoryController's on_deactivate) is
// not applied (the hardware holds the joint until the new controller writes) and the new
// controller's commands move the applied torque at most max_torque_rate x the period a
// cycle, as a drive's torque slew limit would.
//
// Test only: with the hardware parameter `fault_injection` "true" it subscribes to
// `~/inject_fault` (std_msgs/String, "<kind> <seconds> [joint, 1-based; 0 or none: all]")
// and corrupts the states read() hands the controllers, as a failing encoder or driver
// would: `nan` (positions NaN), `out_of_range` (positions 10 rad beyond), `frozen` (the
// whole state repeats the one of the first corrupted cycle), `jump` (positions 0.5 rad
// off); or makes the next read() `late` by `seconds` (a driver that blocks the loop). The
// physics is not touched: the arm is where it is, only its report lies.
//
// Test only, with fault injection: `~/push` (std_msgs/String, "fx fy fz mx my mz seconds")
// pushes the tool for that long from the next cycle: the wrench [N, N m] in the world
// (base) frame at the point `push_point` ("x y z" [m], hardware parameter) of the body
// `push_body` (hardware parameter; the tip link's origin as robodyn_ros writes them),
// applied by MuJoCo's mj_applyFT. Its joint torque over each cycle, the ground truth of a
// collision observer, goes out on `~/external_torque` (sensor_msgs/JointState, effort;
// zeros outside a push) with each state, plus the joint torque of the tool's contact with
// the obstacle when the MJCF has one (the launch's `obstacle`: contact forces mapped
// through MuJoCo's own constraint Jacobian, contact rows only), and that state's
// positions (read()'s time is not the clock the controllers' messages carry: the
// positions tell which state it was).
//
// Test only, with fault injection: `~/applied_step` (sensor_msgs/JointState), the witness
// of the torque-rate invariant judged from what the hardware applied: after each cycle's
// physics, per joint, `velocity` the largest change of the applied torque (MuJoCo's
// actuator force) in one cycle since the last message [N m], `position` the largest such
// change since the hardware started, `effort` the torque applied; one message every 10
// cycles. A subscriber that loses messages (a busy test machine) still learns every
// cycle's worst from the running maximum: the witness does not depend on receiving each
// cycle, as a recording of /joint_states does.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "hardware_interface/system_interface.hpp"
#include "hardware_interface/types/hardware_interface_return_values.hpp"
#include "hardware_interface/types/hardware_interface_type_values.hpp"
#include "mujoco/mujoco.h"
#include "rclcpp/rclcpp.hpp"
#include "realtime_tools/realtime_publisher.hpp"
#include "robodyn_controllers/torque_safety.hpp"
#include "sensor_msgs/msg/joint_state.hpp"
#include "std_msgs/msg/string.hpp"

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
    hold_kp_.assign(n, 0.0);
    hold_kd_.assign(n, 0.0);
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

  // Which joints' efforts a controller claims from now on; the others are held (see the
  // file's comment). Said once per change in the log.
  return_type perform_command_mode_switch(
    const std::vector<std::string> & start, const std::vector<std::string> & stop) override
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
          "hardware (kp %.4g, kd %.4g, bias force)", joints[i].name.c_str(), hold_q_[i],
          hold_kp_[i], hold_kd_[i]);
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

  // The state after the last physics step (corrupted while a fault is injected).
  return_type read(const rclcpp::Time & time, const rclcpp::Duration &) override
  {
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

  // The controllers' efforts until the next cycle (a non-finite command keeps the last),
  // for as many physics steps as keep the physics' time on controller_manager's (the
  // cycles' periods summed: a late cycle advances the physics as far as the world went on
  // meanwhile, as a real arm's does, at most MAX_STEPS; every cycle at least one step, so
  // every command is applied). Without the sum, jittery periods rounded one by one would
  // let the physics drift from the clock the JTC samples its reference on.
  return_type write(const rclcpp::Time & time, const rclcpp::Duration & period) override
  {
    const double dt = model_->opt.timestep;
    const double elapsed = period.seconds();
    const double step = max_rate_ * std::clamp(std::isfinite(elapsed) ? elapsed : dt, 0.0, dt);
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
        if (handover_[i] > 0) {  // the new controller's commands, slewed from the torque
          --handover_[i];         // applied at the handover at max_torque_rate meanwhile
          ctrl += std::clamp(value - ctrl, -step, step);
        } else {
          ctrl = value;
        }
      }
    }
    lag_ += std::isfinite(elapsed) ? elapsed : dt;
    const int count = static_cast<int>(std::clamp(std::round(lag_ / dt), 1.0, MAX_STEPS));
    lag_ = std::clamp(lag_ - count * dt, -dt, dt);  // beyond MAX_STEPS the world stood still
    take_push();
    std::fill(contact_torque_.begin(), contact_torque_.end(), 0.0);
    for (int k = 0; k < count; ++k) {
      mj_step1(model_, data_);  // positions and velocities: the bias force of this state
      if (k == 0) {  // the hold, like the controllers' commands, moves once per cycle
        hold(step);
      }
      push();
      mj_step2(model_, data_);
      if (k == 0) {contact();}  // the contact of this cycle's first step, as its push
    }
    publish_witness(time);
    return return_type::OK;
  }

private:
  enum class Fault : int {NONE = 0, NAN_STATE, OUT_OF_RANGE, FROZEN, JUMP, LATE};

  // From ~/inject_fault (the executor's thread): parsed here, handed to read() through
  // one atomic word (kind, cycles and joint packed), so read() never waits on it.
  void request_fault(const std::string & text)
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
    const auto cycles = static_cast<std::uint64_t>(std::ceil(seconds / model_->opt.timestep));
    const auto late_us = static_cast<std::uint64_t>(std::round(seconds * 1e6));
    pending_.store((static_cast<std::uint64_t>(fault) << 56) |
      (static_cast<std::uint64_t>(joint) << 48) |
      ((fault == Fault::LATE ? late_us : cycles) & 0xFFFFFFFFFFFFull), std::memory_order_release);
    RCLCPP_WARN(get_logger(), "MujocoLockstepSystem: injecting %s for %.3f s on %s",
      kind.c_str(), seconds, joint == 0 ? "every joint" : "one joint");
  }

  // The fault to apply this cycle: a new request replaces the one running.
  Fault take_fault()
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

  // The push's hardware parameters, its request topic and the ground truth's publisher.
  bool configure_push(const std::unordered_map<std::string, std::string> & hw)
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

  // After a step: the joint torque of the contacts in it (MuJoCo's contact rows of
  // efc_force through its constraint Jacobian, mj_mulJacTVec), for the ground truth.
  // The forces are copied into a buffer sized once; a step with more constraint rows than
  // it holds reports NaN (the truth unknown, never a wrong value).
  void contact()
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

  // From ~/push (the executor's thread): the wrench and duration, handed to write()
  // through push_request_ and one atomic flag (write() never waits on it).
  void request_push(const std::string & text)
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

  void take_push()
  {
    if (!push_pending_.load(std::memory_order_acquire)) {return;}
    push_wrench_ = push_request_;
    push_until_ = data_->time + push_request_[6];
    push_pending_.store(false, std::memory_order_release);
  }

  // After mj_step1 (this step's kinematics): the push's joint torque into qfrc_applied,
  // as MuJoCo maps it (mj_applyFT), kept for the ground truth.
  void push()
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

  // With each state: the push's joint torque over the last cycle (non-blocking).
  void publish_truth(const rclcpp::Time & time)
  {
    if (!truth_) {return;}
    truth_msg_.header.stamp = time;
    for (std::size_t i = 0; i < dof_.size(); ++i) {
      truth_msg_.position[i] = data_->qpos[qpos_[i]];  // the state it goes with
      truth_msg_.effort[i] = applied_push_[dof_[i]] + contact_torque_[dof_[i]];
    }
    (void)truth_->try_publish(truth_msg_);
  }

  // The applied-step witness's publisher and message (see the file's comment).
  void configure_witness()
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

  // After a cycle's physics: each joint's applied-torque change, kept as the largest since
  // the last message and as the running maximum, and the torque; one message every
  // WITNESS_CYCLES cycles (non-blocking: a cycle whose message could not go keeps
  // gathering; no allocation: the message's vectors are sized at configure).
  void publish_witness(const rclcpp::Time & time)
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

  // Physics steps of one late cycle, at most: beyond 20 ms the simulated world waits for
  // the loop (a stall of the host is not the arm's; at most 20 ms of a stale command).
  static constexpr double MAX_STEPS = 20.0;
  // A handover's wait for the new controller's first command, at most [cycles]: 0.1 s at
  // 1 kHz (a forward controller's first message; the C++ controller writes at once).
  static constexpr int HANDOVER_CYCLES = 100;
  // Cycles per applied-step witness message (100 Hz at 1 kHz: a subscriber beside the hogs
  // keeps up; each message carries the largest change of its cycles).
  static constexpr int WITNESS_CYCLES = 10;

  CallbackReturn fail(const std::string & why)
  {
    RCLCPP_ERROR(get_logger(), "MujocoLockstepSystem: %s", why.c_str());
    return CallbackReturn::ERROR;
  }

  // The hold of joint i starts here, at its current position, from its current torque.
  void start_hold(std::size_t i)
  {
    hold_q_[i] = data_->qpos[qpos_[i]];
    const int dof = dof_[i];
    std::vector<mjtNum> unit(model_->nv, 0.0), column(model_->nv, 0.0);
    unit[dof] = 1.0;
    mj_mulM(model_, data_, column.data(), unit.data());  // M e_dof: its diagonal entry
    const double inertia = column[dof];
    hold_kp_[i] = hold_stiffness(effort_max_[i], inertia);
    hold_kd_[i] = critical_damping(hold_kp_[i], inertia);
  }

  // The unclaimed joints' torques for the next physics step (after mj_step1), each moving
  // at most `step` [N m or N]: max_torque_rate x min(elapsed, timestep), the controllers'
  // arithmetic (torque_safety.hpp rate_step).
  void hold(double step)
  {
    for (std::size_t i = 0; i < claimed_.size(); ++i) {
      if (claimed_[i] && !waiting_[i]) {continue;}
      const int dof = dof_[i];
      const double target = data_->qfrc_bias[dof] + hold_kp_[i] * (hold_q_[i] -
        data_->qpos[qpos_[i]]) - hold_kd_[i] * data_->qvel[dof];
      double & ctrl = data_->ctrl[actuator_[i]];
      const double clamped = std::clamp(target, -effort_max_[i], effort_max_[i]);
      ctrl += std::clamp(clamped - ctrl, -step, step);
    }
  }

  // The command interface's `max` [N m or N] (infinite when not given).
  static double command_max(const hardware_interface::ComponentInfo & joint)
  {
    for (const auto & command : joint.command_interfaces) {
      if (command.name == hardware_interface::HW_IF_EFFORT && !command.max.empty()) {
        return std::abs(std::stod(command.max));
      }
    }
    return std::numeric_limits<double>::infinity();
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
  std::vector<bool> claimed_;  // a controller writes this joint's effort
  // Cycles left of a handover: an effort of exactly 0 is the halt value a deactivated
  // controller left in the interface (the JointTrajectoryController writes 0 on deactivate,
  // after the hardware's switch), not the new controller's command: the hardware holds
  // meanwhile; the new controller's commands are slewed at max_torque_rate.
  std::vector<int> handover_;
  std::vector<bool> waiting_;  // this cycle: held, the new controller has not written yet
  std::vector<double> hold_q_, hold_kp_, hold_kd_, effort_max_;
  double lag_ = 0.0;  // controller_manager's time not yet stepped by the physics [s]
  // fault injection (test only): the request, the fault running and its cycles left
  rclcpp::Subscription<std_msgs::msg::String>::SharedPtr injector_;
  std::atomic<std::uint64_t> pending_{0};
  Fault fault_ = Fault::NONE;
  int fault_joint_ = 0;
  std::uint64_t fault_cycles_ = 0;
  bool fault_first_ = false;
  double fault_seconds_ = 0.0;
  std::vector<double> frozen_;
  // the push (test only): body, point in it, the wrench running and until when [s]
  int push_body_ = -1;
  std::array<double, 3> push_point_{};
  std::array<double, 7> push_request_{}, push_wrench_{};
  std::atomic<bool> push_pending_{false};
  double push_until_ = -1.0;
  std::vector<mjtNum> applied_push_;
  // the obstacle's contact (test only): its joint torque in the last cycle's first step,
  // and the contact rows of efc_force (room for 4096 constraint rows)
  std::vector<mjtNum> contact_torque_, contact_rows_ = std::vector<mjtNum>(4096, 0.0);
  rclcpp::Subscription<std_msgs::msg::String>::SharedPtr pusher_;
  rclcpp::Publisher<sensor_msgs::msg::JointState>::SharedPtr truth_topic_;
  std::unique_ptr<realtime_tools::RealtimePublisher<sensor_msgs::msg::JointState>> truth_;
  sensor_msgs::msg::JointState truth_msg_;
  // the applied-step witness (test only): the torque applied after the last cycle [N m]
  std::vector<double> applied_;
  int witness_cycles_ = 0;
  rclcpp::Publisher<sensor_msgs::msg::JointState>::SharedPtr witness_topic_;
  std::unique_ptr<realtime_tools::RealtimePublisher<sensor_msgs::msg::JointState>> witness_;
  sensor_msgs::msg::JointState witness_msg_;
  double max_rate_ = 1000.0;
  std::vector<hardware_interface::StateInterface::SharedPtr> position_, velocity_, effort_;
  std::vector<hardware_interface::CommandInterface::SharedPtr> command_;
};

}  // namespace robodyn_controllers

#include "pluginlib/class_list_macros.hpp"

PLUGINLIB_EXPORT_CLASS(
  robodyn_controllers::MujocoLockstepSystem, hardware_interface::SystemInterface)
