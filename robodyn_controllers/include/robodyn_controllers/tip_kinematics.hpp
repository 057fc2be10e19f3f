// The kinematics of the chain's tip (the tip link's frame, or a tool frame fixed to it),
// without ROS: its pose, its geometric Jacobian J(q) and the velocity product J̇(q, q̇) q̇,
// in DH frame 0. What task-space laws and the adaptive law's payload regressor
// (payload_adaptation.hpp) are built on; robodyn_ros/dynamics/tool_point.py is the
// reference the tests hold it to (test/controllers/test_tip_kinematics_cpp.py).
//
// Column k of J is [z_{k-1} x (p - o_{k-1}); z_{k-1}], or [z_{k-1}; 0] for a prismatic
// joint (seed 000 eqs. (23)-(24) for the tip point instead of a centre of mass): joint k
// turns about, or slides along, z_{k-1} through o_{k-1} (standard DH, seed 001 eq. 2.5).
// J̇ q̇ is the tip's classical acceleration at q̈ = 0 without gravity: the outward pass of
// seed 000's recursion (Luh, Walker and Paul) at velocity q̇, which gives w, w' and the
// origin's acceleration a_O for any joint velocities and accelerations.
#ifndef ROBODYN_CONTROLLERS__TIP_KINEMATICS_HPP_
#define ROBODYN_CONTROLLERS__TIP_KINEMATICS_HPP_

#include <array>
#include <cstddef>
#include <vector>

#include "robodyn_controllers/dh_dynamics.hpp"

namespace robodyn_controllers
{
// 3-vector arithmetic on std::array (the kinematics' and the payload regressor's).
namespace vec3
{
using Vec = std::array<double, 3>;
inline Vec cross(const Vec & a, const Vec & b) noexcept
{
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
// a += k b
inline void add(Vec & a, const Vec & b, double k = 1.0) noexcept
{
  for (int r = 0; r < 3; ++r) {a[r] += k * b[r];}
}
}  // namespace vec3

class TipKinematics
{
public:
  using Vec = vec3::Vec;
  // The tip's angular velocity w, angular acceleration w' and origin acceleration a_O, in
  // frame 0 [rad/s, rad/s^2, m/s^2].
  struct Motion
  {
    Vec w{}, wd{}, acc{};
  };
  // tool_rotation: the tip frame's axes in DH frame n (row-major 3x3), tool_point its origin
  // there [m]. Throws std::invalid_argument on a non-finite value or a matrix that is not a
  // rotation. Allocates (not real-time).
  void configure(
    std::size_t n, const std::array<double, 9> & tool_rotation, const Vec & tool_point);
  // The poses at q; every call below reads the last one. Allocates nothing.
  void at(const DhDynamics & dyn, const double * q) noexcept;
  // x, y: joint velocities and accelerations (nullptr: zeros); gravity: the base
  // accelerated by -g (its weight), as in the inverse dynamics.
  void outward(
    const DhDynamics & dyn, const double * x, const double * y, bool gravity, Motion & m)
  const noexcept;
  // J (6 x n, row-major: the point's rows, then the angular ones), frame 0.
  void jacobian(const DhDynamics & dyn, double * j) const noexcept;
  // J̇ q̇ (6: linear, then angular), frame 0.
  void bias(const DhDynamics & dyn, const double * qd, double * out) const noexcept;
  // The tip's axes in frame 0 (row-major 3x3) and its origin [m].
  const std::array<double, 9> & rotation() const noexcept {return tip_r_;}
  const Vec & point() const noexcept {return tip_;}

  // The poses of DH frames 1..n at the last at() (DhDynamics::poses' layout).
  const double * poses() const noexcept {return poses_.data();}

private:
  std::size_t n_ = 0;
  std::array<double, 9> tool_r_{}, tip_r_{};
  Vec tool_p_{}, tip_{}, tip_arm_{};  // the tip point, and it less o_n
  // 12 n; per joint z_{i-1}, o_{i-1} and o_i - o_{i-1} (3 each, frame 0)
  std::vector<double> poses_, axes_, origins_, arms_;
};

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__TIP_KINEMATICS_HPP_
