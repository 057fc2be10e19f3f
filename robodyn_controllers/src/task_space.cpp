// The task-space laws' terms (task_space.hpp): small Cholesky factorisations, in the order
// of robodyn_ros/control/laws/cartesian_kernel.py and operational_space.py.
#include "robodyn_controllers/task_space.hpp"

#include "robodyn_controllers/pose_follower.hpp"
#include "robodyn_controllers/symmetric_eigen.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace robodyn_controllers
{
namespace
{
// Lower Cholesky factor of the SPD a (n x n, row-major; its lower triangle read), in
// place, and the reciprocals of its diagonal into inv (n): the solves multiply by them
// (a division costs as much as a dozen multiplications).
void cholesky(double * a, std::size_t n, double * inv) noexcept
{
  for (std::size_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k) {d -= a[j * n + k] * a[j * n + k];}
    d = std::sqrt(std::max(d, 1e-300));
    a[j * n + j] = d;
    inv[j] = 1.0 / d;
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) {s -= a[i * n + k] * a[j * n + k];}
      a[i * n + j] = s * inv[j];
    }
  }
}

// b := A^-1 b with A = L L^T (cholesky, inv its diagonal's reciprocals), b n values.
void solve(const double * l, const double * inv, std::size_t n, double * b) noexcept
{
  for (std::size_t i = 0; i < n; ++i) {
    double s = b[i];
    for (std::size_t k = 0; k < i; ++k) {s -= l[i * n + k] * b[k];}
    b[i] = s * inv[i];
  }
  for (std::size_t ii = n; ii-- > 0; ) {
    double s = b[ii];
    for (std::size_t k = ii + 1; k < n; ++k) {s -= l[k * n + ii] * b[k];}
    b[ii] = s * inv[ii];
  }
}

// The six rows of b (6 x n, row-major) := (A^-1 b_r^T)^T with A = L L^T (cholesky): J M^-1
// from J. The six right-hand sides go through each step together, so that their sums are
// independent chains (one solve after another waits on each multiply-add in turn).
void solve_six(const double * l, const double * inv, std::size_t n, double * b) noexcept
{
  for (std::size_t i = 0; i < n; ++i) {
    double s[6];
    for (std::size_t r = 0; r < 6; ++r) {s[r] = b[r * n + i];}
    for (std::size_t k = 0; k < i; ++k) {
      const double lik = l[i * n + k];
      for (std::size_t r = 0; r < 6; ++r) {s[r] -= lik * b[r * n + k];}
    }
    for (std::size_t r = 0; r < 6; ++r) {b[r * n + i] = s[r] * inv[i];}
  }
  for (std::size_t ii = n; ii-- > 0; ) {
    double s[6];
    for (std::size_t r = 0; r < 6; ++r) {s[r] = b[r * n + ii];}
    for (std::size_t k = ii + 1; k < n; ++k) {
      const double lki = l[k * n + ii];
      for (std::size_t r = 0; r < 6; ++r) {s[r] -= lki * b[r * n + k];}
    }
    for (std::size_t r = 0; r < 6; ++r) {b[r * n + ii] = s[r] * inv[ii];}
  }
}

// The lower triangle of out = x y^T + d 1 (x, y: 6 x n row-major; out 6 x 6), row by row
// with the row's sums side by side.
void lower_product(const double * x, const double * y, std::size_t n, double d, double * out)
noexcept
{
  for (std::size_t a = 0; a < 6; ++a) {
    double s[6] = {};
    for (std::size_t i = 0; i < n; ++i) {
      const double xa = x[a * n + i];
      for (std::size_t b = 0; b <= a; ++b) {s[b] += xa * y[b * n + i];}
    }
    for (std::size_t b = 0; b <= a; ++b) {out[a * 6 + b] = s[b] + (a == b ? d : 0.0);}
  }
}

// (A^-1)_aa = |L^-1 e_a|^2 for A = L L^T (6 x 6): forward substitution from row a.
double inverse_diagonal(const double * l, const double * inv, std::size_t a) noexcept
{
  double x[6] = {};
  double sum = 0.0;
  for (std::size_t i = a; i < 6; ++i) {
    double s = i == a ? 1.0 : 0.0;
    for (std::size_t k = a; k < i; ++k) {s -= l[i * 6 + k] * x[k];}
    x[i] = s * inv[i];
    sum += x[i] * x[i];
  }
  return sum;
}
}  // namespace

void rotation_vector(const std::array<double, 9> & r, double * out) noexcept
{
  const double cos = std::min(std::max(0.5 * (r[0] + r[4] + r[8] - 1.0), -1.0), 1.0);
  const double theta = std::acos(cos);
  const double s0 = 0.5 * (r[7] - r[5]), s1 = 0.5 * (r[2] - r[6]), s2 = 0.5 * (r[3] - r[1]);
  if (theta < 1e-6) {
    out[0] = s0; out[1] = s1; out[2] = s2;
    return;
  }
  if (M_PI - theta > 1e-4) {
    const double k = theta / std::sin(theta);
    out[0] = k * s0; out[1] = k * s1; out[2] = k * s2;
    return;
  }
  // near pi: u from the symmetric part, (R + R^T) / 2 = cos 1 + (1 - cos) u u^T
  double best = -1.0;
  int col = 0;
  for (int c = 0; c < 3; ++c) {
    const double uu = (r[4 * c] - cos) / (1.0 - cos);
    if (uu > best) {best = uu; col = c;}
  }
  double norm = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double sym = 0.5 * (r[3 * k + col] + r[3 * col + k]) - (k == col ? cos : 0.0);
    out[k] = sym / (1.0 - cos);
    norm += out[k] * out[k];
  }
  const double sign = out[0] * s0 + out[1] * s1 + out[2] * s2 >= 0.0 ? 1.0 : -1.0;
  const double scale = sign * theta / std::sqrt(std::max(norm, 1e-300));
  for (int k = 0; k < 3; ++k) {out[k] *= scale;}
}

