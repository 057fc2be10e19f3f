// The adaptive law's parts alone (payload_adaptation.hpp): the regressor against the
// inverse dynamics of the chain carrying the payload (its last link lumped with it), the
// Christoffel C's skew symmetry, the projection's guarantees, the estimate's steps.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "dh_test_chain.hpp"
#include "robodyn_controllers/dh_dynamics.hpp"
#include "robodyn_controllers/payload_adaptation.hpp"

using robodyn_controllers::AdaptationSettings;
using robodyn_controllers::DhDynamics;
using robodyn_controllers::DhLink;
using robodyn_controllers::PayloadEstimate;
using robodyn_controllers::PayloadRegressor;

namespace
{
using Pi = std::array<double, 10>;
constexpr std::array<double, 9> IDENTITY{1, 0, 0, 0, 1, 0, 0, 0, 1};

using robodyn_test::chain;

// The last link lumped with a payload of mass m at c (frame n) with inertia about c.
DhLink lumped(DhLink l, double m, const std::array<double, 3> & c, const double (&ic)[6])
{
  const double total = l.mass + m;
  std::array<double, 3> com{};
  for (int k = 0; k < 3; ++k) {com[k] = (l.mass * l.com[k] + m * c[k]) / total;}
  const int idx[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
  std::array<double, 6> inertia{};
  for (int e = 0; e < 6; ++e) {
    const int r = idx[e][0], s = idx[e][1];
    auto shift = [&](double mass, const std::array<double, 3> & p) {
        const double d[3] = {p[0] - com[0], p[1] - com[1], p[2] - com[2]};
        const double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        return mass * ((r == s ? dd : 0.0) - d[r] * d[s]);
      };
    inertia[e] = l.inertia[e] + ic[e] + shift(l.mass, l.com) + shift(m, c);
  }
  l.mass = total;
  l.com = com;
  l.inertia = inertia;
  return l;
}
}  // namespace

TEST(PayloadRegressor, IsTheInverseDynamicsOfTheCarriedPayload)
{
  std::vector<DhLink> links = chain();
  const std::size_t n = links.size();
  const double m = 1.3;
  const std::array<double, 3> c{0.03, -0.02, 0.08};
  const double ic[6] = {0.004, 0.0002, -0.0001, 0.005, 0.0003, 0.003};
  // pi about the frame-n origin: I_O = I_c + m (|c|^2 1 - c c^T)
  const double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
  const Pi pi{m, m * c[0], m * c[1], m * c[2], ic[0] + m * (cc - c[0] * c[0]),
    ic[1] - m * c[0] * c[1], ic[2] - m * c[0] * c[2], ic[3] + m * (cc - c[1] * c[1]),
    ic[4] - m * c[1] * c[2], ic[5] + m * (cc - c[2] * c[2])};
  DhDynamics bare, carrying;
  bare.configure(links, {0.0, 0.0, -9.81});
  links.back() = lumped(links.back(), m, c, ic);
  carrying.configure(links, {0.0, 0.0, -9.81});
  PayloadRegressor regressor;
  regressor.configure(n, IDENTITY, {0.0, 0.0, 0.0});
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> uniform(-2.0, 2.0);
  std::vector<double> q(n), qd(n), qdd(n), with(n), without(n), y(10 * n);
  for (int trial = 0; trial < 40; ++trial) {
    for (std::size_t i = 0; i < n; ++i) {
      q[i] = uniform(rng);
      qd[i] = uniform(rng);
      qdd[i] = uniform(rng);
    }
    carrying.inverse_dynamics(q.data(), qd.data(), qdd.data(), with.data());
    bare.inverse_dynamics(q.data(), qd.data(), qdd.data(), without.data());
    regressor.slotine_li(bare, q.data(), qd.data(), qd.data(), qdd.data(), y.data());
    for (std::size_t j = 0; j < n; ++j) {
      double yp = 0.0;
      for (int k = 0; k < 10; ++k) {yp += y[10 * j + k] * pi[k];}
      EXPECT_NEAR(yp, with[j] - without[j], 1e-12 * (1.0 + std::abs(with[j])))
        << "joint " << j + 1 << ", trial " << trial;
    }
  }
}

// s^T (Y(q, qd, s, 0) pi - g-free part) is the payload's s^T C(q, qd) s; Mdot - 2C skew
// makes s^T C s = 1/2 s^T Mdot s, checked against a difference of M along qd.
TEST(PayloadRegressor, ItsChristoffelTermMakesMdotMinus2CSkew)
{
  const std::vector<DhLink> links = chain();
  const std::size_t n = links.size();
  DhDynamics dyn;
  dyn.configure(links, {0.0, 0.0, 0.0});  // no gravity: Y(q, qd, v, 0) pi = C_p v
  PayloadRegressor regressor;
  regressor.configure(n, {0, -1, 0, 1, 0, 0, 0, 0, 1}, {0.01, 0.02, 0.05});
  const Pi pi{1.0, 0.05, 0.02, -0.03, 0.01, 0.001, 0.0, 0.012, -0.002, 0.009};
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> uniform(-1.5, 1.5);
  std::vector<double> q(n), qd(n), s(n), zero(n, 0.0), y(10 * n), qh(n), e(n);
  const double h = 1e-6;
  for (int trial = 0; trial < 20; ++trial) {
    for (std::size_t i = 0; i < n; ++i) {q[i] = uniform(rng); qd[i] = uniform(rng); s[i] =
        uniform(rng);}
    regressor.slotine_li(dyn, q.data(), qd.data(), s.data(), zero.data(), y.data());
    double sCs = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      for (int k = 0; k < 10; ++k) {sCs += s[j] * y[10 * j + k] * pi[k];}
    }
    // s^T M_p(q) s from Y(q, 0, 0, s) pi; its rate along qd by a central difference
    auto quadratic = [&](double step) {
        for (std::size_t i = 0; i < n; ++i) {qh[i] = q[i] + step * qd[i];}
        regressor.slotine_li(dyn, qh.data(), zero.data(), zero.data(), s.data(), y.data());
        double total = 0.0;
        for (std::size_t j = 0; j < n; ++j) {
          for (int k = 0; k < 10; ++k) {total += s[j] * y[10 * j + k] * pi[k];}
        }
        return total;
      };
    const double sMdots = (quadratic(h) - quadratic(-h)) / (2.0 * h);
    EXPECT_NEAR(sCs, 0.5 * sMdots, 1e-6 * (1.0 + std::abs(sMdots))) << "trial " << trial;
  }
}

