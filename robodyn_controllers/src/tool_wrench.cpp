// ToolWrenchEstimate: tau_ext = J(q)^T w by a one-sided Jacobi SVD (see tool_wrench.hpp).
#include "robodyn_controllers/tool_wrench.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace robodyn_controllers
{
namespace
{
constexpr std::size_t COLUMNS = 6;    // force and moment
constexpr int MAX_SWEEPS = 60;        // Jacobi converges quadratically: 6-10 sweeps at most
constexpr double ORTHONORMAL = 1e-9;  // a rotation's R R^T = I to this
// A singular value at or below this fraction of the largest makes the condition infinite
// (robodyn_ros.dynamics.contact_wrench's cut).
constexpr double RANK_CUT = 1e-12;

// Columns p and r of a (rows x 6, row-major) turned by the plane rotation (c, s).
void rotate(double * a, std::size_t rows, std::size_t p, std::size_t r, double c, double s)
noexcept
{
  for (std::size_t i = 0; i < rows; ++i) {
    double & x = a[COLUMNS * i + p];
    double & y = a[COLUMNS * i + r];
    const double turned = c * x - s * y;
    y = s * x + c * y;
    x = turned;
  }
}
}  // namespace

void ToolWrenchEstimate::configure(
  std::size_t n, const std::array<double, 9> & base_rotation,
  const std::array<double, 3> & tool_point)
{
  for (std::size_t r = 0; r < 3; ++r) {
    for (std::size_t c = 0; c < 3; ++c) {
      double dot = 0.0;
      for (std::size_t k = 0; k < 3; ++k) {
        dot += base_rotation[3 * r + k] * base_rotation[3 * c + k];
      }
      if (!(std::abs(dot - (r == c ? 1.0 : 0.0)) <= ORTHONORMAL)) {
        throw std::invalid_argument(
                "base_rotation: not a rotation (row " + std::to_string(r + 1) + " . row " +
                std::to_string(c + 1) + " = " + std::to_string(dot) + "; expected " +
                (r == c ? "1" : "0") + " to 1e-9)");
      }
    }
  }
  for (std::size_t k = 0; k < 3; ++k) {
    if (!std::isfinite(tool_point[k])) {
      throw std::invalid_argument("tool_point: not finite (element " + std::to_string(k + 1) +
              ")");
    }
  }
  n_ = n;
  base_ = base_rotation;
  tool_ = tool_point;
  poses_.assign(12 * n, 0.0);
  jt_.assign(COLUMNS * n, 0.0);
}

// J^T (n x 6) in base_link: row i = [(z x (p_tip - o))^T, z^T] of joint i+1's axis z_i
// through o_i (frame i = the previous DH frame; frame 0 = identity at the origin).
void ToolWrenchEstimate::jacobian_transpose(const DhDynamics & dynamics, const double * q)
noexcept
{
  dynamics.poses(q, poses_.data());
  const double * last = &poses_[12 * (n_ - 1)];
  double tip[3];
  for (std::size_t r = 0; r < 3; ++r) {
    tip[r] = last[9 + r] + last[3 * r] * tool_[0] + last[3 * r + 1] * tool_[1] +
      last[3 * r + 2] * tool_[2];
  }
  for (std::size_t i = 0; i < n_; ++i) {
    double z0[3] = {0.0, 0.0, 1.0}, o[3] = {0.0, 0.0, 0.0};
    if (i > 0) {
      const double * f = &poses_[12 * (i - 1)];
      z0[0] = f[2]; z0[1] = f[5]; z0[2] = f[8];
      o[0] = f[9]; o[1] = f[10]; o[2] = f[11];
    }
    const double d[3] = {tip[0] - o[0], tip[1] - o[1], tip[2] - o[2]};
    double lin[3] = {z0[1] * d[2] - z0[2] * d[1], z0[2] * d[0] - z0[0] * d[2],
      z0[0] * d[1] - z0[1] * d[0]};
    double ang[3] = {z0[0], z0[1], z0[2]};
    if (dynamics.prismatic(i)) {
      std::copy(z0, z0 + 3, lin);
      ang[0] = ang[1] = ang[2] = 0.0;
    }
    double * row = &jt_[COLUMNS * i];
    for (std::size_t r = 0; r < 3; ++r) {  // frame 0 -> base_link
      row[r] = base_[3 * r] * lin[0] + base_[3 * r + 1] * lin[1] + base_[3 * r + 2] * lin[2];
      row[3 + r] = base_[3 * r] * ang[0] + base_[3 * r + 1] * ang[1] +
        base_[3 * r + 2] * ang[2];
    }
  }
}

double ToolWrenchEstimate::estimate(
  const DhDynamics & dynamics, const double * q, const double * tau_ext, double * wrench)
noexcept
{
  jacobian_transpose(dynamics, q);
  v_.fill(0.0);
  for (std::size_t k = 0; k < COLUMNS; ++k) {v_[COLUMNS * k + k] = 1.0;}
  // One-sided Jacobi (Hestenes): rotate column pairs of A = J^T until they are orthogonal;
  // then A = B V^T with B's columns b_j = s_j u_j.
  for (int sweep = 0; sweep < MAX_SWEEPS; ++sweep) {
    bool rotated = false;
    for (std::size_t p = 0; p + 1 < COLUMNS; ++p) {
      for (std::size_t r = p + 1; r < COLUMNS; ++r) {
        double alpha = 0.0, beta = 0.0, gamma = 0.0;
        for (std::size_t i = 0; i < n_; ++i) {
          const double x = jt_[COLUMNS * i + p], y = jt_[COLUMNS * i + r];
          alpha += x * x; beta += y * y; gamma += x * y;
        }
        if (!(std::abs(gamma) > std::numeric_limits<double>::epsilon() *
          std::sqrt(alpha * beta)))
        {
          continue;
        }
        rotated = true;
        const double zeta = (beta - alpha) / (2.0 * gamma);
        const double t = std::copysign(1.0, zeta) / (std::abs(zeta) + std::hypot(1.0, zeta));
        const double c = 1.0 / std::hypot(1.0, t), s = c * t;
        rotate(jt_.data(), n_, p, r, c, s);
        rotate(v_.data(), COLUMNS, p, r, c, s);
      }
    }
    if (!rotated) {break;}
  }
  std::array<double, COLUMNS> sigma{};
  for (std::size_t j = 0; j < COLUMNS; ++j) {
    double sum = 0.0;
    for (std::size_t i = 0; i < n_; ++i) {sum += jt_[COLUMNS * i + j] * jt_[COLUMNS * i + j];}
    sigma[j] = std::sqrt(sum);
  }
  const double largest = *std::max_element(sigma.begin(), sigma.end());
  // numpy's lstsq cut (rcond=None): eps max(n, 6) of the largest singular value
  const double cut = std::numeric_limits<double>::epsilon() *
    static_cast<double>(std::max(n_, COLUMNS)) * largest;
  std::fill(wrench, wrench + COLUMNS, 0.0);
  for (std::size_t j = 0; j < COLUMNS; ++j) {
    if (!(sigma[j] > cut)) {continue;}
    double projection = 0.0;  // b_j . tau = s_j (u_j . tau)
    for (std::size_t i = 0; i < n_; ++i) {projection += jt_[COLUMNS * i + j] * tau_ext[i];}
    const double scale = projection / (sigma[j] * sigma[j]);
    for (std::size_t k = 0; k < COLUMNS; ++k) {wrench[k] += v_[COLUMNS * k + j] * scale;}
  }
  // J has min(n, 6) singular values: the largest ones of the six columns
  std::sort(sigma.begin(), sigma.end(), [](double a, double b) {return a > b;});
  const double smallest = sigma[std::min(n_, COLUMNS) - 1];
  return smallest > RANK_CUT * largest ? largest / smallest :
         std::numeric_limits<double>::infinity();
}

}  // namespace robodyn_controllers
