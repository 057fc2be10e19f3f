// Is a parameter file a physically possible model of the robot controller_manager drives?
// The controller refuses one that is not, before it may command a torque: robodyn export
// writes exact rows, so anything else is an edit, a file of another robot or a damaged one.
#ifndef ROBODYN_CONTROLLERS__MODEL_CHECK_HPP_
#define ROBODYN_CONTROLLERS__MODEL_CHECK_HPP_

#include <array>
#include <string>
#include <vector>

#include "robodyn_controllers/dh_dynamics.hpp"

namespace robodyn_controllers
{

// The limits of joint i as the parameter file gives them (SI units).
struct JointLimits
{
  double effort = 0.0, velocity = 0.0, acceleration = 0.0, lower = 0.0, upper = 0.0;
};

// Largest |gravity| accepted [m/s^2]: three times the Earth's.
constexpr double MAX_GRAVITY = 30.0;
// Kinematics: a DH model reproduces the description's joint axes to this [m or rad]; the
// export is exact to about 1e-12, so only an edit or another robot's rows exceed it.
constexpr double AXIS_TOLERANCE = 1e-6;

// The arm's reach [m]: the sum of its rows' |a| + |d| (the bound on any body's size and
// on where its tool can be).
double arm_reach(const std::vector<DhLink> & links);

// Configuration number `sample` of a low-discrepancy sequence spread over the joints'
// ranges ([-pi, pi] where a range is not finite): sample 0 is each range's start offset by
// the joint's own irrational step, so no two joints move together. Written into q.
void spread_configuration(
  int sample, const std::vector<JointLimits> & limits, std::vector<double> & q);

// "" when the model is possible on its own: finite positive effort, velocity and
// acceleration limits, finite position limits (unless `continuous[i]`), |gravity| within
// MAX_GRAVITY, and each link's inertia about its centre of mass at most 2 m R^2 with R the
// arm's reach (sum of |a| + |d|, plus 1 m): no body can be larger than the arm it belongs
// to. Otherwise one line naming the field, the joint and the valid range.
std::string check_limits_and_inertia(
  const std::vector<std::string> & joints, const std::vector<DhLink> & links,
  const std::vector<JointLimits> & limits, const std::vector<bool> & continuous,
  const std::array<double, 3> & gravity);

// "" when the model is one of the robot in `urdf` (controller_manager's robot_description):
// every joint exists there, moves and follows the previous one in a serial chain; the
// limits are within the description's; each link's mass is within [0.5, 2] x the mass the
// description puts on that joint (its child link and everything fixed to it; the last
// joint may carry up to the arm's own mass more: a payload), and the DH rows reproduce the
// description's joint axes (the angle and the distance between every pair of axes, at four
// configurations, within AXIS_TOLERANCE: both are independent of where the base frame is).
// `continuous` gets, per joint, whether the description makes it continuous.
std::string check_against_description(
  const std::string & urdf, const std::vector<std::string> & joints,
  const std::vector<DhLink> & links, const std::vector<JointLimits> & limits,
  std::vector<bool> & continuous);

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__MODEL_CHECK_HPP_
