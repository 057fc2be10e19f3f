// ~/target_wrench for the ros2_control controller: the subscription checks each wrench on
// its executor's thread (check_wrench, wrench_feed.hpp) and hands it to update() through a
// LatestSlot; update() takes the newest and asks the feed for this cycle's wrench, which
// the task-space law adds as J^T F_ff. While the core is not ACTIVE the feed is reset: the
// next target ramps in from zero. A joint-space law refuses every wrench.
#ifndef ROBODYN_CONTROLLERS__WRENCH_TARGET_INPUT_HPP_
#define ROBODYN_CONTROLLERS__WRENCH_TARGET_INPUT_HPP_

#include <array>
#include <atomic>
#include <string>

#include "geometry_msgs/msg/wrench_stamped.hpp"
#include "rclcpp_lifecycle/lifecycle_node.hpp"

#include "robodyn_controllers/latest_slot.hpp"
#include "robodyn_controllers/supervisor.hpp"
#include "robodyn_controllers/wrench_feed.hpp"

namespace robodyn_controllers
{

class WrenchTargetInput
{
public:
  // The subscription (~/target_wrench) on `node` (not real-time). base_link: a wrench's
  // frame_id must be this or empty; base_rotation: frame 0's axes in it; accepts: the law
  // takes a wrench (a task-space law).
  void configure(
    const rclcpp_lifecycle::LifecycleNode::SharedPtr & node, const std::string & base_link,
    const std::array<double, 9> & base_rotation, const WrenchBounds & bounds, bool accepts);
  // This cycle's wrench at time t [s] (6, frame 0), or nullptr. Allocates nothing, takes no
  // lock.
  const double * wrench(const Supervisor & core, double t) noexcept;
  // What the last target did, for /diagnostics (a static text).
  const char * status() const noexcept;
  // The subscription's reader of one message (public for the tests).
  void take(const geometry_msgs::msg::WrenchStamped & msg) noexcept;
  // The wrench applied in the last cycle, in the base link frame (6), and whether one was.
  bool applied(std::array<double, 6> & out) const noexcept;

private:
  enum Status {NONE, APPLYING, SCALED, NOT_FINITE, WRONG_FRAME, NOT_TASK, NOT_SAFE, NOT_HELD};
  struct Target
  {
    std::array<double, 6> wrench{};  // frame 0
  };
  std::string base_link_;
  std::array<double, 9> base_rotation_{};
  WrenchBounds bounds_{};
  bool accepts_ = false;
  WrenchFeed feed_;
  LatestSlot<Target> slot_;
  std::atomic<int> status_{NONE};
  std::atomic<bool> timed_out_{false};
  rclcpp::Subscription<geometry_msgs::msg::WrenchStamped>::SharedPtr subscription_;
};

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__WRENCH_TARGET_INPUT_HPP_
