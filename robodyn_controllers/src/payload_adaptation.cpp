// The adaptive law's payload regressor and projected estimate (payload_adaptation.hpp).
#include "robodyn_controllers/payload_adaptation.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "robodyn_controllers/symmetric_eigen.hpp"

namespace robodyn_controllers
{
namespace
{
using vec3::Vec;
using vec3::add;
using vec3::cross;

// R^T v for R row-major 3x3: v in R's own axes.
inline Vec in_axes(const std::array<double, 9> & r, const Vec & v) noexcept
{
  return {r[0] * v[0] + r[3] * v[1] + r[6] * v[2], r[1] * v[0] + r[4] * v[1] + r[7] * v[2],
    r[2] * v[0] + r[5] * v[1] + r[8] * v[2]};
}

// The 3 x 10 Newton-Euler rows at the tip origin, in tip axes, added with weight k into
// f and n (row-major 3 x 10 each): f = m a + w' x h + w x (w x h), n = I w' + w x (I w)
// + h x a. The terms of w (quadratic) and of w', a (linear) are added separately, so that
// the polarised sum needs one call per velocity.
void add_quadratic(const Vec & w, double k, double * f, double * n) noexcept
{
  // w x (w x h) = (w w^T - |w|^2 1) h
  const double ww = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      f[10 * r + 1 + c] += k * (w[r] * w[c] - (r == c ? ww : 0.0));
    }
  }
  // w x (I w), I w = L(w) [xx xy xz yy yz zz]
  const double lw[3][6] = {{w[0], w[1], w[2], 0, 0, 0}, {0, w[0], 0, w[1], w[2], 0},
    {0, 0, w[0], 0, w[1], w[2]}};
  for (int c = 0; c < 6; ++c) {
    const Vec col{lw[0][c], lw[1][c], lw[2][c]};
    const Vec wc = cross(w, col);
    for (int r = 0; r < 3; ++r) {n[10 * r + 4 + c] += k * wc[r];}
  }
}

void add_linear(const Vec & wd, const Vec & a, double * f, double * n) noexcept
{
  const double skew_wd[3][3] = {{0, -wd[2], wd[1]}, {wd[2], 0, -wd[0]}, {-wd[1], wd[0], 0}};
  const double skew_a[3][3] = {{0, -a[2], a[1]}, {a[2], 0, -a[0]}, {-a[1], a[0], 0}};
  const double lwd[3][6] = {{wd[0], wd[1], wd[2], 0, 0, 0}, {0, wd[0], 0, wd[1], wd[2], 0},
    {0, 0, wd[0], 0, wd[1], wd[2]}};
  for (int r = 0; r < 3; ++r) {
    f[10 * r] += a[r];
    for (int c = 0; c < 3; ++c) {
      f[10 * r + 1 + c] += skew_wd[r][c];
      n[10 * r + 1 + c] -= skew_a[r][c];  // h x a = -a x h
    }
    for (int c = 0; c < 6; ++c) {n[10 * r + 4 + c] += lwd[r][c];}
  }
}

}  // namespace

void PayloadRegressor::configure(
  std::size_t n, const std::array<double, 9> & tool_rotation,
  const std::array<double, 3> & tool_point)
{
  tip_.configure(n, tool_rotation, tool_point);
  n_ = n;
  plus_.assign(n, 0.0);
  minus_.assign(n, 0.0);
  jacobian_.assign(6 * n, 0.0);
}

