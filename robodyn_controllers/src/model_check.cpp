// The controller's checks of a parameter file against physics and against the robot's
// description; see model_check.hpp.
#include "robodyn_controllers/model_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "robodyn_controllers/torque_safety.hpp"
#include "urdf/model.hpp"

namespace robodyn_controllers
{
namespace
{
using Vec = std::array<double, 3>;
using Mat = std::array<double, 9>;  // row-major

struct Pose
{
  Mat r{1, 0, 0, 0, 1, 0, 0, 0, 1};
  Vec p{0, 0, 0};
};

Vec mul(const Mat & r, const Vec & v)
{
  return {r[0] * v[0] + r[1] * v[1] + r[2] * v[2], r[3] * v[0] + r[4] * v[1] + r[5] * v[2],
    r[6] * v[0] + r[7] * v[1] + r[8] * v[2]};
}

Mat mul(const Mat & a, const Mat & b)
{
  Mat c{};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      c[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
    }
  }
  return c;
}

Pose compose(const Pose & a, const Pose & b)
{
  Pose c;
  c.r = mul(a.r, b.r);
  const Vec t = mul(a.r, b.p);
  c.p = {a.p[0] + t[0], a.p[1] + t[1], a.p[2] + t[2]};
  return c;
}

// Rotation by `angle` about the unit vector `u` (Rodrigues).
Mat rotation(const Vec & u, double angle)
{
  const double c = std::cos(angle), s = std::sin(angle), v = 1.0 - c;
  return {c + u[0] * u[0] * v, u[0] * u[1] * v - u[2] * s, u[0] * u[2] * v + u[1] * s,
    u[1] * u[0] * v + u[2] * s, c + u[1] * u[1] * v, u[1] * u[2] * v - u[0] * s,
    u[2] * u[0] * v - u[1] * s, u[2] * u[1] * v + u[0] * s, c + u[2] * u[2] * v};
}

Vec cross(const Vec & a, const Vec & b)
{
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

double dot(const Vec & a, const Vec & b) {return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];}
double norm(const Vec & a) {return std::sqrt(dot(a, a));}
Vec sub(const Vec & a, const Vec & b) {return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};}

Pose from_urdf(const urdf::Pose & pose)
{
  Pose out;
  double x, y, z, w;
  pose.rotation.getQuaternion(x, y, z, w);
  out.r = {1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
    2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
    2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)};
  out.p = {pose.position.x, pose.position.y, pose.position.z};
  return out;
}

// A joint axis as a line in the base frame.
struct Axis
{
  Vec point, direction;
};

// The DH model's joint axes at q: joint i turns about z_{i-1} through the origin of frame
// i-1 (standard DH with Hayati's beta, as DhDynamics).
std::vector<Axis> dh_axes(const std::vector<DhLink> & links, const std::vector<double> & q)
{
  std::vector<Axis> axes;
  Pose frame;
  for (std::size_t i = 0; i < links.size(); ++i) {
    const DhLink & l = links[i];
    axes.push_back({frame.p, {frame.r[2], frame.r[5], frame.r[8]}});
    const double theta = l.theta0 + (l.prismatic ? 0.0 : q[i]);
    const double d = l.d + (l.prismatic ? q[i] : 0.0);
    Pose step;
    step.r = mul(mul(rotation({0, 0, 1}, theta), rotation({1, 0, 0}, l.alpha)),
      rotation({0, 1, 0}, l.beta));
    step.p = mul(rotation({0, 0, 1}, theta), Vec{l.a, 0.0, d});
    frame = compose(frame, step);
  }
  return axes;
}

// The description's joint axes at q (chain joints; every other joint at 0).
std::vector<Axis> urdf_axes(
  const urdf::Model & model, const std::vector<std::string> & joints,
  const std::vector<double> & q)
{
  std::map<std::string, double> value;
  for (std::size_t i = 0; i < joints.size(); ++i) {value[joints[i]] = q[i];}
  std::vector<Axis> axes;
  for (const auto & name : joints) {
    // the poses from the root down to this joint
    std::vector<urdf::JointConstSharedPtr> path;
    auto joint = model.getJoint(name);
    for (auto j = joint; j; ) {
      path.push_back(j);
      const auto parent = model.getLink(j->parent_link_name);
      j = parent ? parent->parent_joint : nullptr;
    }
    Pose pose;
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      const auto & j = *it;
      pose = compose(pose, from_urdf(j->parent_to_joint_origin_transform));
      const Vec u{j->axis.x, j->axis.y, j->axis.z};
      if (j == joint) {
        axes.push_back({pose.p, mul(pose.r, u)});
        break;
      }
      const auto found = value.find(j->name);
      const double x = found == value.end() ? 0.0 : found->second;
      Pose motion;
      if (j->type == urdf::Joint::PRISMATIC) {
        motion.p = {u[0] * x, u[1] * x, u[2] * x};
      } else if (j->type == urdf::Joint::REVOLUTE || j->type == urdf::Joint::CONTINUOUS) {
        motion.r = rotation(u, x);
      }
      pose = compose(pose, motion);
    }
  }
  return axes;
}

