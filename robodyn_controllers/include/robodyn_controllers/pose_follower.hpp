// A tool pose target (~/target_pose) as a joint reference, without ROS, allocation or locks
// after configure(): the arithmetic of robodyn_ros' control/reference/pose_target.py, step
// for step (a conformance test feeds both the same targets).
//
// check_pose_target() takes a target at the boundary (finite, a unit quaternion within
// QUATERNION_SLACK, its position put inside the workspace box) into DH frame 0. The
// follower moves a commanded pose towards the last target at most at `speed` [m/s] and
// `rotation_speed` [rad/s], its velocity changing at most at speed / RISE_TIME, and the joint reference to it by damped least squares,
// q_r' = J^T (J J^T + mu^2 1)^-1 (x_c' + IK_RATE e) + N k (q_p - q_r) (J: seed 000 eqs.
// 23-24, tip_kinematics.hpp; N = 1 - J^+ J, q_p the start clipped to the middle 60 % of each
// range). The joint velocity is scaled into the velocity limits (one factor), its change
// into the acceleration limits, and each joint brakes before its position limit: the
// reference never leaves the limits in position, velocity or acceleration. It advances in
// fixed steps of the control period, at most MAX_STEPS a cycle.
#ifndef ROBODYN_CONTROLLERS__POSE_FOLLOWER_HPP_
#define ROBODYN_CONTROLLERS__POSE_FOLLOWER_HPP_

#include <array>
#include <cstddef>
#include <vector>

#include "robodyn_controllers/dh_dynamics.hpp"
#include "robodyn_controllers/tip_kinematics.hpp"

namespace robodyn_controllers
{

// A checked target in DH frame 0: position [m], the tool's axes (row-major 3x3).
struct PoseTarget
{
  std::array<double, 3> position{};
  std::array<double, 9> rotation{};
  bool clamped = false;  // the box moved its position
};

// What check_pose_target made of a target.
enum class TargetCheck {OK, CLAMPED, NOT_FINITE, NOT_UNIT};

// `position` (3) [m] and `quaternion` (x, y, z, w) in the base link frame; `base_rotation`
// (row-major 3x3) and `base_point` [m] DH frame 0 in the base link frame; `box` x y z min,
// then max [m], in the base link frame. Fills `out` unless refused. Allocates nothing.
TargetCheck check_pose_target(
  const double * position, const double * quaternion,
  const std::array<double, 9> & base_rotation, const std::array<double, 3> & base_point,
  const std::array<double, 6> & box, PoseTarget & out) noexcept;

class PoseFollower
{
public:
  static constexpr double IK_RATE = 10.0;  // [1/s]; the correction at most the pose's speeds
  static constexpr double MU = 0.05;  // [m, rad]
  static constexpr double NULL_MU = 1e-3;  // the nullspace projector's
  // How far the commanded pose may lead the reference's tool [m, rad].
  static constexpr double LEAD = 0.05, ROTATION_LEAD = 0.2;
  static constexpr double POSTURE_RATE = 2.0;  // [1/s]
  // Below this smallest singular value of J [m, rad] the task's joint velocity is scaled
  // by sigma / SIGMA_SLOW: the reference slows into a singularity instead of crossing it.
  static constexpr double SIGMA_SLOW = 0.1;
  // What /diagnostics' singularity says while a step is slowed (robodyn_ros' SLOWED).
  static constexpr const char * SLOWED =
    "slowed near a singularity (J's smallest singular value below 0.1)";
  static constexpr int MAX_STEPS = 10;
  // How long the commanded pose takes to reach its speed from rest [s].
  static constexpr double RISE_TIME = 0.25;
  // Joint i's jerk is at most JERK_SHARE x torque_rate / M_ii(q), M's diagonal evaluated
  // every INERTIA_EVERY steps: M q_r''' stays well within the law's torque rate limit.
  static constexpr double JERK_SHARE = 0.25;
  static constexpr int INERTIA_EVERY = 20;
  // The reference's velocity follows the least-squares one with this time constant [s].
  static constexpr double VELOCITY_TIME = 0.02;
  // The share of the velocity and acceleration limits the follower plans with: its
  // reference stays well inside the supervisor's bounds and guards.
  static constexpr double LIMIT_SHARE = 0.5;
  // Where a limit is not finite [rad/s, rad/s^2].
  static constexpr double FALLBACK_SPEED = 1.0, FALLBACK_ACCELERATION = 10.0;

  // n joints, their admissible positions, |velocities| and |accelerations| (n each), the
  // commanded pose's speeds [m/s, rad/s], the period [s], the tip frame (tool_rotation,
  // tool_point as TipKinematics takes them), the law's torque rate limit [N m/s] (infinite:
  // no jerk bound). Allocates (not real-time); throws std::invalid_argument on a bound that
  // is not positive.
  void configure(
    std::size_t n, const std::vector<double> & lower, const std::vector<double> & upper,
    const std::vector<double> & velocity, const std::vector<double> & acceleration,
    double speed, double rotation_speed, double period,
    const std::array<double, 9> & tool_rotation, const std::array<double, 3> & tool_point,
    double torque_rate);
  // Take over from the reference (q, qd) at time t [s]: the commanded pose is its tool's,
  // and so is the target. Allocates nothing.
  void start(const DhDynamics & dyn, const double * q, const double * qd, double t) noexcept;
  void aim(const PoseTarget & target) noexcept {target_ = target;}
  bool started() const noexcept {return started_;}
  void stop() noexcept {started_ = false;}
  // Step to time t [s] (at most MAX_STEPS steps); the reference: positions, velocities,
  // accelerations (n each). Allocates nothing.
  const double * advance(DhDynamics & dyn, double t) noexcept;
  const std::array<double, 3> & commanded_point() const noexcept {return p_c_;}
  // The last step was slowed near a singularity (SIGMA_SLOW).
  bool slowed() const noexcept {return slowed_;}

private:
  void command(double * xd) noexcept;
  void step(DhDynamics & dyn) noexcept;
  void move(DhDynamics & dyn, double * wanted) noexcept;

  std::size_t n_ = 0;
  double speed_ = 0.0, rotation_speed_ = 0.0, h_ = 0.001, t_ = 0.0, torque_rate_ = 0.0;
  long steps_ = 0;
  bool started_ = false, slowed_ = false;
  TipKinematics tip_;
  PoseTarget target_;
  std::array<double, 3> p_c_{};
  std::array<double, 9> r_c_{};
  std::array<double, 3> v_c_{}, w_c_{};  // the commanded pose's velocity [m/s, rad/s]
  std::vector<double> lower_, upper_, vmax_, amax_, posture_, out_, jac_, wanted_, rest_,
    jerk_;
};

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__POSE_FOLLOWER_HPP_
