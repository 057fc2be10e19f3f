// The controller's computed-torque step (DhDynamics) against Pinocchio's C++ rnea on the
// same model and states: same torques, time per call. Built and driven by
// robodyn_ros/bench/cpp_bench.py (`robodyn bench --cpp`), which writes the input file:
//   n count repeats / gravity (3) / n rows of 19 (as robodyn_inverse_dynamics) /
//   count lines of q (n) qd (n) q_ref (n) qd_ref (n) qdd_ref (n) / kp (n) / kd (n)
// Prints: max |tau_robodyn - tau_pinocchio|, max |tau|, ns per call for both; then for
// every law (joint_laws.hpp) its C++ torque beside Pinocchio computing the same quantities
// (law_<mode>_robodyn_ns, law_<mode>_pinocchio_ns, law_<mode>_difference [N m]).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "pinocchio/multibody.hpp"
#include "pinocchio/algorithm/aba.hpp"
#include "pinocchio/algorithm/jacobian.hpp"
#include "pinocchio/algorithm/kinematics.hpp"
#include "pinocchio/algorithm/regressor.hpp"
#include "pinocchio/algorithm/rnea.hpp"
#include "pinocchio/spatial.hpp"
#include "robodyn_controllers/dh_dynamics.hpp"
#include "robodyn_controllers/joint_laws.hpp"
#include "robodyn_controllers/momentum_observer.hpp"
#include "robodyn_controllers/payload_adaptation.hpp"

