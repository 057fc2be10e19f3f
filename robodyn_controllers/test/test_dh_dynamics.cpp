// DhDynamics' momentum-observer terms against the two-recursion route, and a pendulum's
// by hand: revolute and prismatic joints, Hayati rows, gravity.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "dh_test_chain.hpp"
#include "robodyn_controllers/dh_dynamics.hpp"

using robodyn_controllers::DhDynamics;
using robodyn_controllers::DhLink;

namespace
{
using robodyn_test::chain;
}  // namespace

TEST(ObserverTerms, EqualMqdAndMdotQdMinusCqdMinusG)
{
  const std::vector<DhLink> links = chain();
  DhDynamics dyn;
  dyn.configure(links, {0.0, 0.0, -9.81});
  const std::size_t n = links.size();
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uniform(-2.0, 2.0);
  std::vector<double> q(n), qd(n), p(n), beta(n), p2(n), mdot(n), cg(n), zero(n, 0.0);
  for (int trial = 0; trial < 50; ++trial) {
    for (std::size_t i = 0; i < n; ++i) {q[i] = uniform(rng); qd[i] = uniform(rng);}
    dyn.observer_terms(q.data(), qd.data(), p.data(), beta.data());
    dyn.momentum(q.data(), qd.data(), p2.data(), mdot.data());
    dyn.inverse_dynamics(q.data(), qd.data(), zero.data(), cg.data());
    for (std::size_t i = 0; i < n; ++i) {
      const double scale = 1.0 + std::abs(mdot[i]) + std::abs(cg[i]);
      EXPECT_NEAR(p[i], p2[i], 1e-12 * (1.0 + std::abs(p2[i]))) << "joint " << i + 1;
      EXPECT_NEAR(beta[i], mdot[i] - cg[i], 1e-12 * scale) << "joint " << i + 1;
    }
  }
}

TEST(ObserverTerms, APendulumsByHand)
{
  // One revolute joint about z_0: a link of mass m = 2 kg, its COM at r = 0.5 m along x_1,
  // gravity along -y_0.
  DhLink l;
  l.mass = 2.0;
  l.com = {0.5, 0.0, 0.0};
  l.inertia = {0.0, 0.0, 0.0, 0.01, 0.0, 0.01};
  DhDynamics dyn;
  dyn.configure({l}, {0.0, -9.81, 0.0});
  const double q = 0.3, qd = 1.7;
  double p = 0.0, beta = 0.0;
  dyn.observer_terms(&q, &qd, &p, &beta);
  const double inertia = 0.01 + 2.0 * 0.25;  // about the axis
  EXPECT_NEAR(p, inertia * qd, 1e-14);
  // C^T qd = dK/dq = 0 for one joint; g = m g r cos(q) (the COM at (r cos q, r sin q))
  EXPECT_NEAR(beta, -2.0 * 9.81 * 0.5 * std::cos(q), 1e-13);
}
