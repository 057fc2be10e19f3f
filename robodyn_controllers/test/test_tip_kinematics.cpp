// TipKinematics alone: J q̇ is the tip point's velocity and the tip frame's angular
// velocity, J̇ q̇ the rate of J q̇ along the motion (central differences of the poses), on a
// chain with a prismatic joint, a Hayati row and a tool frame off the tip link.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "dh_test_chain.hpp"
#include "robodyn_controllers/dh_dynamics.hpp"
#include "robodyn_controllers/tip_kinematics.hpp"

using robodyn_controllers::DhDynamics;
using robodyn_controllers::DhLink;
using robodyn_controllers::TipKinematics;

namespace
{
using robodyn_test::chain;

// J q̇ at q (6 values) with the tip's pose
std::array<double, 6> velocity(
  TipKinematics & tip, const DhDynamics & dyn, const std::vector<double> & q,
  const std::vector<double> & qd)
{
  const std::size_t n = q.size();
  std::vector<double> j(6 * n);
  tip.at(dyn, q.data());
  tip.jacobian(dyn, j.data());
  std::array<double, 6> v{};
  for (int r = 0; r < 6; ++r) {
    for (std::size_t i = 0; i < n; ++i) {v[r] += j[r * n + i] * qd[i];}
  }
  return v;
}
}  // namespace

TEST(TipKinematics, JacobianAndBiasAreTheDerivativesOfThePose)
{
  DhDynamics dyn;
  dyn.configure(chain(), {0.0, 0.0, -9.81});
  TipKinematics tip;
  const double c = std::cos(0.4), s = std::sin(0.4);
  tip.configure(4, {c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0}, {0.02, -0.01, 0.12});
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> uniform(-1.5, 1.5);
  const double h = 1e-6;
  std::vector<double> q(4), qd(4), qp(4), qm(4);
  for (int trial = 0; trial < 20; ++trial) {
    for (std::size_t i = 0; i < 4; ++i) {q[i] = uniform(rng); qd[i] = uniform(rng);}
    for (std::size_t i = 0; i < 4; ++i) {qp[i] = q[i] + h * qd[i]; qm[i] = q[i] - h * qd[i];}
    const auto v = velocity(tip, dyn, q, qd);
    double bias[6];
    tip.bias(dyn, qd.data(), bias);
    tip.at(dyn, qp.data());
    const auto p_plus = tip.point();
    const auto r_plus = tip.rotation();
    tip.at(dyn, qm.data());
    const auto p_minus = tip.point();
    const auto r_minus = tip.rotation();
    for (int k = 0; k < 3; ++k) {  // the point's velocity
      EXPECT_NEAR(v[k], (p_plus[k] - p_minus[k]) / (2 * h), 1e-7) << trial;
    }
    // w from Rdot R^T (skew): w_x = (Rdot R^T)_21 with R at q
    tip.at(dyn, q.data());
    const auto & r = tip.rotation();
    double rdot_rt[3][3] = {};
    for (int a = 0; a < 3; ++a) {
      for (int b = 0; b < 3; ++b) {
        for (int k = 0; k < 3; ++k) {
          rdot_rt[a][b] += (r_plus[3 * a + k] - r_minus[3 * a + k]) / (2 * h) * r[3 * b + k];
        }
      }
    }
    EXPECT_NEAR(v[3], rdot_rt[2][1], 1e-7) << trial;
    EXPECT_NEAR(v[4], rdot_rt[0][2], 1e-7) << trial;
    EXPECT_NEAR(v[5], rdot_rt[1][0], 1e-7) << trial;
    const auto vp = velocity(tip, dyn, qp, qd), vm = velocity(tip, dyn, qm, qd);
    for (int k = 0; k < 6; ++k) {  // J̇ q̇: the rate of J q̇ along q̇
      EXPECT_NEAR(bias[k], (vp[k] - vm[k]) / (2 * h), 1e-6) << trial << " row " << k;
    }
  }
}

TEST(TipKinematics, ANonRotationIsRefused)
{
  TipKinematics tip;
  EXPECT_THROW(tip.configure(4, {2, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}), std::invalid_argument);
  EXPECT_THROW(tip.configure(4, {1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, std::nan(""), 0}),
    std::invalid_argument);
}
