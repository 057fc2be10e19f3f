// cartesian_impedance's task-space terms alone (task_space.hpp): the orientation error of
// known rotations, and the spring and the nullspace on a chain of known Jacobian.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "robodyn_controllers/task_space.hpp"

using robodyn_controllers::rotation_vector;
using robodyn_controllers::TaskSpaceSpring;

namespace
{
std::array<double, 9> about(const std::array<double, 3> & u, double angle)
{
  const double c = std::cos(angle), s = std::sin(angle), t = 1.0 - c;
  return {t * u[0] * u[0] + c, t * u[0] * u[1] - s * u[2], t * u[0] * u[2] + s * u[1],
    t * u[0] * u[1] + s * u[2], t * u[1] * u[1] + c, t * u[1] * u[2] - s * u[0],
    t * u[0] * u[2] - s * u[1], t * u[1] * u[2] + s * u[0], t * u[2] * u[2] + c};
}
}  // namespace

TEST(RotationVector, IsTheAngleTimesTheAxisUpToPi)
{
  const double norm = std::sqrt(0.09 + 0.25 + 0.64);
  const std::array<double, 3> u{0.3 / norm, -0.5 / norm, 0.8 / norm};
  for (double angle : {0.0, 1e-8, 0.7, 2.9, M_PI - 1e-5}) {
    double v[3];
    rotation_vector(about(u, angle), v);
    for (int k = 0; k < 3; ++k) {EXPECT_NEAR(v[k], angle * u[k], 1e-9) << angle;}
  }
  double v[3];  // at pi, u and -u are the same rotation
  rotation_vector(about(u, M_PI), v);
  const double sign = v[0] * u[0] + v[1] * u[1] + v[2] * u[2] > 0.0 ? 1.0 : -1.0;
  for (int k = 0; k < 3; ++k) {EXPECT_NEAR(v[k], sign * M_PI * u[k], 1e-9);}
}

TEST(TaskSpaceSpring, IsJTransposeTimesTheSpringPlusTheProjectedPosture)
{
  // 7 joints, J = [1_6 | e_1] (the seventh joint moves like the first), M = 1: the spring's
  // wrench reaches the joints through J^T; of a posture torque only what moves no tool
  // direction is left: (1, .., -1) stays, (1, .., 1), which pushes x, goes
  const std::size_t n = 7;
  std::vector<double> j(6 * n, 0.0), mass(n * n, 0.0), tau(n, 0.0), zero(n, 0.0);
  for (std::size_t r = 0; r < 6; ++r) {j[r * n + r] = 1.0;}
  j[0 * n + 6] = 1.0;
  for (std::size_t i = 0; i < n; ++i) {mass[i * n + i] = 1.0;}
  const double e_x[6] = {0.01, -0.02, 0.0, 0.0, 0.0, 0.03}, xd[6] = {0, 0, 0, 0, 0, 0};
  const double k_x[6] = {500, 500, 500, 30, 30, 30};
  TaskSpaceSpring spring;
  spring.configure(n);
  spring.add_torque(j.data(), e_x, xd, zero.data(), mass.data(), zero.data(), k_x, 1.0, 0.0,
    tau.data());
  EXPECT_NEAR(tau[0], 5.0, 1e-12);
  EXPECT_NEAR(tau[1], -10.0, 1e-12);
  EXPECT_NEAR(tau[5], 0.9, 1e-12);
  EXPECT_NEAR(tau[6], 5.0, 1e-12);  // joint 7 feels the x force as joint 1 does
  std::vector<double> posture{1.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0}, out(n, 0.0);
  const double none[6] = {0, 0, 0, 0, 0, 0};
  spring.add_torque(j.data(), none, xd, zero.data(), mass.data(), posture.data(), k_x, 1.0,
    0.0, out.data());
  for (std::size_t i = 0; i < n; ++i) {EXPECT_NEAR(out[i], posture[i], 1e-12) << i;}
  std::vector<double> along{1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0}, gone(n, 0.0);
  spring.add_torque(j.data(), none, xd, zero.data(), mass.data(), along.data(), k_x, 1.0,
    0.0, gone.data());
  for (std::size_t i = 0; i < n; ++i) {EXPECT_NEAR(gone[i], 0.0, 1e-12) << i;}  // moves x
}

TEST(Manipulability, IsTheProductOfTheSingularValuesAndNamesTheSmallest)
{
  // J = diag(2, 1, 1, 1, 0.5, 0.05) with a seventh column that repeats the first: J J^T =
  // diag(8, 1, 1, 1, 0.25, 0.0025), singular values sqrt(8), 1, 1, 1, 0.5, 0.05
  const std::size_t n = 7;
  const double d[6] = {2.0, 1.0, 1.0, 1.0, 0.5, 0.05};
  std::vector<double> j(6 * n, 0.0);
  for (std::size_t r = 0; r < 6; ++r) {j[r * n + r] = d[r];}
  j[0 * n + 6] = 2.0;
  const auto m = robodyn_controllers::manipulability(j.data(), n);
  EXPECT_NEAR(m.measure, std::sqrt(8.0) * 0.5 * 0.05, 1e-12);
  EXPECT_NEAR(m.smallest, 0.05, 1e-12);
  // three joints: J's three singular values only, not the three zero ones of J J^T
  std::vector<double> k(6 * 3, 0.0);
  k[0 * 3 + 0] = 1.0;
  k[1 * 3 + 1] = 2.0;
  k[5 * 3 + 2] = 0.5;
  const auto three = robodyn_controllers::manipulability(k.data(), 3);
  EXPECT_NEAR(three.measure, 1.0, 1e-12);
  EXPECT_NEAR(three.smallest, 0.5, 1e-12);
}