TEST(PayloadEstimate, ProjectionKeepsAConsistentPayloadAndRepairsOthers)
{
  // 2 kg at (0.05, 0, 0.1) m with an inertia diag(0.01, 0.012, 0.008) kg m^2 about it
  const Pi consistent{2.0, 0.1, 0.0, 0.2, 0.03, 0.0, -0.01, 0.037, 0.0, 0.013};
  Pi pi = consistent;
  PayloadEstimate::project(pi, 5.0);
  for (int k = 0; k < 10; ++k) {EXPECT_DOUBLE_EQ(pi[k], consistent[k]);}
  Pi negative{-1.0, 0.0, 0.0, 0.0, -0.1, 0.0, 0.0, 0.2, 0.0, 0.3};
  PayloadEstimate::project(negative, 5.0);
  EXPECT_GE(negative[0], PayloadEstimate::EPS * (1.0 - 1e-9));
  // triangle inequalities of the inertia about the origin hold after the projection
  EXPECT_LE(negative[4], negative[7] + negative[9] + 1e-12);
  Pi heavy = consistent;
  heavy[0] = 50.0;
  PayloadEstimate::project(heavy, 5.0);
  EXPECT_NEAR(heavy[0], 5.0, 1e-12);
  Pi nan = consistent;
  nan[3] = std::nan("");
  PayloadEstimate::project(nan, 5.0);  // returns: no endless loop on NaN
}

TEST(PayloadEstimate, StepsByTheClampedTimeAndHolds)
{
  PayloadEstimate estimate;
  AdaptationSettings settings;
  settings.gamma = {1.0, 0.0, 0.0};
  estimate.configure(settings);
  const double y[10] = {1.0};  // one joint: d tau / d m = 1
  const double s[1] = {2.0};
  estimate.step(0.0, y, s, 1);  // the first step has no dt
  EXPECT_NEAR(estimate.pi()[0], PayloadEstimate::EPS, 1e-15);
  estimate.step(0.001, y, s, 1);
  EXPECT_NEAR(estimate.pi()[0], PayloadEstimate::EPS + 0.002, 1e-12);
  estimate.step(1.0, y, s, 1);  // late: MAX_STEP at most
  EXPECT_NEAR(estimate.pi()[0], PayloadEstimate::EPS + 0.002 + 2.0 * PayloadEstimate::MAX_STEP,
    1e-12);
  const double before = estimate.pi()[0];
  estimate.hold();
  estimate.step(1.5, y, s, 1);  // after a hold: no dt again
  EXPECT_DOUBLE_EQ(estimate.pi()[0], before);
  const double bad[1] = {std::nan("")};
  estimate.step(1.501, y, bad, 1);
  EXPECT_DOUBLE_EQ(estimate.pi()[0], before);
  estimate.step(1.502, y, s, 1);  // held by the bad step: no dt again
  EXPECT_DOUBLE_EQ(estimate.pi()[0], before);
  settings.mass_max = 0.0;
  EXPECT_THROW(estimate.configure(settings), std::invalid_argument);
}
