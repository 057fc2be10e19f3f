// ~/target_pose into the controller's reference (pose_target_input.hpp).
#include "robodyn_controllers/pose_target_input.hpp"

#include <vector>

namespace robodyn_controllers
{

void PoseTargetInput::configure(
  const rclcpp_lifecycle::LifecycleNode::SharedPtr & node, const Frame & frame,
  const SupervisorSettings & limits, double speed, double rotation_speed, double period,
  const std::array<double, 9> & tool_rotation, const std::array<double, 3> & tool_point)
{
  frame_ = frame;
  const std::size_t n = limits.lower.size();
  std::vector<double> lower(n), upper(n);
  for (std::size_t i = 0; i < n; ++i) {
    lower[i] = limits.lower[i] + limits.reference_margin;
    upper[i] = limits.upper[i] - limits.reference_margin;
  }
  follower_.configure(n, lower, upper, limits.velocity_limit, limits.acceleration_limit,
    speed, rotation_speed, period, tool_rotation, tool_point, limits.max_torque_rate);
  slot_.configure(PoseTarget{});
  last_chained_.assign(n, 0.0);
  zeros_.assign(n, 0.0);
  have_chained_ = false;
  posing_ = false;
  status_.store(NONE);
  subscription_ = node->create_subscription<geometry_msgs::msg::PoseStamped>(
    "~/target_pose", rclcpp::QoS(10),
    [this](const geometry_msgs::msg::PoseStamped & msg) {take(msg);});
}

void PoseTargetInput::take(const geometry_msgs::msg::PoseStamped & msg) noexcept
{
  if (!msg.header.frame_id.empty() && msg.header.frame_id != frame_.base_link) {
    status_.store(WRONG_FRAME);
    return;
  }
  const auto & p = msg.pose.position;
  const auto & o = msg.pose.orientation;
  const double position[3] = {p.x, p.y, p.z};
  const double quaternion[4] = {o.x, o.y, o.z, o.w};
  PoseTarget & target = slot_.back();
  const TargetCheck check = check_pose_target(
    position, quaternion, frame_.base_rotation, frame_.base_point, frame_.box, target);
  if (check == TargetCheck::NOT_FINITE || check == TargetCheck::NOT_UNIT) {
    status_.store(check == TargetCheck::NOT_FINITE ? NOT_FINITE : NOT_UNIT);
    return;
  }
  slot_.commit();
  status_.store(check == TargetCheck::CLAMPED ? CLAMPED : FOLLOWING);
}

const double * PoseTargetInput::reference(
  DhDynamics & dyn, const Supervisor & core, double t, const double * chained) noexcept
{
  const bool active = core.mode() == Supervisor::Mode::ACTIVE;
  const PoseTarget * target = slot_.take();
  // the chained controller follows a trajectory (its position changes from cycle to
  // cycle; a hold repeats it): its goal takes over
  bool moving = false;
  for (std::size_t i = 0; chained != nullptr && i < last_chained_.size(); ++i) {
    moving = moving || (have_chained_ && chained[i] != last_chained_[i]);
    last_chained_[i] = chained[i];
  }
  have_chained_ = chained != nullptr;
  if (moving && target == nullptr) {
    posing_ = false;
    follower_.stop();
    return chained;
  }
  if (!active) {  // held: a target resumes from the hold; the chained one is stale
    follower_.stop();
    if (!posing_) {return chained;}
    if (target == nullptr) {return nullptr;}
    follower_.start(dyn, core.tracked_position().data(), zeros_.data(), t);
  } else if (target != nullptr && !follower_.started()) {
    follower_.start(dyn, core.reference_position().data(),
      core.reference_velocity().data(), t);
  }
  if (target != nullptr) {
    follower_.aim(*target);
    posing_ = true;
  }
  const double * out = follower_.started() ? follower_.advance(dyn, t) : chained;
  slowed_.store(follower_.started() && follower_.slowed(), std::memory_order_relaxed);
  return out;
}

const char * PoseTargetInput::singularity() const noexcept
{
  return slowed_.load(std::memory_order_relaxed) ? PoseFollower::SLOWED : "none";
}

const char * PoseTargetInput::status() const noexcept
{
  switch (status_.load()) {
    case FOLLOWING: return "following";
    case CLAMPED: return "clamped to the workspace box";
    case NOT_FINITE: return "refused: target pose not finite";
    case NOT_UNIT: return "refused: target orientation not a unit quaternion (x, y, z, w)";
    case WRONG_FRAME: return "refused: target pose not in the chain's base frame";
    default: return "none";
  }
}

}  // namespace robodyn_controllers
