// The pose follower (pose_follower.hpp): robodyn_ros' control/reference/pose_target.py, in
// the same order of operations.
#include "robodyn_controllers/pose_follower.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "robodyn_controllers/symmetric_eigen.hpp"
#include "robodyn_controllers/task_space.hpp"

namespace robodyn_controllers
{
namespace
{
constexpr double QUATERNION_SLACK = 0.01;

// y := (J J^T + mu^2 1)^-1 b for J (6 x n, row-major), by Cholesky of the 6x6.
void solve_damped(const double * j, std::size_t n, double mu, const double * b, double * y)
noexcept
{
  std::array<double, 36> a{};
  for (int r = 0; r < 6; ++r) {
    for (int c = 0; c <= r; ++c) {
      double s = r == c ? mu * mu : 0.0;
      for (std::size_t k = 0; k < n; ++k) {s += j[r * n + k] * j[c * n + k];}
      a[6 * r + c] = s;
    }
  }
  for (int c = 0; c < 6; ++c) {  // lower factor in place
    double d = a[6 * c + c];
    for (int k = 0; k < c; ++k) {d -= a[6 * c + k] * a[6 * c + k];}
    d = std::sqrt(std::max(d, 1e-300));
    a[6 * c + c] = d;
    for (int r = c + 1; r < 6; ++r) {
      double s = a[6 * r + c];
      for (int k = 0; k < c; ++k) {s -= a[6 * r + k] * a[6 * c + k];}
      a[6 * r + c] = s / d;
    }
  }
  for (int r = 0; r < 6; ++r) {
    double s = b[r];
    for (int k = 0; k < r; ++k) {s -= a[6 * r + k] * y[k];}
    y[r] = s / a[6 * r + r];
  }
  for (int r = 5; r >= 0; --r) {
    double s = y[r];
    for (int k = r + 1; k < 6; ++k) {s -= a[6 * k + r] * y[k];}
    y[r] = s / a[6 * r + r];
  }
}

// The rotation of rotation vector rv [rad] (Rodrigues), row-major.
std::array<double, 9> rotation_of(const double * rv) noexcept
{
  const double angle = std::sqrt(rv[0] * rv[0] + rv[1] * rv[1] + rv[2] * rv[2]);
  std::array<double, 9> r{1, 0, 0, 0, 1, 0, 0, 0, 1};
  if (angle < 1e-12) {return r;}
  const double k[3] = {rv[0] / angle, rv[1] / angle, rv[2] / angle};
  const double skew[9] = {0, -k[2], k[1], k[2], 0, -k[0], -k[1], k[0], 0};
  const double s = std::sin(angle), c = 1.0 - std::cos(angle);
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      double sq = 0.0;
      for (int m = 0; m < 3; ++m) {sq += skew[3 * a + m] * skew[3 * m + b];}
      r[3 * a + b] += s * skew[3 * a + b] + c * sq;
    }
  }
  return r;
}

// a b for row-major 3x3 matrices.
std::array<double, 9> times(const std::array<double, 9> & a, const std::array<double, 9> & b)
noexcept
{
  std::array<double, 9> out{};
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      for (int k = 0; k < 3; ++k) {out[3 * r + c] += a[3 * r + k] * b[3 * k + c];}
    }
  }
  return out;
}

// a b^T for row-major 3x3 rotations a, b.
std::array<double, 9> times_transpose(
  const std::array<double, 9> & a, const std::array<double, 9> & b) noexcept
{
  std::array<double, 9> out{};
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      for (int k = 0; k < 3; ++k) {out[3 * r + c] += a[3 * r + k] * b[3 * c + k];}
    }
  }
  return out;
}
}  // namespace