Manipulability manipulability(const double * j, std::size_t n) noexcept
{
  double jjt[6][6];
  for (std::size_t a = 0; a < 6; ++a) {
    for (std::size_t b = 0; b < 6; ++b) {
      double s = 0.0;
      for (std::size_t i = 0; i < n; ++i) {s += j[a * n + i] * j[b * n + i];}
      jjt[a][b] = s;
    }
  }
  symmetric_eigen<6>(jjt);
  double values[6];
  for (int k = 0; k < 6; ++k) {values[k] = std::max(jjt[k][k], 0.0);}
  std::sort(values, values + 6, [](double x, double y) {return x > y;});
  const std::size_t m = std::min<std::size_t>(n, 6);
  Manipulability out;
  out.measure = 1.0;
  for (std::size_t k = 0; k < m; ++k) {out.measure *= std::sqrt(values[k]);}
  out.smallest = m ? std::sqrt(values[m - 1]) : 0.0;
  return out;
}

void manipulability_text(const double * j, std::size_t n, char * text, std::size_t size)
noexcept
{
  if (j == nullptr) {
    std::snprintf(text, size, "off");
    return;
  }
  const Manipulability m = manipulability(j, n);
  std::snprintf(text, size, "%.4g (J's smallest singular value %.4f%s)", m.measure,
    m.smallest, m.smallest < PoseFollower::SIGMA_SLOW ?
    ": near a singularity, the task-space inverse damped, the torque within the limits" :
    "");
}

void TaskSpaceSpring::configure(std::size_t n)
{
  n_ = n;
  lm_.assign(n * n, 0.0);
  minv_jt_.assign(6 * n, 0.0);
  task_.assign(36, 0.0);
  jjt_.assign(36, 0.0);
  inv_.assign(std::max<std::size_t>(n, 6), 0.0);
}

void TaskSpaceSpring::add_torque(
  const double * j, const double * e_x, const double * xd_r, const double * qd,
  const double * mass, const double * posture, const double * k_x, double zeta, double mu,
  double * tau) noexcept
{
  const std::size_t n = n_;
  double * force = force_.data();
  double * unit = unit_.data();
  double * inv = inv_.data();
  std::copy(mass, mass + n * n, lm_.begin());
  cholesky(lm_.data(), n, inv);
  std::copy(j, j + 6 * n, minv_jt_.begin());
  solve_six(lm_.data(), inv, n, minv_jt_.data());
  // the lower triangles (cholesky reads no more)
  lower_product(j, minv_jt_.data(), n, mu * mu, task_.data());
  lower_product(j, j, n, mu * mu, jjt_.data());
  cholesky(task_.data(), 6, inv);
  for (std::size_t a = 0; a < 6; ++a) {  // Lambda_aa = e_a^T (J M^-1 J^T + mu^2)^-1 e_a
    const double lambda = inverse_diagonal(task_.data(), inv, a);
    const double d = 2.0 * zeta * std::sqrt(k_x[a] * std::max(lambda, 0.0));
    double xd = 0.0;
    for (std::size_t i = 0; i < n; ++i) {xd += j[a * n + i] * qd[i];}
    force[a] = k_x[a] * e_x[a] + d * (xd_r[a] - xd);
  }
  cholesky(jjt_.data(), 6, inv);
  for (std::size_t a = 0; a < 6; ++a) {  // (J J^T + mu^2)^-1 J posture
    double s = 0.0;
    for (std::size_t i = 0; i < n; ++i) {s += j[a * n + i] * posture[i];}
    unit[a] = s;
  }
  solve(jjt_.data(), inv, 6, unit);
  for (std::size_t i = 0; i < n; ++i) {
    double s = posture[i];
    for (std::size_t a = 0; a < 6; ++a) {s += j[a * n + i] * (force[a] - unit[a]);}
    tau[i] += s;
  }
}

void OperationalSpaceForce::configure(std::size_t n)
{
  n_ = n;
  lm_.assign(n * n, 0.0);
  minv_jt_.assign(6 * n, 0.0);
  task_.assign(36, 0.0);
  inv_.assign(std::max<std::size_t>(n, 6), 0.0);
}

void OperationalSpaceForce::add_torque(
  const double * j, const double * wanted, const double * mass, const double * posture,
  double damping, double * tau) noexcept
{
  const std::size_t n = n_;
  double * force = force_.data();
  double * inv = inv_.data();
  std::copy(mass, mass + n * n, lm_.begin());
  cholesky(lm_.data(), n, inv);
  std::copy(j, j + 6 * n, minv_jt_.begin());  // its rows: (M^-1 J^T)^T = J M^-1
  solve_six(lm_.data(), inv, n, minv_jt_.data());
  for (std::size_t a = 0; a < 6; ++a) {
    double moved = 0.0;  // (J M^-1 posture)_a
    for (std::size_t i = 0; i < n; ++i) {moved += minv_jt_[a * n + i] * posture[i];}
    force[a] = wanted[a] - moved;
  }
  lower_product(j, minv_jt_.data(), n, damping, task_.data());
  cholesky(task_.data(), 6, inv);
  solve(task_.data(), inv, 6, force);  // Lambda (wanted - J M^-1 posture)
  for (std::size_t i = 0; i < n; ++i) {
    double s = posture[i];
    for (std::size_t a = 0; a < 6; ++a) {s += j[a * n + i] * force[a];}
    tau[i] += s;
  }
}

}  // namespace robodyn_controllers