// Mass [kg] of `link` and every link below it, except below the joint `stop`.
double subtree_mass(const urdf::LinkConstSharedPtr & link, const std::string & stop)
{
  double mass = link->inertial ? link->inertial->mass : 0.0;
  for (const auto & joint : link->child_joints) {
    if (joint->name == stop) {continue;}
    for (const auto & child : link->child_links) {
      if (child->name == joint->child_link_name) {mass += subtree_mass(child, stop);}
    }
  }
  return mass;
}

std::string format(const char * fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char * fmt, ...)
{
  char text[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(text, sizeof(text), fmt, args);
  va_end(args);
  return text;
}

std::string check_chain(
  const urdf::Model & model, const std::vector<std::string> & joints,
  const std::vector<JointLimits> & limits, std::vector<bool> & continuous)
{
  continuous.assign(joints.size(), false);
  for (std::size_t i = 0; i < joints.size(); ++i) {
    const auto joint = model.getJoint(joints[i]);
    const char * name = joints[i].c_str();
    if (!joint) {
      return format("joints: %s (joint %zu) is not a joint of the robot_description", name,
        i + 1);
    }
    if (joint->type != urdf::Joint::REVOLUTE && joint->type != urdf::Joint::CONTINUOUS &&
      joint->type != urdf::Joint::PRISMATIC)
    {
      return format("joints: %s does not move in the robot_description (valid: revolute, "
        "continuous or prismatic joints)", name);
    }
    continuous[i] = joint->type == urdf::Joint::CONTINUOUS;
    if (i > 0) {
      bool below = false;  // joint i-1 is an ancestor of joint i
      for (auto j = model.getLink(joint->parent_link_name)->parent_joint; j && !below; ) {
        below = j->name == joints[i - 1];
        const auto parent = model.getLink(j->parent_link_name);
        j = parent ? parent->parent_joint : nullptr;
      }
      if (!below) {
        return format("joints: %s does not follow %s in the robot_description's chain",
          name, joints[i - 1].c_str());
      }
    }
    const auto & lim = joint->limits;
    if (!lim) {continue;}
    const double slack = 1e-9;
    if (lim->effort > 0 && limits[i].effort > lim->effort * (1 + slack)) {
      return format("model.%s.effort_limit: %.6g is above the robot_description's %.6g "
        "(valid: (0, %.6g])", name, limits[i].effort, lim->effort, lim->effort);
    }
    if (lim->velocity > 0 && limits[i].velocity > lim->velocity * (1 + slack)) {
      return format("model.%s.velocity_limit: %.6g is above the robot_description's %.6g "
        "(valid: (0, %.6g])", name, limits[i].velocity, lim->velocity, lim->velocity);
    }
    const double pad = slack * (1.0 + std::abs(lim->lower) + std::abs(lim->upper));
    if (!continuous[i] && (limits[i].lower < lim->lower - pad ||
      limits[i].upper > lim->upper + pad))
    {
      return format("model.%s.position_limits: [%.6g, %.6g] leave the robot_description's "
        "[%.6g, %.6g]", name, limits[i].lower, limits[i].upper, lim->lower, lim->upper);
    }
  }
  return "";
}

std::string check_masses(
  const urdf::Model & model, const std::vector<std::string> & joints,
  const std::vector<DhLink> & links)
{
  const std::size_t n = joints.size();
  std::vector<double> mass(n);
  double total = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto joint = model.getJoint(joints[i]);
    mass[i] = subtree_mass(model.getLink(joint->child_link_name), i + 1 < n ? joints[i + 1] :
      std::string());
    total += mass[i];
  }
  for (std::size_t i = 0; i < n; ++i) {
    // the last link may carry a payload (up to the arm's own mass) and may end before a
    // tool the description fixes to it
    const double low = i + 1 < n ? 0.5 * mass[i] : 0.0;
    const double high = 2.0 * mass[i] + (i + 1 < n ? 1e-3 : total);
    if (links[i].mass < low || links[i].mass > high) {
      return format("model.%s.mass: %.6g kg is not a mass of this robot's link (valid: "
        "[%.6g, %.6g] kg, from the robot_description's %.6g kg)", joints[i].c_str(),
        links[i].mass, low, high, mass[i]);
    }
  }
  return "";
}

