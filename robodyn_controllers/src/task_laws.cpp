// The task-space laws (task_laws.hpp); each class's comment is its equation, the seed
// equation it rests on and the Python module that is its reference.
#include "robodyn_controllers/task_laws.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "robodyn_controllers/task_space.hpp"
#include "robodyn_controllers/tip_kinematics.hpp"

namespace robodyn_controllers
{
namespace
{

// What both task-space laws share: the tool spring's settings checked, the tip's
// kinematics at the reference and at the state, the pose error, M(q) (laws/
// cartesian_impedance.py's TipFrameLaw).
class TipFrameLaw : public JointLaw
{
public:
  const double * tip_jacobian() const noexcept override {return j_.data();}
  bool takes_wrench() const noexcept override {return true;}

protected:
  void configure_state(const LawSettings & s) override
  {
    for (double k : s.cartesian_stiffness) {
      if (!(std::isfinite(k) && k >= 0.0)) {
        throw std::invalid_argument("cartesian.stiffness: expected 6 finite values >= 0, "
                "got " + std::to_string(k));
      }
    }
    const double zeta = s.cartesian_damping_ratio;
    if (!(std::isfinite(zeta) && zeta >= 0.0 && zeta <= 5.0)) {
      throw std::invalid_argument("cartesian.damping_ratio: expected 0 to 5, got " +
              std::to_string(zeta));
    }
    tip_.configure(n_, s.tool_rotation, s.tool_point);
    j_.assign(6 * n_, 0.0);
    m_.assign(n_ * n_, 0.0);
    configure_terms();
  }
  virtual void configure_terms() = 0;

  // At the reference: J_r into j_, xd_ref_ = J_r qd_c, qd_c into a_ and the pose kept for
  // pose_error(); tip_ is left at q_r.
  void at_reference(DhDynamics & dyn, const LawSettings & s, const LawInput & x) noexcept
  {
    const std::size_t n = n_;
    tip_.at(dyn, x.q_ref);
    tip_.jacobian(dyn, j_.data());
    r_ref_ = tip_.rotation();
    p_ref_ = tip_.point();
    for (std::size_t i = 0; i < n; ++i) {a_[i] = compared(s, x, i);}
    for (std::size_t r = 0; r < 6; ++r) {
      double sum = 0.0;
      for (std::size_t i = 0; i < n; ++i) {sum += j_[r * n + i] * a_[i];}
      xd_ref_[r] = sum;
    }
  }

  // At the state: J into j_, e_x_ = [p_r - p; theta u of R_r R^T], the posture torque
  // Kp (q_r - q) + Kd (qd_c - qd) into b_, tau = C(q, qd) qd + g(q) [- g] [+ tau_f], M(q)
  // into m_ (composite rigid bodies: DhDynamics::mass_matrix); tip_ is left at q.
  void at_state(DhDynamics & dyn, const LawSettings & s, const LawInput & x, double * tau)
  noexcept
  {
    tip_.at(dyn, x.q);
    tip_.jacobian(dyn, j_.data());
    const auto & rot = tip_.rotation();
    const auto & p = tip_.point();
    std::array<double, 9> turn{};  // R_r R^T
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) {
        turn[3 * r + c] = r_ref_[3 * r] * rot[3 * c] + r_ref_[3 * r + 1] * rot[3 * c + 1] +
          r_ref_[3 * r + 2] * rot[3 * c + 2];
      }
      e_x_[r] = p_ref_[r] - p[r];
    }
    rotation_vector(turn, e_x_.data() + 3);
    std::fill(c_.begin(), c_.end(), 0.0);
    dyn.inverse_dynamics(x.q, x.qd, c_.data(), tau);
    drop_gravity(dyn, s, x.q, tau);
    if (s.include_friction) {dyn.add_friction(x.qd, tau);}
    dyn.mass_matrix_from_poses(tip_.poses(), m_.data());
    for (std::size_t i = 0; i < n_; ++i) {
      b_[i] = x.kp[i] * (x.q_ref[i] - x.q[i]) + x.kd[i] * (a_[i] - x.qd[i]);
    }
  }

  // tau += J^T F_ff: the feed-forward wrench at the tool point (LawInput::wrench), J at q.
  void add_wrench(const LawInput & x, double * tau) const noexcept
  {
    if (x.wrench == nullptr) {return;}
    for (std::size_t i = 0; i < n_; ++i) {
      double sum = 0.0;
      for (std::size_t r = 0; r < 6; ++r) {sum += j_[r * n_ + i] * x.wrench[r];}
      tau[i] += sum;
    }
  }