TargetCheck check_pose_target(
  const double * position, const double * quaternion,
  const std::array<double, 9> & base_rotation, const std::array<double, 3> & base_point,
  const std::array<double, 6> & box, PoseTarget & out) noexcept
{
  double norm = 0.0;
  for (int k = 0; k < 4; ++k) {
    if (!std::isfinite(quaternion[k]) || (k < 3 && !std::isfinite(position[k]))) {
      return TargetCheck::NOT_FINITE;
    }
    norm += quaternion[k] * quaternion[k];
  }
  norm = std::sqrt(norm);
  if (std::abs(norm - 1.0) > QUATERNION_SLACK) {return TargetCheck::NOT_UNIT;}
  const double x = quaternion[0] / norm, y = quaternion[1] / norm, z = quaternion[2] / norm,
    w = quaternion[3] / norm;
  const std::array<double, 9> r{
    1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
    2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
    2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)};
  std::array<double, 3> inside{};
  out.clamped = false;
  for (int k = 0; k < 3; ++k) {
    inside[k] = std::min(std::max(position[k], box[k]), box[k + 3]);
    out.clamped = out.clamped || inside[k] != position[k];
  }
  for (int a = 0; a < 3; ++a) {  // frame 0: B^T (p - b), B^T R
    out.position[a] = 0.0;
    for (int k = 0; k < 3; ++k) {
      out.position[a] += base_rotation[3 * k + a] * (inside[k] - base_point[k]);
    }
    for (int c = 0; c < 3; ++c) {
      double s = 0.0;
      for (int k = 0; k < 3; ++k) {s += base_rotation[3 * k + a] * r[3 * k + c];}
      out.rotation[3 * a + c] = s;
    }
  }
  return out.clamped ? TargetCheck::CLAMPED : TargetCheck::OK;
}

void PoseFollower::configure(
  std::size_t n, const std::vector<double> & lower, const std::vector<double> & upper,
  const std::vector<double> & velocity, const std::vector<double> & acceleration,
  double speed, double rotation_speed, double period,
  const std::array<double, 9> & tool_rotation, const std::array<double, 3> & tool_point,
  double torque_rate)
{
  if (!(speed > 0.0) || !(rotation_speed > 0.0) || !(period > 0.0) || lower.size() != n ||
    upper.size() != n || velocity.size() != n || acceleration.size() != n)
  {
    throw std::invalid_argument("pose follower: speeds and period must be > 0, limits n each");
  }
  n_ = n;
  speed_ = speed;
  rotation_speed_ = rotation_speed;
  h_ = period;
  torque_rate_ = torque_rate;
  tip_.configure(n, tool_rotation, tool_point);
  lower_ = lower;
  upper_ = upper;
  vmax_.resize(n);
  amax_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    vmax_[i] = LIMIT_SHARE * (std::isfinite(velocity[i]) ? velocity[i] : FALLBACK_SPEED);
    amax_[i] = LIMIT_SHARE *
      (std::isfinite(acceleration[i]) ? acceleration[i] : FALLBACK_ACCELERATION);
  }
  posture_.assign(n, 0.0);
  out_.assign(3 * n, 0.0);
  jac_.assign(6 * n, 0.0);
  wanted_.assign(n, 0.0);
  rest_.assign(n, 0.0);
  jerk_.assign(n, std::numeric_limits<double>::infinity());
  started_ = false;
}

void PoseFollower::start(const DhDynamics & dyn, const double * q, const double * qd, double t)
noexcept
{
  for (std::size_t i = 0; i < n_; ++i) {
    const double span = upper_[i] - lower_[i];
    out_[i] = std::min(std::max(q[i], lower_[i]), upper_[i]);
    out_[n_ + i] = qd[i];
    out_[2 * n_ + i] = 0.0;
    posture_[i] = std::min(std::max(out_[i], lower_[i] + 0.2 * span), upper_[i] - 0.2 * span);
  }
  tip_.at(dyn, out_.data());
  p_c_ = tip_.point();
  r_c_ = tip_.rotation();
  target_.position = p_c_;
  target_.rotation = r_c_;
  target_.clamped = false;
  v_c_ = {};
  w_c_ = {};
  steps_ = 0;
  slowed_ = false;
  t_ = t;
  started_ = true;
}

const double * PoseFollower::advance(DhDynamics & dyn, double t) noexcept
{
  const double due = std::floor((t - t_) / h_ + 1e-9);
  const int steps = std::isfinite(due) ? static_cast<int>(std::min<double>(MAX_STEPS, due)) : 0;
  for (int k = 0; k < steps; ++k) {step(dyn);}
  if (steps > 0) {t_ = std::max(t_ + steps * h_, t - h_);}
  return out_.data();
}

