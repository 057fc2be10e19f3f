// ~/target_pose for the ros2_control controller: the subscription checks each target on its
// executor's thread (check_pose_target) and hands it to update() through a LatestSlot;
// update() takes the newest, starts the pose follower from the core's reference, and feeds
// the core the follower's reference in place of the chained one. Until a target comes, and
// again once the chained reference moves (the JointTrajectoryController took a goal: it
// starts from the measured state, where the follower left the arm) or the controller is
// re-activated, the chained reference is the one followed, as on the node path a
// trajectory replaces the pose follower. While the core holds (a refused reference), the
// chained reference, stale once targets moved the arm, is not given: the next target
// resumes from the position held.
#ifndef ROBODYN_CONTROLLERS__POSE_TARGET_INPUT_HPP_
#define ROBODYN_CONTROLLERS__POSE_TARGET_INPUT_HPP_

#include <array>
#include <atomic>
#include <string>
#include <vector>

#include "geometry_msgs/msg/pose_stamped.hpp"
#include "rclcpp_lifecycle/lifecycle_node.hpp"

#include "robodyn_controllers/latest_slot.hpp"
#include "robodyn_controllers/pose_follower.hpp"
#include "robodyn_controllers/supervisor.hpp"

namespace robodyn_controllers
{

class PoseTargetInput
{
public:
  // Where the targets are given and how they may move the reference.
  struct Frame
  {
    std::string base_link;  // a target's frame_id must be this or empty
    std::array<double, 9> base_rotation{1, 0, 0, 0, 1, 0, 0, 0, 1};  // frame 0 in base_link
    std::array<double, 3> base_point{};  // frame 0's origin in base_link [m]
    std::array<double, 6> box{};  // x y z min, then max, base_link [m]
  };
  // The subscription (~/target_pose) on `node`; the follower configured with the core's
  // admissible positions and limits (not real-time; throws std::invalid_argument).
  void configure(
    const rclcpp_lifecycle::LifecycleNode::SharedPtr & node, const Frame & frame,
    const SupervisorSettings & limits, double speed, double rotation_speed, double period,
    const std::array<double, 9> & tool_rotation, const std::array<double, 3> & tool_point);
  // This cycle's reference for the core at time t [s]: `chained` until a target is taken,
  // then the follower's while the core is ACTIVE. Allocates nothing, takes no lock.
  const double * reference(
    DhDynamics & dyn, const Supervisor & core, double t, const double * chained) noexcept;
  // Follow the chained reference again (activation).
  void reset() noexcept
  {
    follower_.stop();
    have_chained_ = false;
    posing_ = false;
  }
  // What the last target did, for /diagnostics (a static text).
  const char * status() const noexcept;
  // /diagnostics' singularity: "none", or the follower's last step slowed near one.
  const char * singularity() const noexcept;
  // The subscription's reader of one message (public for the tests).
  void take(const geometry_msgs::msg::PoseStamped & msg) noexcept;

private:
  enum Status {NONE, FOLLOWING, CLAMPED, NOT_FINITE, NOT_UNIT, WRONG_FRAME};
  Frame frame_;
  PoseFollower follower_;
  LatestSlot<PoseTarget> slot_;
  std::atomic<int> status_{NONE};
  std::atomic<bool> slowed_{false};
  std::vector<double> last_chained_, zeros_;  // the chained positions of the last cycle
  bool have_chained_ = false;
  bool posing_ = false;  // targets own the reference (until a trajectory or activation)
  rclcpp::Subscription<geometry_msgs::msg::PoseStamped>::SharedPtr subscription_;
};

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__POSE_TARGET_INPUT_HPP_
