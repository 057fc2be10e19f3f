// The task-space terms of the task-space laws, without ROS, allocation or locks after
// configure(): cartesian_impedance's as robodyn_ros' control/laws/cartesian_kernel.py,
// operational_space's as control/laws/operational_space.py (conformance tests feed both
// languages the same inputs).
#ifndef ROBODYN_CONTROLLERS__TASK_SPACE_HPP_
#define ROBODYN_CONTROLLERS__TASK_SPACE_HPP_

#include <array>
#include <cstddef>
#include <vector>

namespace robodyn_controllers
{

// theta u [rad] of the rotation r (row-major 3x3), theta in [0, pi]: the orientation error
// of cartesian_impedance (the rotation that takes the tip's axes to the target's).
void rotation_vector(const std::array<double, 9> & r, double * out) noexcept;

// How far J (6 x n, row-major) is from losing a direction: Yoshikawa's manipulability
// sqrt(det(J J^T)) over its min(6, n) largest singular values, and the smallest of them
// (sigma_min [m or 1]; the pose follower slows below PoseFollower::SIGMA_SLOW). For
// /diagnostics, off the control thread. Allocates nothing.
struct Manipulability
{
  double measure = 0.0, smallest = 0.0;
};
Manipulability manipulability(const double * j, std::size_t n) noexcept;
// /diagnostics' manipulability of J (j nullptr: "off"), in the words of robodyn_ros'
// control/core_report.py (test/controllers/test_task_space_texts_cpp.py holds them equal).
void manipulability_text(const double * j, std::size_t n, char * text, std::size_t size)
noexcept;

class TaskSpaceSpring
{
public:
  // n joints (not real-time).
  void configure(std::size_t n);
  // tau += J^T (K_x e_x + D_x (xd_r - J qd)) + N posture, D_x,i = 2 zeta sqrt(K_x,i
  // Lambda_ii), Lambda = (J M^-1 J^T + mu^2 1)^-1, N = 1 - J^T (J J^T + mu^2 1)^-1 J. j: 6 x
  // n row-major, mass: n x n row-major (SPD), k_x: 6. Allocates nothing.
  void add_torque(
    const double * j, const double * e_x, const double * xd_r, const double * qd,
    const double * mass, const double * posture, const double * k_x, double zeta,
    double mu, double * tau) noexcept;

private:
  std::size_t n_ = 0;
  std::vector<double> lm_, minv_jt_, task_, jjt_, inv_;
  std::array<double, 6> force_{}, unit_{};
};

// operational_space's task-space force through the task-space inertia and its dynamically
// consistent nullspace (Khatib 1987).
class OperationalSpaceForce
{
public:
  // n joints (not real-time).
  void configure(std::size_t n);
  // tau += J^T Lambda (wanted - J M^-1 posture) + posture = J^T Lambda wanted + N^T posture,
  // Lambda = (J M^-1 J^T + damping 1)^-1, N^T = 1 - J^T Lambda J M^-1. j: 6 x n row-major,
  // wanted: the tool's commanded acceleration (6), mass: n x n row-major (SPD), posture: n.
  // Allocates nothing.
  void add_torque(
    const double * j, const double * wanted, const double * mass, const double * posture,
    double damping, double * tau) noexcept;

private:
  std::size_t n_ = 0;
  std::vector<double> lm_, minv_jt_, task_, inv_;
  std::array<double, 6> force_{};
};

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__TASK_SPACE_HPP_