namespace
{

// The next velocity (3) of a point `error` away from where it should stop, moving at
// `velocity`: towards it at most at `speed`, at most sqrt(2 a |error|) (it stops there) and
// |error| / h (no overshoot in one step), reached at an acceleration of at most
// a = speed / RISE_TIME (pose_target.py's _approach).
void approach(const double * error, double * velocity, double speed, double h) noexcept
{
  const double accel = speed / PoseFollower::RISE_TIME;
  const double dist = std::sqrt(error[0] * error[0] + error[1] * error[1] + error[2] * error[2]);
  const double size = dist < 1e-12 ? 0.0 :
    std::min(std::min(speed, std::sqrt(2.0 * accel * dist)), dist / h) / dist;
  double change[3], norm = 0.0;
  for (int k = 0; k < 3; ++k) {
    change[k] = error[k] * size - velocity[k];
    norm += change[k] * change[k];
  }
  norm = std::sqrt(norm);
  const double scale = norm > accel * h ? accel * h / norm : 1.0;
  for (int k = 0; k < 3; ++k) {velocity[k] += change[k] * scale;}
}

// The smallest of J's min(6, n) singular values (J: 6 x n row-major): from J J^T's
// eigenvalues (symmetric_eigen.hpp; pose_target.py: eigvalsh).
double smallest_singular_value(const double * j, std::size_t n) noexcept
{
  double a[6][6];
  for (int r = 0; r < 6; ++r) {
    for (int c = 0; c < 6; ++c) {
      a[r][c] = 0.0;
      for (std::size_t i = 0; i < n; ++i) {a[r][c] += j[r * n + i] * j[c * n + i];}
    }
  }
  symmetric_eigen(a);
  // the eigenvalues ascending; an arm of fewer than six joints has 6 - n zero ones by its
  // structure, not by a singularity: the smallest of the other min(6, n)
  double values[6];
  for (int p = 0; p < 6; ++p) {values[p] = a[p][p];}
  std::sort(values, values + 6);
  const std::size_t skip = 6 - std::min<std::size_t>(6, n);
  return std::sqrt(std::max(values[skip], 0.0));
}

// Scale `v` (3, in place) to a norm of at most `size`.
void cap(double * v, double size) noexcept
{
  const double norm = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (norm > size) {
    for (int k = 0; k < 3; ++k) {v[k] *= size / norm;}
  }
}

}  // namespace

// The commanded pose one step towards the target, its velocity reaching the target's
// direction at a bounded acceleration; xd (6) that velocity.
void PoseFollower::command(double * xd) noexcept
{
  double dp[3], rv[3], turn[3];
  for (int k = 0; k < 3; ++k) {dp[k] = target_.position[k] - p_c_[k];}
  approach(dp, v_c_.data(), speed_, h_);
  rotation_vector(times_transpose(target_.rotation, r_c_), rv);
  approach(rv, w_c_.data(), rotation_speed_, h_);
  for (int k = 0; k < 3; ++k) {
    p_c_[k] += v_c_[k] * h_;
    turn[k] = w_c_[k] * h_;
    xd[k] = v_c_[k];
    xd[3 + k] = w_c_[k];
  }
  r_c_ = times(rotation_of(turn), r_c_);
}