namespace
{
using robodyn_controllers::DhLink;
using SE3 = pinocchio::SE3;

SE3 rot(int axis, double angle)
{
  return SE3(Eigen::AngleAxisd(angle, Eigen::Vector3d::Unit(axis)).toRotationMatrix(),
    Eigen::Vector3d::Zero());
}

SE3 shift(int axis, double distance)
{
  return SE3(Eigen::Matrix3d::Identity(), distance * Eigen::Vector3d::Unit(axis));
}

// Tz(d) Tx(a) Rx(alpha) Ry(beta): from the joint's frame (after Rz(theta)) to DH frame i.
SE3 after_joint(const DhLink & l, bool with_d)
{
  return shift(2, with_d ? l.d : 0.0) * shift(0, l.a) * rot(0, l.alpha) * rot(1, l.beta);
}

// A Pinocchio model of the same DH rows: joint i turns (slides) about (along) z of frame
// i-1 rotated by theta0; link i's inertia moves from DH frame i into the joint's frame.
pinocchio::Model pinocchio_model(const std::vector<DhLink> & links, const double * g)
{
  pinocchio::Model model;
  model.gravity.linear(Eigen::Vector3d(g[0], g[1], g[2]));
  SE3 parent_to_frame = SE3::Identity();  // previous joint's frame -> DH frame i-1
  pinocchio::JointIndex parent = 0;
  for (std::size_t i = 0; i < links.size(); ++i) {
    const DhLink & l = links[i];
    const SE3 placement = parent_to_frame * rot(2, l.theta0) * (l.prismatic ? shift(2, l.d) :
      SE3::Identity());
    const std::string name = "joint" + std::to_string(i + 1);
    parent = l.prismatic ?
      model.addJoint(parent, pinocchio::JointModelPZ(), placement, name) :
      model.addJoint(parent, pinocchio::JointModelRZ(), placement, name);
    const SE3 to_frame = after_joint(l, !l.prismatic);
    Eigen::Matrix3d inertia;
    const auto & I = l.inertia;
    inertia << I[0], I[1], I[2], I[1], I[3], I[4], I[2], I[4], I[5];
    const pinocchio::Inertia body(l.mass, Eigen::Vector3d(l.com[0], l.com[1], l.com[2]),
      inertia);
    model.appendBodyToJoint(parent, to_frame.act(body), SE3::Identity());
    parent_to_frame = to_frame;
  }
  return model;
}
// adaptive's payload term with Pinocchio's own parts: Y_p(q, qd, qd_a, qdd_a) pi =
// J_n^T (Phi(0, a(qdd_a) - g) + 1/4 (Phi(v(qd + qd_a), a(qd + qd_a)) - Phi(v(qd - qd_a), ...)))
// pi, Phi Pinocchio's bodyRegressor of the last joint's motion from forwardKinematics, J_n
// its LOCAL Jacobian, pi (robodyn's order, DH frame n) moved into the joint's frame by `tip`.
Eigen::VectorXd pinocchio_payload(
  const pinocchio::Model & model, pinocchio::Data & data, const Eigen::VectorXd & q,
  const Eigen::VectorXd & qd, const Eigen::VectorXd & qd_a, const Eigen::VectorXd & qdd_a,
  const double * pi, const SE3 & tip)
{
  const auto n = q.size();
  const auto last = static_cast<pinocchio::JointIndex>(model.njoints - 1);
  Eigen::Matrix<double, 10, 1> ours, params;
  ours << pi[0], pi[1], pi[2], pi[3], pi[4], pi[5], pi[7], pi[6], pi[8], pi[9];  // xx xy yy..
  params = tip.act(pinocchio::Inertia::FromDynamicParameters(ours)).toDynamicParameters();
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
  Eigen::Matrix<double, 6, 10> phi, part;
  pinocchio::forwardKinematics(model, data, q, zero, qdd_a);
  const pinocchio::Motion a_gf = data.a[last] - data.oMi[last].actInv(model.gravity);
  pinocchio::bodyRegressor(data.v[last], a_gf, phi);
  for (const double sign : {1.0, -1.0}) {
    const Eigen::VectorXd v = qd + sign * qd_a;
    pinocchio::forwardKinematics(model, data, q, v, zero);
    pinocchio::bodyRegressor(data.v[last], data.a[last], part);
    phi += 0.25 * sign * part;
  }
  pinocchio::Data::Matrix6x jacobian = pinocchio::Data::Matrix6x::Zero(6, n);
  pinocchio::computeJointJacobians(model, data, q);
  pinocchio::getJointJacobian(model, data, last, pinocchio::LOCAL, jacobian);
  return jacobian.transpose() * (phi * params);
}

// The tip (DH frame n, `tip` from the last joint) at `at` and its Jacobian from
// computeJointJacobians (the joint's LOCAL_WORLD_ALIGNED Jacobian moved to the tip point).
SE3 pinocchio_tip(
  const pinocchio::Model & model, pinocchio::Data & data, const Eigen::VectorXd & at,
  const SE3 & tip, Eigen::MatrixXd & j)
{
  const auto n = at.size();
  const auto last = static_cast<pinocchio::JointIndex>(model.njoints - 1);
  pinocchio::computeJointJacobians(model, data, at);  // also the placements at `at`
  pinocchio::Data::Matrix6x joint = pinocchio::Data::Matrix6x::Zero(6, n);
  pinocchio::getJointJacobian(model, data, last, pinocchio::LOCAL_WORLD_ALIGNED, joint);
  const SE3 pose = data.oMi[last] * tip;
  const Eigen::Vector3d arm = pose.translation() - data.oMi[last].translation();
  j = joint;
  for (Eigen::Index c = 0; c < n; ++c) {
    j.block<3, 1>(0, c) += joint.block<3, 1>(3, c).cross(arm);
  }
  return pose;
}

// Jdot qd of the tip at `at`, world axes: forwardKinematics at qd and zero acceleration,
// the tip's spatial acceleration made classical (+ w x v), rotated to the world.
Eigen::Matrix<double, 6, 1> pinocchio_bias(
  const pinocchio::Model & model, pinocchio::Data & data, const Eigen::VectorXd & at,
  const Eigen::VectorXd & qd, const SE3 & tip)
{
  const auto last = static_cast<pinocchio::JointIndex>(model.njoints - 1);
  pinocchio::forwardKinematics(model, data, at, qd, Eigen::VectorXd::Zero(at.size()));
  const pinocchio::Motion v = tip.actInv(data.v[last]), a = tip.actInv(data.a[last]);
  const Eigen::Matrix3d r = (data.oMi[last] * tip).rotation();
  Eigen::Matrix<double, 6, 1> out;
  out.head<3>() = r * (a.linear() + v.angular().cross(v.linear()));
  out.tail<3>() = r * a.angular();
  return out;
}

// e_x = [p_r - p; log3(R_r R^T)] of two tip poses.
Eigen::Matrix<double, 6, 1> pose_error(const SE3 & target, const SE3 & pose)
{
  Eigen::Matrix<double, 6, 1> e;
  e.head<3>() = target.translation() - pose.translation();
  e.tail<3>() =
    pinocchio::log3(Eigen::Matrix3d(target.rotation() * pose.rotation().transpose()));
  return e;
}

// M(q)^-1 from computeMinverse (its upper triangle), made symmetric.
Eigen::MatrixXd pinocchio_minverse(
  const pinocchio::Model & model, pinocchio::Data & data, const Eigen::VectorXd & q)
{
  Eigen::MatrixXd minv = pinocchio::computeMinverse(model, data, q);
  minv.triangularView<Eigen::StrictlyLower>() =
    minv.transpose().triangularView<Eigen::StrictlyLower>();
  return minv;
}

// cartesian_impedance with Pinocchio's parts (CRISP's calls): the tip and its Jacobian
// (pinocchio_tip), computeMinverse, log3 of R_r R^T, nonLinearEffects; the spring's
// defaults (joint_laws.hpp: LawSettings).
Eigen::VectorXd pinocchio_cartesian(
  const pinocchio::Model & model, pinocchio::Data & data, const Eigen::VectorXd & q,
  const Eigen::VectorXd & qd, const Eigen::VectorXd & qr, const Eigen::VectorXd & qdr,
  const Eigen::VectorXd & posture, const SE3 & tip)
{
  const auto n = q.size();
  const robodyn_controllers::LawSettings spring;
  const double mu = 1e-3;
  Eigen::MatrixXd j_r(6, n), j(6, n);
  const SE3 target = pinocchio_tip(model, data, qr, tip, j_r);
  const SE3 pose = pinocchio_tip(model, data, q, tip, j);
  const Eigen::Matrix<double, 6, 1> e = pose_error(target, pose);
  const Eigen::MatrixXd minv = pinocchio_minverse(model, data, q);
  const Eigen::Matrix<double, 6, 6> eye = Eigen::Matrix<double, 6, 6>::Identity();
  const Eigen::Matrix<double, 6, 6> lambda =
    (j * minv * j.transpose() + mu * mu * eye).inverse();
  Eigen::Matrix<double, 6, 1> force;
  const Eigen::Matrix<double, 6, 1> xd_r = j_r * qdr, xd = j * qd;
  for (int a = 0; a < 6; ++a) {
    const double k = spring.cartesian_stiffness[a];
    const double d = 2.0 * spring.cartesian_damping_ratio * std::sqrt(k * lambda(a, a));
    force[a] = k * e[a] + d * (xd_r[a] - xd[a]);
  }
  const Eigen::VectorXd nullspace = posture - j.transpose() *
    (j * j.transpose() + mu * mu * eye).ldlt().solve(j * posture);
  return pinocchio::nonLinearEffects(model, data, q, qd) + j.transpose() * force + nullspace;
}

// operational_space with Pinocchio's parts: pinocchio_tip and pinocchio_bias at q_r and at
// q, computeMinverse, log3, nonLinearEffects; Lambda = (J M^-1 J^T + 1e-4 1)^-1 and the
// posture in the dynamically consistent nullspace, J^T Lambda (a - J M^-1 posture).
Eigen::VectorXd pinocchio_operational(
  const pinocchio::Model & model, pinocchio::Data & data, const Eigen::VectorXd & q,
  const Eigen::VectorXd & qd, const Eigen::VectorXd & qr, const Eigen::VectorXd & qdr,
  const Eigen::VectorXd & qddr, const Eigen::VectorXd & posture, const SE3 & tip)
{
  const auto n = q.size();
  const robodyn_controllers::LawSettings spring;
  Eigen::MatrixXd j_r(6, n), j(6, n);
  const SE3 target = pinocchio_tip(model, data, qr, tip, j_r);
  Eigen::Matrix<double, 6, 1> wanted = j_r * qddr + pinocchio_bias(model, data, qr, qdr, tip);
  const SE3 pose = pinocchio_tip(model, data, q, tip, j);
  const Eigen::Matrix<double, 6, 1> e = pose_error(target, pose);
  const Eigen::Matrix<double, 6, 1> xd_r = j_r * qdr, xd = j * qd;
  wanted -= pinocchio_bias(model, data, q, qd, tip);
  for (int a = 0; a < 6; ++a) {
    const double k = spring.cartesian_stiffness[a];
    const double d = 2.0 * spring.cartesian_damping_ratio * std::sqrt(k);
    wanted[a] += k * e[a] + d * (xd_r[a] - xd[a]);
  }
  const Eigen::MatrixXd minv = pinocchio_minverse(model, data, q);
  const Eigen::Matrix<double, 6, 6> lambda =
    (j * minv * j.transpose() + 1e-4 * Eigen::Matrix<double, 6, 6>::Identity()).inverse();
  return pinocchio::nonLinearEffects(model, data, q, qd) +
         j.transpose() * (lambda * (wanted - j * minv * posture)) + posture;
}

// Pinocchio's torque of `mode` (gravity, PD, feed-forward and inertia terms on, no
// friction) for state s: q qd q_r qd_r qdd_r, n each; adaptive with the estimate pi.
void pinocchio_law(
  const std::string & mode, const pinocchio::Model & model, pinocchio::Data & data,
  const double * s, const std::vector<double> & kp, const std::vector<double> & kd,
  const double * pi, const SE3 & tip, Eigen::VectorXd & tau)
{
  const auto n = static_cast<Eigen::Index>(kp.size());
  using Map = Eigen::Map<const Eigen::VectorXd>;
  const Map q(s, n), qd(s + n, n), qr(s + 2 * n, n), qdr(s + 3 * n, n), qddr(s + 4 * n, n);
  const Map p(kp.data(), n), d(kd.data(), n);
  if (mode == "computed_torque") {
    tau = pinocchio::rnea(model, data, q, qd,
        (qddr + d.cwiseProduct(qdr - qd) + p.cwiseProduct(qr - q)).eval());
  } else if (mode == "feedforward") {
    tau = pinocchio::rnea(model, data, qr, qdr, qddr) + p.cwiseProduct(qr - q) +
      d.cwiseProduct(qdr - qd);
  } else if (mode == "gravity") {
    tau = pinocchio::computeGeneralizedGravity(model, data, q) + p.cwiseProduct(qr - q) +
      d.cwiseProduct(qdr - qd);
  } else if (mode == "joint_impedance") {
    tau = pinocchio::rnea(model, data, q, qd, qddr) + p.cwiseProduct(qr - q) +
      d.cwiseProduct(qdr - qd);
  } else if (mode == "cartesian_impedance") {
    tau = pinocchio_cartesian(model, data, q, qd, qr, qdr,
        (p.cwiseProduct(qr - q) + d.cwiseProduct(qdr - qd)).eval(), tip);
  } else if (mode == "operational_space") {
    tau = pinocchio_operational(model, data, q, qd, qr, qdr, qddr,
        (p.cwiseProduct(qr - q) + d.cwiseProduct(qdr - qd)).eval(), tip);
  } else {  // passivity: M qdd_a + g (rnea at zero velocity) + C(q, qd) qd_a + K_D s
    const Eigen::VectorXd qd_a = qdr + p.cwiseProduct(qr - q);
    const Eigen::VectorXd qdd_a = qddr + p.cwiseProduct(qdr - qd);
    tau = pinocchio::rnea(model, data, q, Eigen::VectorXd::Zero(n), qdd_a);
    tau += pinocchio::computeCoriolisMatrix(model, data, q, qd) * qd_a +
      d.cwiseProduct(qd_a - qd);
    if (mode == "adaptive") {
      tau += pinocchio_payload(model, data, q, qd, qd_a, qdd_a, pi, tip);
    }
  }
}

// Every law's C++ step (make_law) beside pinocchio_law on the same states: ns per call for
// both and the largest torque difference, printed as law_<mode>_* lines.
void laws(
  const pinocchio::Model & model, robodyn_controllers::DhDynamics & dyn,
  const std::vector<double> & states, int n, int count, int repeats,
  const std::vector<double> & kp, const std::vector<double> & kd, const SE3 & tip,
  double & sink)
{
  using clock = std::chrono::steady_clock;
  pinocchio::Data data(model);
  Eigen::VectorXd t(n);
  std::vector<double> tau(n);
  const robodyn_controllers::LawSettings settings;
  for (const auto & mode : robodyn_controllers::law_names()) {
    auto law = robodyn_controllers::make_law(mode);
    law->configure(static_cast<std::size_t>(n));
    double ns[2] = {0.0, 0.0}, worst = 0.0;
    for (int pass = 0; pass < 2; ++pass) {
      const auto start = clock::now();
      for (int r = 0; r < repeats; ++r) {
        for (int k = 0; k < count; ++k) {
          const double * s = &states[static_cast<std::size_t>(k) * 5 * n];
          if (pass == 0) {
            law->torque(dyn, settings, robodyn_controllers::LawInput{s, s + n, s + 2 * n,
                s + 3 * n, s + 4 * n, kp.data(), kd.data()}, tau.data());
            sink += tau[0];
          } else {
            pinocchio_law(mode, model, data, s, kp, kd, law->estimate(), tip, t);
            sink += t[0];
          }
          if (pass == 1 && r == 0) {
            law->torque(dyn, settings, robodyn_controllers::LawInput{s, s + n, s + 2 * n,
                s + 3 * n, s + 4 * n, kp.data(), kd.data()}, tau.data());
            for (int i = 0; i < n; ++i) {worst = std::max(worst, std::abs(tau[i] - t[i]));}
          }
        }
      }
      ns[pass] = std::chrono::duration<double, std::nano>(clock::now() - start).count() /
        (static_cast<double>(repeats) * count);
    }
    std::printf("law_%s_robodyn_ns %.2f\nlaw_%s_pinocchio_ns %.2f\nlaw_%s_difference %.6e\n",
      mode.c_str(), ns[0], mode.c_str(), ns[1], mode.c_str(), worst);
  }
  // adaptive's estimate starts near zero, so its torque above sees little of the payload
  // term: the regressor alone with a 1.5 kg payload, against pinocchio_payload
  robodyn_controllers::PayloadRegressor regressor;
  regressor.configure(static_cast<std::size_t>(n), {1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0});
  const double pi[10] = {1.5, 0.075, 0.0, 0.075, 0.01, 0.001, -0.002, 0.012, 0.0, 0.008};
  std::vector<double> y(10 * static_cast<std::size_t>(n));
  double worst = 0.0;
  for (int k = 0; k < count; ++k) {
    const double * s = &states[static_cast<std::size_t>(k) * 5 * n];
    regressor.slotine_li(dyn, s, s + n, s + 3 * n, s + 4 * n, y.data());
    using Map = Eigen::Map<const Eigen::VectorXd>;
    const Eigen::VectorXd pin = pinocchio_payload(model, data, Map(s, n), Map(s + n, n),
      Map(s + 3 * n, n), Map(s + 4 * n, n), pi, tip);
    for (int j = 0; j < n; ++j) {
      double ours = 0.0;
      for (int c = 0; c < 10; ++c) {ours += y[10 * j + c] * pi[c];}
      worst = std::max(worst, std::abs(ours - pin[j]));
    }
  }
  std::printf("payload_regressor_difference %.6e\n", worst);
}
}  // namespace

