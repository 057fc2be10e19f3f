// The chain tip's pose, Jacobian and velocity product (tip_kinematics.hpp).
#include "robodyn_controllers/tip_kinematics.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace robodyn_controllers
{
namespace
{
using vec3::Vec;
using vec3::add;
using vec3::cross;
}  // namespace

void TipKinematics::configure(
  std::size_t n, const std::array<double, 9> & tool_rotation, const Vec & tool_point)
{
  for (double x : tool_rotation) {
    if (!std::isfinite(x)) {throw std::invalid_argument("tool_rotation: not finite");}
  }
  for (double x : tool_point) {
    if (!std::isfinite(x)) {throw std::invalid_argument("tool_point: not finite");}
  }
  const auto & r = tool_rotation;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      const double dot = r[i] * r[j] + r[3 + i] * r[3 + j] + r[6 + i] * r[6 + j];
      if (std::abs(dot - (i == j ? 1.0 : 0.0)) > 1e-9) {
        throw std::invalid_argument(
                "tool_rotation: not a rotation (R^T R differs from 1 by " +
                std::to_string(std::abs(dot - (i == j ? 1.0 : 0.0))) + ")");
      }
    }
  }
  n_ = n;
  tool_r_ = tool_rotation;
  tool_p_ = tool_point;
  poses_.assign(12 * n, 0.0);
  for (auto * v : {&axes_, &origins_, &arms_}) {v->assign(3 * n, 0.0);}
}

void TipKinematics::at(const DhDynamics & dyn, const double * q) noexcept
{
  dyn.poses(q, poses_.data());
  Vec origin{0.0, 0.0, 0.0}, axis{0.0, 0.0, 1.0};
  for (std::size_t i = 0; i < n_; ++i) {
    const double * pose = poses_.data() + 12 * i;
    for (int k = 0; k < 3; ++k) {
      axes_[3 * i + k] = axis[k];
      origins_[3 * i + k] = origin[k];
      arms_[3 * i + k] = pose[9 + k] - origin[k];
    }
    axis = {pose[2], pose[5], pose[8]};
    origin = {pose[9], pose[10], pose[11]};
  }
  const double * rn = poses_.data() + 12 * (n_ - 1);
  for (int r = 0; r < 3; ++r) {
    tip_arm_[r] = rn[3 * r] * tool_p_[0] + rn[3 * r + 1] * tool_p_[1] +
      rn[3 * r + 2] * tool_p_[2];
    tip_[r] = origin[r] + tip_arm_[r];
    for (int c = 0; c < 3; ++c) {
      tip_r_[3 * r + c] = rn[3 * r] * tool_r_[c] + rn[3 * r + 1] * tool_r_[3 + c] +
        rn[3 * r + 2] * tool_r_[6 + c];
    }
  }
}

void TipKinematics::outward(
  const DhDynamics & dyn, const double * x, const double * y, bool gravity, Motion & m)
const noexcept
{
  m = Motion{};
  if (gravity) {add(m.acc, dyn.gravity_vector(), -1.0);}
  for (std::size_t i = 0; i < n_; ++i) {
    const Vec z{axes_[3 * i], axes_[3 * i + 1], axes_[3 * i + 2]};
    const Vec r{arms_[3 * i], arms_[3 * i + 1], arms_[3 * i + 2]};
    const double xi = x ? x[i] : 0.0, yi = y ? y[i] : 0.0;
    if (dyn.prismatic(i)) {
      add(m.acc, cross(m.w, z), 2.0 * xi);
      add(m.acc, z, yi);
    } else {
      add(m.wd, z, yi);
      add(m.wd, cross(m.w, z), xi);
      add(m.w, z, xi);
    }
    add(m.acc, cross(m.wd, r));
    add(m.acc, cross(m.w, cross(m.w, r)));
  }
  add(m.acc, cross(m.wd, tip_arm_));
  add(m.acc, cross(m.w, cross(m.w, tip_arm_)));
}

void TipKinematics::jacobian(const DhDynamics & dyn, double * j) const noexcept
{
  for (std::size_t i = 0; i < n_; ++i) {
    const Vec z{axes_[3 * i], axes_[3 * i + 1], axes_[3 * i + 2]};
    const Vec arm{tip_[0] - origins_[3 * i], tip_[1] - origins_[3 * i + 1],
      tip_[2] - origins_[3 * i + 2]};
    const bool slides = dyn.prismatic(i);
    const Vec lin = slides ? z : cross(z, arm);
    for (int r = 0; r < 3; ++r) {
      j[r * n_ + i] = lin[r];
      j[(3 + r) * n_ + i] = slides ? 0.0 : z[r];
    }
  }
}

void TipKinematics::bias(const DhDynamics & dyn, const double * qd, double * out)
const noexcept
{
  Motion m;
  outward(dyn, qd, nullptr, false, m);
  for (int r = 0; r < 3; ++r) {
    out[r] = m.acc[r];
    out[3 + r] = m.wd[r];
  }
}

}  // namespace robodyn_controllers
