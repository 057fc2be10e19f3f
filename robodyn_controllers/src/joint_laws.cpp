// The joint-space laws (joint_laws.hpp); each class's comment is its equation, the seed
// equation it rests on and the Python module that is its reference.
#include "robodyn_controllers/joint_laws.hpp"

#include "robodyn_controllers/task_space.hpp"
#include "robodyn_controllers/tip_kinematics.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace robodyn_controllers
{

void JointLaw::configure_scratch(std::size_t n)
{
  n_ = n;
  for (auto * v : {&a_, &b_, &c_, &d_}) {v->assign(n, 0.0);}
}

void JointLaw::drop_gravity(
  DhDynamics & dyn, const LawSettings & s, const double * q, double * tau) noexcept
{
  if (s.include_gravity) {return;}
  dyn.gravity(q, d_.data());
  for (std::size_t i = 0; i < n_; ++i) {tau[i] -= d_[i];}
}

namespace
{

// tau = M(q)(qdd_r + Kd (qd_c - qd) + Kp (q_r - q)) + C(q, qd) qd + g(q) [+ tau_f(qd)]
// (seed 000 eq. 29 at the commanded acceleration; laws/computed_torque.py).
class ComputedTorque : public JointLaw
{
public:
  const char * name() const noexcept override {return "computed_torque";}
  void torque(DhDynamics & dyn, const LawSettings & s, const LawInput & x, double * tau)
  noexcept override
  {
    for (std::size_t i = 0; i < n_; ++i) {
      a_[i] = x.qdd_ref[i] + x.kd[i] * (compared(s, x, i) - x.qd[i]) +
        x.kp[i] * (x.q_ref[i] - x.q[i]);
    }
    dyn.inverse_dynamics(x.q, x.qd, a_.data(), tau);
    if (s.include_friction) {dyn.add_friction(x.qd, tau);}
    drop_gravity(dyn, s, x.q, tau);
  }
};

// tau = M(q_r) qdd_r + C(q_r, qd_r) qd_r + g(q_r) [+ tau_f(qd_r)] [+ Kp e + Kd e_dot]
// (seed 000 eq. 72; laws/feedforward.py).
class Feedforward : public JointLaw
{
public:
  const char * name() const noexcept override {return "feedforward";}
  bool follows_reference(const LawSettings & s) const noexcept override
  {
    return s.feedforward_pd;
  }
  void torque(DhDynamics & dyn, const LawSettings & s, const LawInput & x, double * tau)
  noexcept override
  {
    dyn.inverse_dynamics(x.q_ref, x.qd_ref, x.qdd_ref, tau);
    drop_gravity(dyn, s, x.q_ref, tau);
    if (s.include_friction) {dyn.add_friction(x.qd_ref, tau);}
    if (s.feedforward_pd) {add_pd(s, x, tau);}
  }
};

// tau = g(q) [+ tau_f(qd)] + Kp e + Kd e_dot (seed 000 eq. 29's last term;
// laws/gravity.py).
class Gravity : public JointLaw
{
public:
  const char * name() const noexcept override {return "gravity";}
  bool follows_reference(const LawSettings &) const noexcept override {return false;}
  void torque(DhDynamics & dyn, const LawSettings & s, const LawInput & x, double * tau)
  noexcept override
  {
    if (s.include_gravity) {
      dyn.gravity(x.q, tau);
    } else {
      std::fill(tau, tau + n_, 0.0);
    }
    if (s.include_friction) {dyn.add_friction(x.qd, tau);}
    add_pd(s, x, tau);
  }
};

// tau = K e + D e_dot + C(q, qd) qd + g(q) [+ M(q) qdd_r] [+ tau_f(qd)] (seed 000 eq. 29
// at the reference's acceleration or none; laws/joint_impedance.py).
class JointImpedance : public JointLaw
{
public:
  const char * name() const noexcept override {return "joint_impedance";}
  void torque(DhDynamics & dyn, const LawSettings & s, const LawInput & x, double * tau)
  noexcept override
  {
    for (std::size_t i = 0; i < n_; ++i) {a_[i] = s.inertia_feedforward ? x.qdd_ref[i] : 0.0;}
    dyn.inverse_dynamics(x.q, x.qd, a_.data(), tau);
    drop_gravity(dyn, s, x.q, tau);
    if (s.include_friction) {dyn.add_friction(x.qd, tau);}
    add_pd(s, x, tau);
  }
};

// Slotine and Li: qd_a = qd_c + L e, qdd_a = qdd_r + L (qd_c - qd), s = qd_a - qd;
// tau = M(q) qdd_a + C(q, qd) qd_a + g(q) + K_D s [+ tau_f(qd)] with the Christoffel C
// (seed 000 eq. 52, Mdot - 2C skew), C(q, qd) v = 1/4 (RNEA(q, qd + v, 0) - RNEA(q, qd - v,
// 0)): the quadratic term polarised, gravity cancelling (laws/passivity.py).
class Passivity : public JointLaw
{
public:
  const char * name() const noexcept override {return "passivity";}
  void torque(DhDynamics & dyn, const LawSettings & s, const LawInput & x, double * tau)
  noexcept override
  {
    for (std::size_t i = 0; i < n_; ++i) {
      const double qd_c = compared(s, x, i);
      b_[i] = qd_c + x.kp[i] * (x.q_ref[i] - x.q[i]);  // qd_a
      a_[i] = x.qdd_ref[i] + x.kp[i] * (qd_c - x.qd[i]);  // qdd_a
      c_[i] = 0.0;
    }
    dyn.inverse_dynamics(x.q, c_.data(), a_.data(), tau);  // M qdd_a + g
    drop_gravity(dyn, s, x.q, tau);
    for (std::size_t i = 0; i < n_; ++i) {
      c_[i] = x.qd[i] + b_[i];
      a_[i] = x.qd[i] - b_[i];
      d_[i] = 0.0;
    }
    dyn.inverse_dynamics(x.q, c_.data(), d_.data(), c_.data());
    dyn.inverse_dynamics(x.q, a_.data(), d_.data(), a_.data());
    for (std::size_t i = 0; i < n_; ++i) {
      tau[i] += 0.25 * (c_[i] - a_[i]) + x.kd[i] * (b_[i] - x.qd[i]);
    }
    if (s.include_friction) {dyn.add_friction(x.qd, tau);}
  }
};

// Slotine and Li's adaptive law on a payload at the tip: passivity's torque +
// Y_p(q, qd, qd_a, qdd_a) pi, then pi' = Gamma Y_p^T s (adapt(), projected), frozen at rest
// (every joint's measured and reference speed below rest_speed: Y_p sees only gravity).
// The payload's gravity is in Y_p whatever include_gravity says: a robot compensating its
// own gravity does not know this payload (laws/adaptive.py; payload_adaptation.hpp).
class Adaptive : public Passivity
{
public:
  const char * name() const noexcept override {return "adaptive";}
  void torque(DhDynamics & dyn, const LawSettings & s, const LawInput & x, double * tau)
  noexcept override
  {
    Passivity::torque(dyn, s, x, tau);  // leaves qd_a in b_
    bool rest = true;
    for (std::size_t i = 0; i < n_; ++i) {
      qdd_a_[i] = x.qdd_ref[i] + x.kp[i] * (compared(s, x, i) - x.qd[i]);
      s_[i] = b_[i] - x.qd[i];
      rest = rest && std::abs(x.qd[i]) < rest_speed_ && std::abs(x.qd_ref[i]) < rest_speed_;
    }
    regressor_.slotine_li(dyn, x.q, x.qd, b_.data(), qdd_a_.data(), y_.data());
    const auto & pi = estimate_.pi();
    for (std::size_t j = 0; j < n_; ++j) {
      double sum = 0.0;
      for (std::size_t c = 0; c < 10; ++c) {sum += y_[10 * j + c] * pi[c];}
      tau[j] += sum;
    }
    rest_ = rest;
    have_cycle_ = true;
  }
  void adapt(double now, bool allowed) noexcept override
  {
    if (allowed && !rest_ && have_cycle_) {
      estimate_.step(now, y_.data(), s_.data(), n_);
    } else {
      estimate_.hold();
    }
    have_cycle_ = false;
  }
  const double * estimate() const noexcept override {return estimate_.pi().data();}

protected:
  void configure_state(const LawSettings & s) override
  {
    regressor_.configure(n_, s.tool_rotation, s.tool_point);
    estimate_.configure(s.adaptation);
    if (!(std::isfinite(s.adaptation.rest_speed) && s.adaptation.rest_speed >= 0.0)) {
      throw std::invalid_argument("adaptive.rest_speed: expected >= 0, got " +
              std::to_string(s.adaptation.rest_speed));
    }
    rest_speed_ = s.adaptation.rest_speed;
    y_.assign(10 * n_, 0.0);
    s_.assign(n_, 0.0);
    qdd_a_.assign(n_, 0.0);
    rest_ = have_cycle_ = false;
  }

private:
  PayloadRegressor regressor_;
  PayloadEstimate estimate_;
  std::vector<double> y_, s_, qdd_a_;
  double rest_speed_ = 0.0;
  bool rest_ = false, have_cycle_ = false;
};

// tau = J^T (K_x e_x + D_x (J_r qd_c - J qd)) + C(q, qd) qd + g(q) + N (Kp e + Kd e_dot)
// [+ tau_f(qd)]: a spring at the tool anchored at the tool pose of the joint reference,
// e_x = [p_r - p; theta u of R_r R^T], J the tip's geometric Jacobian (seed 000 eqs.
// 23-24; tip_kinematics.hpp), C qd + g the recursion at zero acceleration (seed 000 eq.
// 29), the posture spring Kp, Kd in J's nullspace (task_space.hpp;
// laws/cartesian_impedance.py).
class CartesianImpedance : public JointLaw
{
public:
  const char * name() const noexcept override {return "cartesian_impedance";}
  void torque(DhDynamics & dyn, const LawSettings & s, const LawInput & x, double * tau)
  noexcept override
  {
    const std::size_t n = n_;
    tip_.at(dyn, x.q_ref);
    tip_.jacobian(dyn, j_.data());
    const auto r_ref = tip_.rotation();
    const auto p_ref = tip_.point();
    for (std::size_t i = 0; i < n; ++i) {a_[i] = compared(s, x, i);}
    for (std::size_t r = 0; r < 6; ++r) {
      double sum = 0.0;
      for (std::size_t i = 0; i < n; ++i) {sum += j_[r * n + i] * a_[i];}
      xd_ref_[r] = sum;
    }
    tip_.at(dyn, x.q);
    tip_.jacobian(dyn, j_.data());
    const auto & rot = tip_.rotation();
    const auto & p = tip_.point();
    std::array<double, 9> turn{};  // R_r R^T
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) {
        turn[3 * r + c] = r_ref[3 * r] * rot[3 * c] + r_ref[3 * r + 1] * rot[3 * c + 1] +
          r_ref[3 * r + 2] * rot[3 * c + 2];
      }
      e_x_[r] = p_ref[r] - p[r];
    }
    rotation_vector(turn, e_x_.data() + 3);
    std::fill(c_.begin(), c_.end(), 0.0);
    dyn.inverse_dynamics(x.q, x.qd, c_.data(), tau);
    drop_gravity(dyn, s, x.q, tau);
    if (s.include_friction) {dyn.add_friction(x.qd, tau);}
    mass_matrix(dyn, x.q);
    for (std::size_t i = 0; i < n; ++i) {
      b_[i] = x.kp[i] * (x.q_ref[i] - x.q[i]) + x.kd[i] * (a_[i] - x.qd[i]);  // posture
    }
    spring_.add_torque(j_.data(), e_x_.data(), xd_ref_.data(), x.qd, m_.data(), b_.data(),
      s.cartesian_stiffness.data(), s.cartesian_damping_ratio, MU, tau);
  }

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
    spring_.configure(n_);
    j_.assign(6 * n_, 0.0);
    m_.assign(n_ * n_, 0.0);
    col_.assign(n_, 0.0);
    g_.assign(n_, 0.0);
  }

