// A feed-forward tool wrench (~/target_wrench) for the task-space laws, without ROS: checked
// at the boundary (check_wrench: finite, each of force and moment scaled down to its bound,
// rotated into DH frame 0), then followed by WrenchFeed at most at max / rise_time per
// second, and ramped to zero once the last target is older than the timeout. The same
// arithmetic as robodyn_ros' control/reference/wrench_target.py (its module docstring says
// why; test/controllers/test_wrench_feed_cpp.py holds the two equal).
#ifndef ROBODYN_CONTROLLERS__WRENCH_FEED_HPP_
#define ROBODYN_CONTROLLERS__WRENCH_FEED_HPP_

#include <array>

namespace robodyn_controllers
{

struct WrenchBounds
{
  double max_force = 20.0;  // [N], the force's largest norm
  double max_torque = 2.0;  // [N m], the moment's largest norm
  double rise_time = 0.2;  // [s], from zero to the largest
  double timeout = 0.5;  // [s], the age at which the last target stops being applied
};

enum class WrenchCheck {APPLIED, SCALED, NOT_FINITE};

// force, torque (3 each) at the tool point in the base link into out (6: frame 0, force
// then moment; base_rotation: frame 0's axes in the base link, row-major), each scaled down
// to its bound. NOT_FINITE leaves out unwritten.
WrenchCheck check_wrench(
  const double * force, const double * torque, const std::array<double, 9> & base_rotation,
  const WrenchBounds & bounds, double * out) noexcept;

class WrenchFeed
{
public:
  // The longest step one cycle ramps over [s] (wrench_target.py's MAX_STEP).
  static constexpr double MAX_STEP = 0.01;
  void configure(const WrenchBounds & bounds) noexcept;
  // The target (6, frame 0) that came at now [s].
  void aim(const double * wrench, double now) noexcept;
  // The wrench to apply in the cycle at now [s] (6, frame 0), or nullptr while none is.
  const double * value(double now) noexcept;
  // Commanding stopped: the next target starts from zero.
  void reset() noexcept;
  bool timed_out() const noexcept {return timed_out_;}
  bool applying() const noexcept {return have_target_;}
  const std::array<double, 6> & applied() const noexcept {return applied_;}

private:
  WrenchBounds bounds_{};
  std::array<double, 6> target_{}, applied_{};
  double stamp_ = 0.0, last_ = 0.0;
  bool have_target_ = false, have_last_ = false, timed_out_ = false;
};

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__WRENCH_FEED_HPP_
