// What the adaptive law (joint_laws.cpp) needs beside passivity, without ROS: the
// Slotine-Li regressor of a payload rigidly attached to the tip link, and the projected
// estimate of its 10 inertial parameters (robodyn_ros/dynamics/payload_regressor.py and
// robodyn_ros/control/laws/adaptive.py are the references the tests hold these to).
//
// pi = [m, m c (3), I_O (xx xy xz yy yz zz)] in the tip link's frame, I_O about its origin,
// c the payload's centre of mass [kg, kg m, kg m^2].
#ifndef ROBODYN_CONTROLLERS__PAYLOAD_ADAPTATION_HPP_
#define ROBODYN_CONTROLLERS__PAYLOAD_ADAPTATION_HPP_

#include <array>
#include <cstddef>
#include <vector>

#include "robodyn_controllers/dh_dynamics.hpp"
#include "robodyn_controllers/tip_kinematics.hpp"

namespace robodyn_controllers
{

// Y_p(q, qd, v, a) pi = M_p(q) a + C_p(q, qd) v + g_p(q): the payload's share of seed 000
// eq. 29 with C the Christoffel matrix (seed 003 eq. 55, seed 000 eq. 52: Mdot - 2C skew),
// linear in pi. Derived, not differenced: the tip frame's angular velocity w, acceleration
// w' and origin acceleration a_O (TipKinematics::outward), the rigid body's Newton-Euler
// equations at that origin, both linear in pi,
//   f = m a_O + w' x h + w x (w x h),   n_O = I_O w' + w x (I_O w) + h x a_O,
// and tau = J_v^T f + J_w^T n_O with the tip point's Jacobian. The Christoffel C v is the
// quadratic term polarised, 1/4 (n(qd + v) - n(qd - v)): three outward passes in all.
class PayloadRegressor
{
public:
  // tool_rotation: the tip link's axes in DH frame n (row-major 3x3), tool_point its origin
  // there [m]. Throws std::invalid_argument on a non-finite value or a matrix that is not a
  // rotation. Allocates (not real-time).
  void configure(
    std::size_t n, const std::array<double, 9> & tool_rotation,
    const std::array<double, 3> & tool_point);
  // y: n x 10, row-major. Allocates nothing.
  void slotine_li(
    const DhDynamics & dyn, const double * q, const double * qd, const double * v,
    const double * a, double * y) noexcept;

private:
  TipKinematics tip_;
  std::size_t n_ = 0;
  std::vector<double> plus_, minus_, jacobian_;  // n, n, 6 n
};

// The adaptive law's settings (its parameters adaptive.*).
struct AdaptationSettings
{
  std::array<double, 3> gamma{0.2, 0.005, 5e-5};  // Gamma's diagonal: mass, m c, I_O
  double mass_max = 5.0;    // [kg]
  double rest_speed = 0.01;  // [rad/s or m/s]
};

// pi and its update pi += Gamma Y^T s dt, projected onto the physically consistent set:
// the pseudo-inertia J = [[tr(I_O)/2 1 - I_O, h], [h^T, m]] (seed 001) with its eigenvalues
// raised to EPS (the nearest consistent J in the Frobenius norm: mass > 0, inertia about
// the centre of mass positive definite, the triangle inequalities), then scaled down to
// mass_max when heavier (centre of mass kept).
class PayloadEstimate
{
public:
  static constexpr double EPS = 1e-9;     // [kg, kg m^2]
  static constexpr double MAX_STEP = 0.01;  // [s]: a late cycle does not make a larger step
  // Throws std::invalid_argument on a rate < 0 or non-finite, or mass_max <= 0.
  void configure(const AdaptationSettings & settings);
  // Back to the projected zero payload, no previous step.
  void reset() noexcept;
  // One step at `now` [s]: dt from the previous step (none at the first), y n x 10, s (n);
  // a non-finite step leaves pi as it was and holds it (as hold()).
  void step(double now, const double * y, const double * s, std::size_t n) noexcept;
  // Frozen this cycle: the next step starts from the next cycle's time.
  void hold() noexcept {have_last_ = false;}
  const std::array<double, 10> & pi() const noexcept {return pi_;}
  // pi projected (mass_max the cap): what step() applies; exposed for the tests.
  static void project(std::array<double, 10> & pi, double mass_max) noexcept;

private:
  AdaptationSettings settings_;
  std::array<double, 10> gamma_{}, pi_{};
  double last_ = 0.0;
  bool have_last_ = false;
};

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__PAYLOAD_ADAPTATION_HPP_
