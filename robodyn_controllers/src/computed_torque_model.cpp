// ComputedTorqueController, configure's model: the DH rows and limits checked against
// robot_description, the derived acceleration limits, the gains, the collision settings.
#include "robodyn_controllers/computed_torque_controller.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "computed_torque_internal.hpp"

namespace robodyn_controllers
{
// The DH rows, inertials and limits robodyn export wrote, checked (model_check.hpp: every
// value finite, the limits and inertias physical, the rows those of the robot in
// controller_manager's robot_description), into DhDynamics.
bool ComputedTorqueController::load_model(SupervisorSettings & core, std::string & error)
{
  links_.assign(n_, DhLink{});
  std::vector<JointLimits> limits(n_);
  for (std::size_t i = 0; i < n_; ++i) {
    const std::string & joint = params_.joints[i];
    const auto found = params_.model.joints_map.find(joint);
    if (found == params_.model.joints_map.end() || found->second.dh.size() != 5) {
      error = "model." + joint + ": no DH row (write the file with robodyn export)";
      return false;
    }
    const auto & row = found->second;
    const struct {const char * field; const std::vector<double> values;} fields[] = {
      {"dh", row.dh}, {"com", row.com}, {"inertia", row.inertia}, {"mass", {row.mass}},
      {"viscous", {row.viscous}}, {"coulomb", {row.coulomb}}};
    for (const auto & f : fields) {
      for (std::size_t k = 0; k < f.values.size(); ++k) {
        if (!std::isfinite(f.values[k])) {
          error = "model." + joint + "." + f.field + "[" + std::to_string(k) +
            "]: not finite (joint " + std::to_string(i + 1) + "; valid: a finite number)";
          return false;
        }
      }
    }
    DhLink & l = links_[i];
    l.a = row.dh[0]; l.alpha = row.dh[1]; l.d = row.dh[2]; l.theta0 = row.dh[3];
    l.beta = row.dh[4]; l.prismatic = row.prismatic; l.mass = row.mass;
    std::copy(row.com.begin(), row.com.end(), l.com.begin());
    std::copy(row.inertia.begin(), row.inertia.end(), l.inertia.begin());
    l.viscous = row.viscous; l.coulomb = row.coulomb; l.smoothing = params_.friction_smoothing;
    limits[i] = {row.effort_limit, row.velocity_limit, row.acceleration_limit,
      row.position_limits[0], row.position_limits[1]};
    if (!(limits[i].lower < limits[i].upper)) {
      error = "model." + joint + ".position_limits: lower must be below upper";
      return false;
    }
  }
  std::vector<bool> continuous;
  error = check_against_description(get_robot_description(), params_.joints, links_, limits,
    continuous);
  if (!error.empty()) {return false;}
  try {
    dynamics_.configure(links_, {params_.gravity[0], params_.gravity[1], params_.gravity[2]});
  } catch (const std::exception & e) {
    error = std::string("model: ") + e.what();
    return false;
  }
  for (auto * v : {&core.effort_limit, &core.velocity_limit, &core.acceleration_limit,
      &core.lower, &core.upper})
  {
    v->assign(n_, 0.0);
  }
  for (std::size_t i = 0; i < n_; ++i) {
    core.effort_limit[i] = limits[i].effort;
    core.velocity_limit[i] = limits[i].velocity;
    core.acceleration_limit[i] = limits[i].acceleration;
    core.lower[i] = limits[i].lower;
    core.upper[i] = limits[i].upper;
  }
  derive_acceleration_limits(core);
  for (std::size_t i = 0; i < n_; ++i) {limits[i].acceleration = core.acceleration_limit[i];}
  error = check_limits_and_inertia(params_.joints, links_, limits, continuous,
    {params_.gravity[0], params_.gravity[1], params_.gravity[2]});
  return error.empty();
}

// acceleration_limit 0: effort_limit / the largest M_jj(q) over 17 configurations spread
// over the joint ranges (the acceleration the effort limit gives that joint anywhere).
void ComputedTorqueController::derive_acceleration_limits(SupervisorSettings & core)
{
  std::vector<JointLimits> ranges(n_);
  for (std::size_t i = 0; i < n_; ++i) {
    ranges[i].lower = core.lower[i];
    ranges[i].upper = core.upper[i];
  }
  std::vector<double> q(n_), diag(n_), most(n_, 0.0);
  for (int sample = 0; sample < 17; ++sample) {
    spread_configuration(sample, ranges, q);
    dynamics_.mass_diagonal(q.data(), diag.data());
    for (std::size_t i = 0; i < n_; ++i) {most[i] = std::max(most[i], diag[i]);}
  }
  for (std::size_t i = 0; i < n_; ++i) {
    if (core.acceleration_limit[i] == 0.0 && most[i] > 0.0) {
      core.acceleration_limit[i] = core.effort_limit[i] / most[i];
    }
  }
}

// The law's settings and its own state (adaptive: the payload's frame and estimate).
bool ComputedTorqueController::load_law(std::string & error)
{
  law_settings_ = LawSettings{params_.include_gravity, params_.include_friction,
    params_.feedforward_pd, params_.inertia_feedforward, params_.velocity_lag};
  const auto & gamma = params_.adaptive.gamma;
  if (gamma.size() != 1 && gamma.size() != 3) {
    error = "adaptive.gamma: expected 1 value (every parameter) or 3 (mass, first moments, "
      "inertia), got " + std::to_string(gamma.size());
    return false;
  }
  auto & adaptation = law_settings_.adaptation;
  adaptation.gamma = {gamma[0], gamma[gamma.size() / 2], gamma.back()};
  adaptation.mass_max = params_.adaptive.mass_max;
  adaptation.rest_speed = params_.adaptive.rest_speed;
  std::copy(params_.tool_rotation.begin(), params_.tool_rotation.end(),
    law_settings_.tool_rotation.begin());
  std::copy(params_.tool_point.begin(), params_.tool_point.end(),
    law_settings_.tool_point.begin());
  std::copy(params_.cartesian.stiffness.begin(), params_.cartesian.stiffness.end(),
    law_settings_.cartesian_stiffness.begin());
  law_settings_.cartesian_damping_ratio = params_.cartesian.damping_ratio;
  try {
    law_->configure(n_, law_settings_);
  } catch (const std::invalid_argument & exc) {
    error = exc.what();
    return false;
  }
  return true;
}

// The observer's settings (collision.*; off without thresholds: the core checks them).
bool ComputedTorqueController::load_collision(SupervisorSettings & core, std::string & error)
{
  if (params_.collision.thresholds.empty()) {return true;}
  if (!expand(params_.collision.thresholds, n_, false, "collision.thresholds",
    core.collision_thresholds, error))
  {
    return false;
  }
  const auto & reaction = params_.collision.reaction;
  core.collision_reaction = reaction == "compliant" ? CollisionReaction::COMPLIANT :
    (reaction == "report" ? CollisionReaction::REPORT : CollisionReaction::HOLD);
  core.collision_debounce = params_.collision.debounce;
  core.observer_gain = params_.collision.gain;
  return true;
}

// ~/tool_wrench needs the observer and where the tool and the base are (robodyn export
// writes base_link, base_rotation and tool_point; a file without base_link gets no wrench).
bool ComputedTorqueController::load_tool_wrench(std::string & error)
{
  wrench_on_ = false;
  if (params_.base_link.empty()) {return true;}  // checked whether or not it is used
  const double reach = arm_reach(links_) + 1.0;  // [m], as model_check bounds a body
  const auto & p = params_.tool_point;
  const double distance = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
  if (!(distance <= reach)) {
    error = "tool_point: " + std::to_string(distance) + " m from DH frame " +
      std::to_string(n_) + ", beyond the arm's reach + 1 m (" + std::to_string(reach) +
      " m): not this arm's tool";
    return false;
  }
  try {
    std::array<double, 9> base{};
    std::copy(params_.base_rotation.begin(), params_.base_rotation.end(), base.begin());
    wrench_.configure(n_, base, {p[0], p[1], p[2]});
  } catch (const std::invalid_argument & e) {
    error = e.what();
    return false;
  }
  wrench_on_ = !params_.collision.thresholds.empty();
  return true;
}

// ~/target_pose: the frame targets are given in, the workspace box (target.workspace, or
// a cube of the chain's reach about the base: sum of hypot(a, d), a prismatic joint's
// stroke, the base's and the tool's offsets, as robodyn_ros' workspace_box) and the
// follower on the core's limits `core`.
bool ComputedTorqueController::load_targets(const SupervisorSettings & core, std::string & error)
{
  PoseTargetInput::Frame frame;
  frame.base_link = params_.base_link;
  std::copy(params_.base_rotation.begin(), params_.base_rotation.end(),
    frame.base_rotation.begin());
  std::copy(params_.base_point.begin(), params_.base_point.end(), frame.base_point.begin());
  const auto & box = params_.target.workspace;
  if (box.size() == 6) {
    for (int k = 0; k < 3; ++k) {
      if (!(box[k] < box[k + 3])) {
        error = "target.workspace: each min must be < its max (x y z min, then max)";
        return false;
      }
    }
    std::copy(box.begin(), box.end(), frame.box.begin());
  } else if (!box.empty()) {
    error = "target.workspace: expected [] or 6 values, got " + std::to_string(box.size());
    return false;
  } else {
    const auto norm = [](const std::vector<double> & v) {
        return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      };
    double reach = norm(params_.base_point) + norm(params_.tool_point);
    for (std::size_t i = 0; i < n_; ++i) {
      reach += std::hypot(links_[i].a, links_[i].d);
      if (links_[i].prismatic) {reach += std::max(std::abs(core.lower[i]), std::abs(core.upper[i]));}
    }
    frame.box = {-reach, -reach, -reach, reach, reach, reach};
  }
  std::array<double, 9> tool_rotation{};
  std::copy(params_.tool_rotation.begin(), params_.tool_rotation.end(), tool_rotation.begin());
  const auto & p = params_.tool_point;
  try {
    targets_.configure(get_node(), frame, core, params_.target.speed,
      params_.target.rotation_speed, nominal_period_, tool_rotation, {p[0], p[1], p[2]});
    const auto & w = params_.wrench;  // each > 0: the declarations' gt<> validators
    wrenches_.configure(get_node(), params_.base_link, frame.base_rotation,
      WrenchBounds{w.max_force, w.max_torque, w.rise_time, w.timeout}, law_->takes_wrench());
  } catch (const std::invalid_argument & e) {
    error = e.what();
    return false;
  }
  return true;
}

bool ComputedTorqueController::load_gains(SupervisorSettings & core, std::string & error)
{
  return expand(params_.kp, n_, false, "kp", core.kp, error) &&
         expand(params_.kd, n_, false, "kd", core.kd, error) &&
         expand(params_.hold_kp, n_, true, "hold_kp", core.hold_kp, error) &&
         expand(params_.hold_kd, n_, true, "hold_kd", core.hold_kd, error) &&
         expand(params_.damping, n_, false, "damping", core.damping, error);
}

// kp, kd and the tool spring (cartesian.*) settable while the controller runs: a set is
// refused unless it gives 1 or n finite values >= 0 (the spring: 6 in [0, 1e5], a damping
// ratio in [0, 5]; one line in the log, the reason in the service's answer); an accepted
// one is blended in by the core over gain_ramp_time (gain_blend.hpp). Called from
// on_init; the callbacks run on the node's executor thread, never in update().
void ComputedTorqueController::watch_gains()
{
  auto node = get_node();
  gains_check_ = node->add_on_set_parameters_callback(
    [this](const std::vector<rclcpp::Parameter> & parameters) {
      return check_gains(parameters);
    });
  gains_set_ = node->add_post_set_parameters_callback(
    [this](const std::vector<rclcpp::Parameter> & parameters) {
      bool gains = false, spring = false;
      for (const auto & p : parameters) {
        gains = gains || p.get_name() == "kp" || p.get_name() == "kd";
        spring = spring || p.get_name().rfind("cartesian.", 0) == 0;
      }
      const std::size_t n = n_;
      if (n == 0) {return;}  // before configure: configure reads them
      auto node = get_node();
      std::vector<double> kp, kd;
      std::string error;
      if (gains &&
        expand(node->get_parameter("kp").as_double_array(), n, false, "kp", kp, error) &&
        expand(node->get_parameter("kd").as_double_array(), n, false, "kd", kd, error))
      {
        core_.request_gains(kp, kd);
      }
      const auto k = node->get_parameter("cartesian.stiffness").as_double_array();
      if (spring && k.size() == 6) {
        std::array<double, 6> stiffness{};
        std::copy(k.begin(), k.end(), stiffness.begin());
        core_.request_spring(stiffness,
          node->get_parameter("cartesian.damping_ratio").as_double());
      }
    });
}

namespace
{
// Why a set of a settable parameter is refused, or "" (the generated validators answer
// the rest). n: the joints (0 before configure).
std::string refused(const rclcpp::Parameter & p, std::size_t n)
{
  const std::string & name = p.get_name();
  if ((name == "kp" || name == "kd") &&
    p.get_type() == rclcpp::ParameterType::PARAMETER_DOUBLE_ARRAY)
  {
    const auto values = p.as_double_array();
    bool ok = !values.empty() && (n == 0 || values.size() == 1 || values.size() == n);
    for (double v : values) {ok = ok && std::isfinite(v) && v >= 0.0;}
    return ok ? "" : name + ": expected 1 or " + (n ? std::to_string(n) : "n") +
           " finite values >= 0, got " + std::to_string(values.size()) + " values";
  }
  if (name == "cartesian.stiffness" &&
    p.get_type() == rclcpp::ParameterType::PARAMETER_DOUBLE_ARRAY)
  {
    const auto values = p.as_double_array();
    bool ok = values.size() == 6;
    for (double v : values) {ok = ok && std::isfinite(v) && v >= 0.0 && v <= 1e5;}
    return ok ? "" : "cartesian.stiffness: expected 6 values in [0, 1e5] (N/m x 3, "
           "N m/rad x 3), got " + std::to_string(values.size()) + " values";
  }
  if (name == "cartesian.damping_ratio" &&
    p.get_type() == rclcpp::ParameterType::PARAMETER_DOUBLE)
  {
    const double v = p.as_double();
    return std::isfinite(v) && v >= 0.0 && v <= 5.0 ? "" :
           "cartesian.damping_ratio: expected 0 to 5, got " + std::to_string(v);
  }
  return "";
}
}  // namespace

rcl_interfaces::msg::SetParametersResult ComputedTorqueController::check_gains(
  const std::vector<rclcpp::Parameter> & parameters)
{
  rcl_interfaces::msg::SetParametersResult result;
  result.successful = true;
  for (const auto & p : parameters) {
    const std::string why = refused(p, n_);
    if (!why.empty()) {
      result.successful = false;
      result.reason = why;
      RCLCPP_ERROR(get_node()->get_logger(), "robodyn controller: %s", why.c_str());
      break;
    }
  }
  return result;
}

}  // namespace robodyn_controllers