std::string check_kinematics(
  const urdf::Model & model, const std::vector<std::string> & joints,
  const std::vector<DhLink> & links, const std::vector<JointLimits> & limits)
{
  const std::size_t n = joints.size();
  const double reach = arm_reach(links);
  std::vector<double> q(n, 0.0);
  for (int sample = 0; sample < 4; ++sample) {
    if (sample > 0) {
      spread_configuration(sample, limits, q);
    }
    const auto dh = dh_axes(links, q);
    const auto ur = urdf_axes(model, joints, q);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t k = i + 1; k < n; ++k) {
        double angle[2], distance[2], slack = 0.0;
        for (int s = 0; s < 2; ++s) {
          const auto & a = s == 0 ? dh : ur;
          const Vec zi = a[i].direction, zk = a[k].direction;
          const Vec offset = sub(a[k].point, a[i].point);
          const Vec normal = cross(zi, zk);
          const double sine = norm(normal) / (norm(zi) * norm(zk));
          angle[s] = dot(zi, zk) / (norm(zi) * norm(zk));
          if (sine >= 1e-3) {
            distance[s] = std::abs(dot(offset, normal)) / norm(normal);
          } else {  // (nearly) parallel: the distance of a point of one line to the other
            distance[s] = norm(cross(offset, zi)) / norm(zi);
            slack = std::max(slack, sine * (reach + 1.0));
          }
        }
        if (std::abs(angle[0] - angle[1]) > AXIS_TOLERANCE ||
          std::abs(distance[0] - distance[1]) > AXIS_TOLERANCE + slack)
        {
          return format("model.<joint>.dh: the rows do not reproduce the robot_description: "
            "the axes of %s and %s are %.6g m apart at cos %.6g in the rows, %.6g m at cos "
            "%.6g in the description (valid: within %g; write the file with robodyn export "
            "from this description)", joints[i].c_str(), joints[k].c_str(), distance[0],
            angle[0], distance[1], angle[1], AXIS_TOLERANCE);
        }
      }
    }
  }
  return "";
}
}  // namespace

double arm_reach(const std::vector<DhLink> & links)
{
  double reach = 0.0;
  for (const auto & l : links) {reach += std::abs(l.a) + std::abs(l.d);}
  return reach;
}

std::string check_limits_and_inertia(
  const std::vector<std::string> & joints, const std::vector<DhLink> & links,
  const std::vector<JointLimits> & limits, const std::vector<bool> & continuous,
  const std::array<double, 3> & gravity)
{
  const double g = norm(gravity);
  if (!(g <= MAX_GRAVITY)) {
    return format("gravity: |g| = %.6g m/s^2 (valid: [0, %g] m/s^2)", g, MAX_GRAVITY);
  }
  const double reach = arm_reach(links) + 1.0;
  for (std::size_t i = 0; i < joints.size(); ++i) {
    const char * name = joints[i].c_str();
    const JointLimits & l = limits[i];
    const struct {const char * field; double value;} positive[] = {
      {"effort_limit", l.effort}, {"velocity_limit", l.velocity},
      {"acceleration_limit", l.acceleration}};
    for (const auto & p : positive) {
      if (!(std::isfinite(p.value) && p.value > 0.0)) {
        return format("model.%s.%s: %.6g (joint %zu; valid: finite and > 0)", name, p.field,
          p.value, i + 1);
      }
    }
    if (!continuous[i] && !(std::isfinite(l.lower) && std::isfinite(l.upper))) {
      return format("model.%s.position_limits: [%.6g, %.6g] (joint %zu; valid: finite, "
        "lower < upper: the joint is not continuous)", name, l.lower, l.upper, i + 1);
    }
    const auto & I = links[i].inertia;
    const double trace = I[0] + I[3] + I[5];
    const double most = 2.0 * links[i].mass * reach * reach;
    if (!(trace <= most)) {
      return format("model.%s.inertia: trace %.6g kg m^2 is more than a %.6g kg body within "
        "the arm's reach of %.3g m can have (valid: [0, %.6g] kg m^2)", name, trace,
        links[i].mass, reach, most);
    }
  }
  return "";
}

std::string check_against_description(
  const std::string & urdf, const std::vector<std::string> & joints,
  const std::vector<DhLink> & links, const std::vector<JointLimits> & limits,
  std::vector<bool> & continuous)
{
  urdf::Model model;
  if (urdf.empty() || !model.initString(urdf)) {
    return "robot_description: controller_manager has no valid robot description to check "
           "the model against (valid: the URDF the hardware was started from)";
  }
  std::string error = check_chain(model, joints, limits, continuous);
  if (error.empty()) {error = check_masses(model, joints, links);}
  if (error.empty()) {error = check_kinematics(model, joints, links, limits);}
  return error;
}

void spread_configuration(
  int sample, const std::vector<JointLimits> & limits, std::vector<double> & q)
{
  for (std::size_t i = 0; i < q.size() && i < limits.size(); ++i) {
    q[i] = spread_value(sample, i, limits[i].lower, limits[i].upper);
  }
}

}  // namespace robodyn_controllers
