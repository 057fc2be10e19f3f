// ~/target_wrench into the task-space law's feed-forward (wrench_target_input.hpp).
#include "robodyn_controllers/wrench_target_input.hpp"

namespace robodyn_controllers
{

void WrenchTargetInput::configure(
  const rclcpp_lifecycle::LifecycleNode::SharedPtr & node, const std::string & base_link,
  const std::array<double, 9> & base_rotation, const WrenchBounds & bounds, bool accepts)
{
  base_link_ = base_link;
  base_rotation_ = base_rotation;
  bounds_ = bounds;
  accepts_ = accepts;
  feed_.configure(bounds);
  slot_.configure(Target{});
  status_.store(NONE);
  timed_out_.store(false);
  subscription_ = node->create_subscription<geometry_msgs::msg::WrenchStamped>(
    "~/target_wrench", rclcpp::QoS(10),
    [this](const geometry_msgs::msg::WrenchStamped & msg) {take(msg);});
}

void WrenchTargetInput::take(const geometry_msgs::msg::WrenchStamped & msg) noexcept
{
  if (!accepts_) {
    status_.store(NOT_TASK);
    return;
  }
  if (!msg.header.frame_id.empty() && msg.header.frame_id != base_link_) {
    status_.store(WRONG_FRAME);
    return;
  }
  const auto & f = msg.wrench.force;
  const auto & m = msg.wrench.torque;
  const double force[3] = {f.x, f.y, f.z};
  const double torque[3] = {m.x, m.y, m.z};
  Target & target = slot_.back();
  const WrenchCheck check = check_wrench(force, torque, base_rotation_, bounds_,
      target.wrench.data());
  if (check == WrenchCheck::NOT_FINITE) {
    status_.store(NOT_FINITE);
    return;
  }
  slot_.commit();
  timed_out_.store(false, std::memory_order_relaxed);
  status_.store(check == WrenchCheck::SCALED ? SCALED : APPLYING);
}

const double * WrenchTargetInput::wrench(const Supervisor & core, double t) noexcept
{
  const Target * target = slot_.take();
  if (core.mode() != Supervisor::Mode::ACTIVE) {
    feed_.reset();  // commanding again ramps a target in from zero
    if (target != nullptr) {  // dropped, as the node refuses it: said so
      status_.store(core.mode() == Supervisor::Mode::SAFE ? NOT_SAFE : NOT_HELD);
    }
    return nullptr;
  }
  if (target != nullptr) {feed_.aim(target->wrench.data(), t);}
  const double * out = feed_.value(t);
  if (feed_.timed_out()) {timed_out_.store(true, std::memory_order_relaxed);}
  return out;
}

bool WrenchTargetInput::applied(std::array<double, 6> & out) const noexcept
{
  if (!feed_.applying()) {return false;}
  const auto & w = feed_.applied();
  const auto & r = base_rotation_;
  for (int k = 0; k < 3; ++k) {  // R v: frame 0's vector in the base link
    out[k] = r[3 * k] * w[0] + r[3 * k + 1] * w[1] + r[3 * k + 2] * w[2];
    out[3 + k] = r[3 * k] * w[3] + r[3 * k + 1] * w[4] + r[3 * k + 2] * w[5];
  }
  return true;
}

const char * WrenchTargetInput::status() const noexcept
{
  const int status = status_.load();
  if ((status == APPLYING || status == SCALED) && timed_out_.load()) {
    return "timed out: no target within wrench.timeout, ramped to zero";
  }
  switch (status) {
    case APPLYING: return "applying";
    case SCALED: return "scaled down to max_force, max_torque";
    case NOT_FINITE: return "refused: target wrench not finite";
    case WRONG_FRAME: return "refused: target wrench not in the chain's base frame";
    case NOT_TASK: return "refused: the law takes no wrench (a task-space mode does)";
    case NOT_SAFE: return "refused: controller is safe";
    case NOT_HELD: return "refused: controller is held";
    default: return "none";
  }
}

}  // namespace robodyn_controllers
