// The wrench at the tool that explains an external joint torque, when the contact is at the
// tool: tau_ext = J(q)^T w, solved by least squares (the minimum-norm solution where J
// loses rank), as robodyn_ros.dynamics.contact_wrench does on the Python path.
//
// J is the geometric Jacobian of the tip_link origin (seed 000 eqs. (23)-(24) for the point
// at the tool instead of a centre of mass), built from the exported DH rows: joint i moves
// about (or along) z_{i-1} through o_{i-1}, column [z x (p_tip - o); z] (revolute) or
// [z; 0] (prismatic). The wrench w = [f; m] is in the base_link frame, the moment about the
// tip_link origin: only frame 0's orientation in base_link matters (a moment about a point
// does not depend on where the frame's origin is). The least squares goes through a
// one-sided Jacobi SVD of J^T (n x 6), whose singular values are J's to full relative
// accuracy: the condition number says how far to trust the estimate.
#ifndef ROBODYN_CONTROLLERS__TOOL_WRENCH_HPP_
#define ROBODYN_CONTROLLERS__TOOL_WRENCH_HPP_

#include <array>
#include <cstddef>
#include <vector>

#include "robodyn_controllers/dh_dynamics.hpp"

namespace robodyn_controllers
{

class ToolWrenchEstimate
{
public:
  // base_rotation: DH frame 0's axes in base_link (row-major 3x3, orthonormal);
  // tool_point: the tip_link origin in DH frame n [m]. Throws std::invalid_argument
  // naming the value when the rotation is not orthonormal to 1e-9 or a value is not finite.
  // Allocates the scratch space (not real-time).
  void configure(
    std::size_t n, const std::array<double, 9> & base_rotation,
    const std::array<double, 3> & tool_point);

  // wrench (6): [f (N); m (N m)] in base_link, the moment about the tip_link origin: the
  // least-squares (minimum-norm) w of tau_ext = J(q)^T w. Returns J's condition number
  // (infinity when J loses rank: then w is the minimum-norm answer, and some wrench
  // directions leave no trace in the joint torques). Allocates nothing.
  double estimate(
    const DhDynamics & dynamics, const double * q, const double * tau_ext,
    double * wrench) noexcept;

private:
  void jacobian_transpose(const DhDynamics & dynamics, const double * q) noexcept;
  std::size_t n_ = 0;
  std::array<double, 9> base_{};
  std::array<double, 3> tool_{};
  std::vector<double> poses_;  // per joint: R_0i (9), o_i (3), frame 0
  std::vector<double> jt_;     // J^T, n x 6 row-major; after the SVD: J^T V
  std::array<double, 36> v_{};  // V, 6 x 6 row-major
};

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__TOOL_WRENCH_HPP_