void PayloadRegressor::slotine_li(
  const DhDynamics & dyn, const double * q, const double * qd, const double * v,
  const double * a, double * y) noexcept
{
  tip_.at(dyn, q);
  tip_.jacobian(dyn, jacobian_.data());
  for (std::size_t i = 0; i < n_; ++i) {
    plus_[i] = qd[i] + v[i];
    minus_[i] = qd[i] - v[i];
  }
  TipKinematics::Motion inertial, up, down;
  tip_.outward(dyn, nullptr, a, true, inertial);
  tip_.outward(dyn, plus_.data(), nullptr, false, up);
  tip_.outward(dyn, minus_.data(), nullptr, false, down);
  Vec wd = inertial.wd, acc = inertial.acc;
  add(wd, up.wd, 0.25);
  add(wd, down.wd, -0.25);
  add(acc, up.acc, 0.25);
  add(acc, down.acc, -0.25);
  const auto & r = tip_.rotation();
  double f[30] = {}, n[30] = {};
  add_linear(in_axes(r, wd), in_axes(r, acc), f, n);
  add_quadratic(in_axes(r, up.w), 0.25, f, n);
  add_quadratic(in_axes(r, down.w), -0.25, f, n);
  for (std::size_t j = 0; j < n_; ++j) {  // J's column j in the tip's axes
    const Vec jv = in_axes(r, {jacobian_[j], jacobian_[n_ + j], jacobian_[2 * n_ + j]});
    const Vec jw = in_axes(r, {jacobian_[3 * n_ + j], jacobian_[4 * n_ + j],
        jacobian_[5 * n_ + j]});
    for (int c = 0; c < 10; ++c) {
      y[10 * j + c] = jv[0] * f[c] + jv[1] * f[10 + c] + jv[2] * f[20 + c] +
        jw[0] * n[c] + jw[1] * n[10 + c] + jw[2] * n[20 + c];
    }
  }
}

void PayloadEstimate::configure(const AdaptationSettings & settings)
{
  for (double g : settings.gamma) {
    if (!(std::isfinite(g) && g >= 0.0)) {
      throw std::invalid_argument("adaptive.gamma: every rate must be finite and >= 0, got " +
              std::to_string(g));
    }
  }
  if (!(std::isfinite(settings.mass_max) && settings.mass_max > 0.0)) {
    throw std::invalid_argument("adaptive.mass_max: expected > 0 kg, got " +
            std::to_string(settings.mass_max));
  }
  settings_ = settings;
  const auto & g = settings.gamma;
  gamma_ = {g[0], g[1], g[1], g[1], g[2], g[2], g[2], g[2], g[2], g[2]};
  reset();
}

void PayloadEstimate::reset() noexcept
{
  pi_.fill(0.0);
  project(pi_, settings_.mass_max);
  have_last_ = false;
}

void PayloadEstimate::step(double now, const double * y, const double * s, std::size_t n)
noexcept
{
  const double dt = have_last_ ? std::min(std::max(now - last_, 0.0), MAX_STEP) : 0.0;
  last_ = now;
  have_last_ = true;
  if (!(dt > 0.0)) {return;}
  std::array<double, 10> next = pi_;
  for (int c = 0; c < 10; ++c) {
    double ys = 0.0;
    for (std::size_t j = 0; j < n; ++j) {ys += y[10 * j + c] * s[j];}
    next[c] += gamma_[c] * ys * dt;
    if (!std::isfinite(next[c])) {  // a state refused this cycle: pi as it was, held
      have_last_ = false;
      return;
    }
  }
  project(next, settings_.mass_max);
  pi_ = next;
}

void PayloadEstimate::project(std::array<double, 10> & pi, double mass_max) noexcept
{
  const double half = 0.5 * (pi[4] + pi[7] + pi[9]);
  double j[4][4] = {{half - pi[4], -pi[5], -pi[6], pi[1]},
    {-pi[5], half - pi[7], -pi[8], pi[2]}, {-pi[6], -pi[8], half - pi[9], pi[3]},
    {pi[1], pi[2], pi[3], pi[0]}};
  double d[4][4], v[4][4];
  std::copy(&j[0][0], &j[0][0] + 16, &d[0][0]);
  symmetric_eigen(d, v);
  const double smallest = std::min({d[0][0], d[1][1], d[2][2], d[3][3]});
  if (smallest < EPS) {
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) {
        double sum = 0.0;
        for (int k = 0; k < 4; ++k) {sum += v[r][k] * std::max(d[k][k], EPS) * v[c][k];}
        j[r][c] = sum;
      }
    }
  }
  if (j[3][3] > mass_max) {
    const double scale = mass_max / j[3][3];
    for (auto & row : j) {
      for (double & x : row) {x *= scale;}
    }
  }
  const double trace = j[0][0] + j[1][1] + j[2][2];
  pi = {j[3][3], j[0][3], j[1][3], j[2][3], trace - j[0][0], -j[0][1], -j[0][2],
    trace - j[1][1], -j[1][2], trace - j[2][2]};
}

}  // namespace robodyn_controllers