private:
  static constexpr double MU = 1e-3;  // [m, rad]: as laws/cartesian_impedance.py
  // M(q) row-major from n recursions at zero velocity (column k: RNEA(q, 0, e_k) - g(q)).
  void mass_matrix(DhDynamics & dyn, const double * q) noexcept
  {
    std::fill(c_.begin(), c_.end(), 0.0);
    dyn.gravity(q, g_.data());
    for (std::size_t k = 0; k < n_; ++k) {
      std::fill(d_.begin(), d_.end(), 0.0);
      d_[k] = 1.0;
      dyn.inverse_dynamics(q, c_.data(), d_.data(), col_.data());
      for (std::size_t i = 0; i < n_; ++i) {m_[i * n_ + k] = col_[i] - g_[i];}
    }
  }
  TipKinematics tip_;
  TaskSpaceSpring spring_;
  std::vector<double> j_, m_, col_, g_;
  std::array<double, 6> e_x_{}, xd_ref_{};
};

}  // namespace

std::unique_ptr<JointLaw> make_law(const std::string & mode)
{
  std::unique_ptr<JointLaw> law;
  if (mode == "computed_torque") {law = std::make_unique<ComputedTorque>();}
  if (mode == "feedforward") {law = std::make_unique<Feedforward>();}
  if (mode == "gravity") {law = std::make_unique<Gravity>();}
  if (mode == "joint_impedance") {law = std::make_unique<JointImpedance>();}
  if (mode == "passivity") {law = std::make_unique<Passivity>();}
  if (mode == "adaptive") {law = std::make_unique<Adaptive>();}
  if (mode == "cartesian_impedance") {law = std::make_unique<CartesianImpedance>();}
  return law;
}

const std::vector<std::string> & law_names()
{
  static const std::vector<std::string> names{
    "computed_torque", "feedforward", "gravity", "joint_impedance", "passivity", "adaptive",
    "cartesian_impedance"};
  return names;
}

}  // namespace robodyn_controllers
