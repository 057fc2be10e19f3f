// The controller's computed-torque step (DhDynamics) against Pinocchio's C++ rnea on the
// same model and states: same torques, time per call. Built and driven by
// robodyn_ros/bench/cpp_bench.py (`robodyn bench --cpp`), which writes the input file:
//   n count repeats / gravity (3) / n rows of 19 (as robodyn_inverse_dynamics) /
//   count lines of q (n) qd (n) q_ref (n) qd_ref (n) qdd_ref (n) / kp (n) / kd (n)
// Prints: max |tau_robodyn - tau_pinocchio|, max |tau|, ns per call for both.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <vector>

#include "pinocchio/multibody.hpp"
#include "pinocchio/algorithm/rnea.hpp"
#include "robodyn_controllers/dh_dynamics.hpp"
#include "robodyn_controllers/momentum_observer.hpp"

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
  std::printf("max_abs_difference %.6e\nmax_abs_torque %.6e\nrobodyn_ns %.2f\n"
    "pinocchio_ns %.2f\nobserver_ns %.2f\nobserver_terms_difference %.3e\nsink %.3e\n",
    worst, largest, robodyn_ns, pinocchio_ns, observer_ns, terms_difference, sink);
  return 0;
}