void PoseFollower::step(DhDynamics & dyn) noexcept
{
  double xd[6], e[6], y[6], b[6];
  command(xd);
  tip_.at(dyn, out_.data());
  tip_.jacobian(dyn, jac_.data());
  double dist = 0.0;
  for (int k = 0; k < 3; ++k) {
    e[k] = p_c_[k] - tip_.point()[k];
    dist += e[k] * e[k];
  }
  dist = std::sqrt(dist);
  if (dist > LEAD) {  // the commanded pose waits for the reference (a target out of reach),
    for (int k = 0; k < 3; ++k) {  // at rest there: no push beyond the correction's
      e[k] *= LEAD / dist;
      p_c_[k] = tip_.point()[k] + e[k];
      v_c_[k] = 0.0;
      xd[k] = 0.0;
    }
  }
  rotation_vector(times_transpose(r_c_, tip_.rotation()), e + 3);
  const double angle = std::sqrt(e[3] * e[3] + e[4] * e[4] + e[5] * e[5]);
  if (angle > ROTATION_LEAD) {
    for (int k = 3; k < 6; ++k) {
      e[k] *= ROTATION_LEAD / angle;
      w_c_[k - 3] = 0.0;
      xd[k] = 0.0;
    }
    r_c_ = times(rotation_of(e + 3), tip_.rotation());
  }
  for (int r = 0; r < 6; ++r) {b[r] = IK_RATE * e[r];}
  cap(b, speed_);  // the correction at most the commanded pose's own speeds
  cap(b + 3, rotation_speed_);
  for (int r = 0; r < 6; ++r) {b[r] += xd[r];}
  solve_damped(jac_.data(), n_, MU, b, y);
  const double sigma = smallest_singular_value(jac_.data(), n_);
  slowed_ = sigma < SIGMA_SLOW;
  const double slow = std::min(1.0, sigma / SIGMA_SLOW);
  for (std::size_t i = 0; i < n_; ++i) {
    wanted_[i] = 0.0;
    for (int r = 0; r < 6; ++r) {wanted_[i] += jac_[r * n_ + i] * y[r];}
    wanted_[i] *= slow;
    rest_[i] = POSTURE_RATE * (posture_[i] - out_[i]);
  }
  for (int r = 0; r < 6; ++r) {  // b := J rest, then y := (J J^T + mu^2)^-1 b
    b[r] = 0.0;
    for (std::size_t i = 0; i < n_; ++i) {b[r] += jac_[r * n_ + i] * rest_[i];}
  }
  solve_damped(jac_.data(), n_, NULL_MU, b, y);
  for (std::size_t i = 0; i < n_; ++i) {
    double back = 0.0;
    for (int r = 0; r < 6; ++r) {back += jac_[r * n_ + i] * y[r];}
    wanted_[i] += rest_[i] - back;
  }
  move(dyn, wanted_.data());
}

// The step towards joint velocity `wanted` the limits allow: scaled into vmax (one
// factor), capped where braking must begin before a position limit, followed at a bounded
// acceleration whose change is bounded by the jerk (pose_target.py's _move).
void PoseFollower::move(DhDynamics & dyn, double * wanted) noexcept
{
  double * q = out_.data();
  double * qd = q + n_;
  double * qdd = qd + n_;
  if (steps_ % INERTIA_EVERY == 0 && std::isfinite(torque_rate_)) {
    dyn.mass_diagonal(q, jerk_.data());
    for (std::size_t i = 0; i < n_; ++i) {
      jerk_[i] = JERK_SHARE * torque_rate_ / std::max(jerk_[i], 1e-9);
    }
  }
  ++steps_;
  double ratio = 0.0;
  for (std::size_t i = 0; i < n_; ++i) {ratio = std::max(ratio, std::abs(wanted[i]) / vmax_[i]);}
  for (std::size_t i = 0; ratio > 1.0 && i < n_; ++i) {wanted[i] /= ratio;}
  for (std::size_t i = 0; i < n_; ++i) {
    // braking at half amax, from where the deceleration has had time to ramp up
    const double brake = 0.5 * amax_[i];
    const double speed = std::abs(qd[i]);
    const double lag = speed * std::min(brake / jerk_[i], 1.0) + speed * h_;
    const double up = std::sqrt(2.0 * brake * std::max(upper_[i] - q[i] - lag, 0.0));
    const double down = std::sqrt(2.0 * brake * std::max(q[i] - lower_[i] - lag, 0.0));
    const double error = std::min(std::max(wanted[i], -down), up) - qd[i];
    const double size = std::min(std::min(std::abs(error) / VELOCITY_TIME, amax_[i]),
        std::sqrt(2.0 * jerk_[i] * std::abs(error)));
    const double aim = (error > 0.0) - (error < 0.0);
    const double step = jerk_[i] * h_;
    const double a = qdd[i] + std::min(std::max(aim * size - qdd[i], -step), step);
    const double v = qd[i] + a * h_;
    const double x = q[i] + v * h_;
    if (x < lower_[i] || x > upper_[i]) {  // only where braking came too late
      qdd[i] = -qd[i] / h_;
      qd[i] = 0.0;
    } else {
      qdd[i] = a;
      qd[i] = v;
    }
    q[i] = std::min(std::max(x, lower_[i]), upper_[i]);
  }
}

}  // namespace robodyn_controllers