  TipKinematics tip_;
  std::vector<double> j_, m_;
  std::array<double, 9> r_ref_{};
  std::array<double, 3> p_ref_{};
  std::array<double, 6> e_x_{}, xd_ref_{};

};

// tau = J^T (K_x e_x + D_x (J_r qd_c - J qd) [+ F_ff]) + C(q, qd) qd + g(q) + N (Kp e +
// Kd e_dot) [+ tau_f(qd)]: a spring at the tool anchored at the tool pose of the joint reference,
// e_x = [p_r - p; theta u of R_r R^T], J the tip's geometric Jacobian (seed 000 eqs.
// 23-24; tip_kinematics.hpp), C qd + g the recursion at zero acceleration (seed 000 eq.
// 29), the posture spring Kp, Kd in J's nullspace (task_space.hpp;
// laws/cartesian_impedance.py).
class CartesianImpedance : public TipFrameLaw
{
public:
  const char * name() const noexcept override {return "cartesian_impedance";}
  void torque(DhDynamics & dyn, const LawSettings & s, const LawInput & x, double * tau)
  noexcept override
  {
    at_reference(dyn, s, x);
    at_state(dyn, s, x, tau);
    spring_.add_torque(j_.data(), e_x_.data(), xd_ref_.data(), x.qd, m_.data(), b_.data(),
      s.cartesian_stiffness.data(), s.cartesian_damping_ratio, MU, tau);
    add_wrench(x, tau);
  }

private:
  static constexpr double MU = 1e-3;  // [m, rad]: as laws/cartesian_impedance.py
  void configure_terms() override {spring_.configure(n_);}
  TaskSpaceSpring spring_;
};

// tau = J^T Lambda (a_r + D_x (J_r qd_c - J qd) + K_x e_x - Jdot qd) + C(q, qd) qd + g(q)
// + (1 - J^T Lambda J M^-1) (Kp e + Kd e_dot) [+ J^T F_ff] [+ tau_f(qd)]: the tool's acceleration
// commanded through the task-space inertia Lambda = (J M^-1 J^T + DAMPING 1)^-1 (seed 000's
// M; Khatib 1987), a unit-mass spring D_x,i = 2 zeta sqrt(K_x,i), a_r = J_r qdd_r +
// Jdot_r qd_c the reference's tool acceleration, Jdot qd the outward recursion at qd
// (tip_kinematics.hpp), the posture in the dynamically consistent nullspace
// (laws/operational_space.py).
class OperationalSpace : public TipFrameLaw
{
public:
  const char * name() const noexcept override {return "operational_space";}
  void torque(DhDynamics & dyn, const LawSettings & s, const LawInput & x, double * tau)
  noexcept override
  {
    const std::size_t n = n_;
    at_reference(dyn, s, x);
    tip_.bias(dyn, a_.data(), bias_.data());
    for (std::size_t r = 0; r < 6; ++r) {
      double sum = 0.0;
      for (std::size_t i = 0; i < n; ++i) {sum += j_[r * n + i] * x.qdd_ref[i];}
      wanted_[r] = sum + bias_[r];  // a_r
    }
    at_state(dyn, s, x, tau);
    tip_.bias(dyn, x.qd, bias_.data());
    for (std::size_t r = 0; r < 6; ++r) {
      double xd = 0.0;
      for (std::size_t i = 0; i < n; ++i) {xd += j_[r * n + i] * x.qd[i];}
      const double k = s.cartesian_stiffness[r];
      const double d = 2.0 * s.cartesian_damping_ratio * std::sqrt(k);
      wanted_[r] += d * (xd_ref_[r] - xd) + k * e_x_[r] - bias_[r];
    }
    force_.add_torque(j_.data(), wanted_.data(), m_.data(), b_.data(), DAMPING, tau);
    add_wrench(x, tau);
  }

private:
  // [1/kg, 1/(kg m^2)]: as laws/operational_space.py
  static constexpr double DAMPING = 1e-4;
  void configure_terms() override {force_.configure(n_);}
  OperationalSpaceForce force_;
  std::array<double, 6> bias_{}, wanted_{};
};

}  // namespace

std::unique_ptr<JointLaw> make_task_law(const std::string & mode)
{
  if (mode == "cartesian_impedance") {return std::make_unique<CartesianImpedance>();}
  if (mode == "operational_space") {return std::make_unique<OperationalSpace>();}
  return nullptr;
}

}  // namespace robodyn_controllers
