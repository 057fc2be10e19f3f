// The joint-space laws (joint_laws.hpp); each class's comment is its equation, the seed
// equation it rests on and the Python module that is its reference.
#include "robodyn_controllers/joint_laws.hpp"

#include "robodyn_controllers/task_laws.hpp"

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
  return law ? std::move(law) : make_task_law(mode);
}

const std::vector<std::string> & law_names()
{
  static const std::vector<std::string> names{
    "computed_torque", "feedforward", "gravity", "joint_impedance", "passivity", "adaptive",
    "cartesian_impedance", "operational_space"};
  return names;
}

}  // namespace robodyn_controllers