int main(int argc, char ** argv)
{
  if (argc != 2) {
    std::cerr << "usage: dynamics_bench INPUT\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  int n = 0, count = 0, repeats = 0;
  double g[3];
  in >> n >> count >> repeats >> g[0] >> g[1] >> g[2];
  std::vector<DhLink> links(n);
  for (auto & l : links) {
    double prismatic;
    in >> l.a >> l.alpha >> l.d >> l.theta0 >> l.beta >> prismatic >> l.mass >> l.com[0] >>
    l.com[1] >> l.com[2];
    for (double & v : l.inertia) {in >> v;}
    in >> l.viscous >> l.coulomb >> l.smoothing;
    l.prismatic = prismatic > 0.5;
  }
  std::vector<double> states(static_cast<std::size_t>(count) * 5 * n), kp(n), kd(n);
  for (double & v : states) {in >> v;}
  for (double & v : kp) {in >> v;}
  for (double & v : kd) {in >> v;}
  if (!in) {
    std::cerr << "dynamics_bench: the input file is short or malformed\n";
    return 2;
  }
  robodyn_controllers::DhDynamics dyn;
  dyn.configure(links, {g[0], g[1], g[2]});
  const pinocchio::Model model = pinocchio_model(links, g);
  pinocchio::Data data(model);
  std::vector<double> acc(n), tau(n);
  Eigen::VectorXd q(n), v(n), a(n);
  double worst = 0.0, largest = 0.0, sink = 0.0;
  using clock = std::chrono::steady_clock;
  double robodyn_ns = 0.0, pinocchio_ns = 0.0;
  for (int pass = 0; pass < 2; ++pass) {  // robodyn, then Pinocchio; both include the PD
    const auto start = clock::now();
    for (int r = 0; r < repeats; ++r) {
      for (int k = 0; k < count; ++k) {
        const double * s = &states[static_cast<std::size_t>(k) * 5 * n];
        const double * qs = s, * qds = s + n, * qr = s + 2 * n, * qdr = s + 3 * n,
        * qddr = s + 4 * n;
        for (int i = 0; i < n; ++i) {
          acc[i] = qddr[i] + kd[i] * (qdr[i] - qds[i]) + kp[i] * (qr[i] - qs[i]);
        }
        if (pass == 0) {
          dyn.inverse_dynamics(qs, qds, acc.data(), tau.data());
          sink += tau[0];
        } else {
          for (int i = 0; i < n; ++i) {q[i] = qs[i]; v[i] = qds[i]; a[i] = acc[i];}
          const Eigen::VectorXd & t = pinocchio::rnea(model, data, q, v, a);
          sink += t[0];
          if (r == 0) {
            dyn.inverse_dynamics(qs, qds, acc.data(), tau.data());
            for (int i = 0; i < n; ++i) {
              worst = std::max(worst, std::abs(tau[i] - t[i]));
              largest = std::max(largest, std::abs(t[i]));
            }
          }
        }
      }
    }
    const double ns = std::chrono::duration<double, std::nano>(clock::now() - start).count() /
      (static_cast<double>(repeats) * count);
    (pass == 0 ? robodyn_ns : pinocchio_ns) = ns;
  }
  // The momentum observer's sample (what the collision watch adds to a cycle), and its
  // terms against the two-recursion route (M qd and Mdot qd on dual numbers, C qd + g).
  robodyn_controllers::MomentumObserver observer;
  observer.configure(static_cast<std::size_t>(n), 50.0, 0.005);
  std::vector<double> p(n), beta(n), p2(n), mdot(n), cg(n), zero(n, 0.0);
  double terms_difference = 0.0;
  for (int k = 0; k < count; ++k) {
    const double * s = &states[static_cast<std::size_t>(k) * 5 * n];
    dyn.observer_terms(s, s + n, p.data(), beta.data());
    dyn.momentum(s, s + n, p2.data(), mdot.data());
    dyn.inverse_dynamics(s, s + n, zero.data(), cg.data());
    for (int i = 0; i < n; ++i) {
      const double scale = 1.0 + std::abs(mdot[i]) + std::abs(cg[i]) + std::abs(p2[i]);
      terms_difference = std::max(terms_difference, std::max(
          std::abs(beta[i] - (mdot[i] - cg[i])), std::abs(p[i] - p2[i])) / scale);
    }
  }
  const auto start = clock::now();
  for (int r = 0; r < repeats; ++r) {
    for (int k = 0; k < count; ++k) {
      const double * s = &states[static_cast<std::size_t>(k) * 5 * n];
      observer.update(dyn, 1e-3 * (static_cast<double>(r) * count + k), s, s + n, s + 4 * n);
    }
  }
  const double observer_ns = std::chrono::duration<double, std::nano>(
    clock::now() - start).count() / (static_cast<double>(repeats) * count);
  sink += observer.residual()[0];
  laws(model, dyn, states, n, count, std::max(1, repeats / 4), kp, kd,
    after_joint(links.back(), !links.back().prismatic), sink);
  std::printf("max_abs_difference %.6e\nmax_abs_torque %.6e\nrobodyn_ns %.2f\n"
    "pinocchio_ns %.2f\nobserver_ns %.2f\nobserver_terms_difference %.3e\nsink %.3e\n",
    worst, largest, robodyn_ns, pinocchio_ns, observer_ns, terms_difference, sink);
  return 0;
}
