// A C entry point to DhDynamics, so that tests (Python's ctypes) and benchmarks feed the
// controller's own dynamics the states they feed robodyn_ros and Pinocchio.
#include <algorithm>
#include <array>
#include <exception>
#include <limits>
#include <vector>

#include "robodyn_controllers/dh_dynamics.hpp"
#include "robodyn_controllers/gain_blend.hpp"
#include "robodyn_controllers/joint_laws.hpp"
#include "robodyn_controllers/task_laws.hpp"
#include "robodyn_controllers/momentum_observer.hpp"
#include "robodyn_controllers/payload_adaptation.hpp"
#include "robodyn_controllers/pose_follower.hpp"
#include "robodyn_controllers/task_space.hpp"
#include "robodyn_controllers/tip_kinematics.hpp"
#include "robodyn_controllers/tool_wrench.hpp"
#include "robodyn_controllers/torque_safety.hpp"
#include "robodyn_controllers/wrench_feed.hpp"

namespace
{
constexpr int ROW = 19;  // a alpha d theta0 beta prismatic mass com(3) inertia(6) Fv Fc eps

std::vector<robodyn_controllers::DhLink> unpack(int n, const double * rows)
{
  std::vector<robodyn_controllers::DhLink> links(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const double * r = rows + ROW * i;
    auto & l = links[static_cast<std::size_t>(i)];
    l.a = r[0]; l.alpha = r[1]; l.d = r[2]; l.theta0 = r[3]; l.beta = r[4];
    l.prismatic = r[5] > 0.5; l.mass = r[6];
    l.com = {r[7], r[8], r[9]};
    l.inertia = {r[10], r[11], r[12], r[13], r[14], r[15]};
    l.viscous = r[16]; l.coulomb = r[17]; l.smoothing = r[18];
  }
  return links;
}
// The laws' settings of the C entries: include_gravity, include_friction, feedforward_pd,
// inertia_feedforward (0 or 1), velocity_lag [s]; with `tool` (or nullptr) the tip's axes
// (row-major, 9) then its origin (3) in DH frame n.
robodyn_controllers::LawSettings law_settings(const double * settings, const double * tool)
{
  robodyn_controllers::LawSettings s{settings[0] > 0.5, settings[1] > 0.5,
    settings[2] > 0.5, settings[3] > 0.5, settings[4]};
  if (tool != nullptr) {
    std::copy(tool, tool + 9, s.tool_rotation.begin());
    s.tool_point = {tool[9], tool[10], tool[11]};
  }
  return s;
}

// dyn from the rows and law for n joints with settings s; false when either is refused.
bool configured(
  robodyn_controllers::DhDynamics & dyn, robodyn_controllers::JointLaw & law, int n,
  const double * rows, const double * gravity, const robodyn_controllers::LawSettings & s)
{
  try {
    dyn.configure(unpack(n, rows), {gravity[0], gravity[1], gravity[2]});
    law.configure(static_cast<std::size_t>(n), s);
  } catch (const std::exception &) {
    return false;
  }
  return true;
}

// The law's torque of sample k (row-major count x n arrays).
void law_sample(
  robodyn_controllers::JointLaw & law, robodyn_controllers::DhDynamics & dyn,
  const robodyn_controllers::LawSettings & s, int n, int k, const double * q,
  const double * qd, const double * q_ref, const double * qd_ref, const double * qdd_ref,
  const double * kp, const double * kd, double * tau, const double * wrench = nullptr)
{
  const int o = k * n;
  law.torque(dyn, s, {q + o, qd + o, q_ref + o, qd_ref + o, qdd_ref + o, kp + o, kd + o,
      wrench == nullptr ? nullptr : wrench + 6 * k}, tau + o);
}
}  // namespace

extern "C" {

// tau = M(q) qdd + C(q, qd) qd + g(q) [+ friction(qd) when `friction` != 0] for `count`
// states (row-major count x n arrays). Returns 0, or 1 when the rows are refused.
int robodyn_inverse_dynamics(
  int n, const double * rows, const double * gravity, int count, const double * q,
  const double * qd, const double * qdd, int friction, double * tau)
{
  try {
    robodyn_controllers::DhDynamics dyn;
    dyn.configure(unpack(n, rows), {gravity[0], gravity[1], gravity[2]});
    for (int k = 0; k < count; ++k) {
      const int o = k * n;
      dyn.inverse_dynamics(q + o, qd + o, qdd + o, tau + o);
      if (friction) {dyn.add_friction(qd + o, tau + o);}
    }
    return 0;
  } catch (const std::exception &) {
    return 1;
  }
}

// M(q) (n x n row-major, DhDynamics::mass_matrix) for `count` states into m (count x n x
// n). Returns 0, or 1 when the rows are refused.
int robodyn_mass_matrix(int n, const double * rows, int count, const double * q, double * m)
{
  try {
    robodyn_controllers::DhDynamics dyn;
    dyn.configure(unpack(n, rows), {0.0, 0.0, -9.81});
    for (int k = 0; k < count; ++k) {dyn.mass_matrix(q + k * n, m + k * n * n);}
    return 0;
  } catch (const std::exception &) {
    return 1;
  }
}

// The controller's law `mode` (joint_laws.hpp) over `count` states: per state k (row-major
// count x n arrays) tau = the law at q, qd and the reference q_ref, qd_ref, qdd_ref with
// gains kp, kd (count x n too: gains may change from one state to the next). `settings`:
// include_gravity, include_friction, feedforward_pd, inertia_feedforward (0 or 1) and
// velocity_lag [s]. Returns 0, 1 when the rows are refused, 2 for a mode no law has.
int robodyn_joint_law(
  int n, const double * rows, const double * gravity, const char * mode,
  const double * settings, int count, const double * q, const double * qd,
  const double * q_ref, const double * qd_ref, const double * qdd_ref, const double * kp,
  const double * kd, double * tau)
{
  robodyn_controllers::DhDynamics dyn;
  try {
    dyn.configure(unpack(n, rows), {gravity[0], gravity[1], gravity[2]});
  } catch (const std::exception &) {
    return 1;
  }
  auto law = robodyn_controllers::make_law(mode);
  if (!law) {return 2;}
  law->configure(static_cast<std::size_t>(n));
  const auto s = law_settings(settings, nullptr);
  for (int k = 0; k < count; ++k) {
    law_sample(*law, dyn, s, n, k, q, qd, q_ref, qd_ref, qdd_ref, kp, kd, tau);
  }
  return 0;
}

// The momentum observer over `count` samples (rows of q, qd and tau, count x n; stamps
// [s]): r row k = the estimate after sample k (robodyn_ros.dynamics.momentum_observer,
// same sequences). Returns 0, 1 when the rows or the settings are refused, 2 on a
// non-finite sample.
int robodyn_momentum_observer(
  int n, const double * rows, const double * gravity, double gain, double max_step,
  int count, const double * stamps, const double * q, const double * qd, const double * tau,
  double * r)
{
  robodyn_controllers::DhDynamics dyn;
  robodyn_controllers::MomentumObserver observer;
  try {
    dyn.configure(unpack(n, rows), {gravity[0], gravity[1], gravity[2]});
    observer.configure(static_cast<std::size_t>(n), gain, max_step);
  } catch (const std::exception &) {
    return 1;
  }
  for (int k = 0; k < count; ++k) {
    const int o = k * n;
    if (!observer.update(dyn, stamps[k], q + o, qd + o, tau + o)) {return 2;}
    std::copy(observer.residual(), observer.residual() + n, r + o);
  }
  return 0;
}

// The tool wrench for `count` states (rows of q and tau_ext, count x n): wrench row k (6)
// and condition[k] (robodyn_ros.dynamics.contact_wrench.tool_wrench, same states). Returns
// 0, or 1 when the rows, the base rotation or the tool point are refused.
int robodyn_tool_wrench(
  int n, const double * rows, const double * base_rotation, const double * tool_point,
  int count, const double * q, const double * tau_ext, double * wrench, double * condition)
{
  robodyn_controllers::DhDynamics dyn;
  robodyn_controllers::ToolWrenchEstimate estimate;
  try {
    dyn.configure(unpack(n, rows), {0.0, 0.0, -9.81});
    std::array<double, 9> base{};
    std::copy(base_rotation, base_rotation + 9, base.begin());
    estimate.configure(static_cast<std::size_t>(n), base,
      {tool_point[0], tool_point[1], tool_point[2]});
  } catch (const std::exception &) {
    return 1;
  }
  for (int k = 0; k < count; ++k) {
    condition[k] = estimate.estimate(dyn, q + k * n, tau_ext + k * n, wrench + 6 * k);
  }
  return 0;
}

// The controller's safety arithmetic over a sequence (robodyn_ros' tests feed the Python
// supervisor's kernels the same one): for each of `count` cycles k, target row k (count x
// n), the time since the previous cycle elapsed[k] [s] and the effort limits row k (limits
// may change between cycles), out row k = limit_torque(target, limit, rate_step(max_rate,
// elapsed[k], period)) from `last` (n, updated in place). flags[k]: 1 rate limited, 2
// clamped, 4 non-finite, as robodyn_ros.control.safety.kernels.
void robodyn_limit_torque(
  int n, int count, const double * target, const double * limit, const double * elapsed,
  double max_rate, double period, double * last, double * out, int * flags)
{
  for (int k = 0; k < count; ++k) {
    robodyn_controllers::LimitCounts counts;
    const double step = robodyn_controllers::rate_step(max_rate, elapsed[k], period);
    const bool finite = robodyn_controllers::limit_torque(
      target + k * n, limit + k * n, step, static_cast<std::size_t>(n), last, out + k * n,
      counts);
    flags[k] = (counts.rate_limited ? 1 : 0) | (counts.clamped ? 2 : 0) | (finite ? 0 : 4);
  }
}

// The derived position hold's bandwidth for each of n joints [rad/s]: w[j] =
// hold_bandwidth(effort[j], inertia[j], latency) (robodyn_ros' hold_bandwidths).
void robodyn_hold_bandwidths(
  int n, const double * effort, const double * inertia, double latency, double * w)
{
  for (int j = 0; j < n; ++j) {
    w[j] = robodyn_controllers::hold_bandwidth(effort[j], inertia[j], latency);
  }
}

// The hold watch (torque_safety.hpp: arm_hold_watch at the start velocity qd0, then
// watch_hold) over `count` states (rows of qd, count x n) at times t[k] [s], from the
// bandwidths w0: w after each state (count x n) and the joint that made them halve (-1:
// none), for the same sequences as robodyn_ros' PositionHold.watch.
void robodyn_watch_hold(
  int n, int count, const double * qd0, const double * guard, const double * w0,
  const double * qd, const double * t, double * w, int * joint)
{
  const auto size = static_cast<std::size_t>(n);
  std::vector<double> bands(w0, w0 + n), runaway(size);
  robodyn_controllers::arm_hold_watch(size, qd0, guard, runaway.data());
  double settle_until = -std::numeric_limits<double>::infinity();
  int softenings = 0;
  for (int k = 0; k < count; ++k) {
    joint[k] = robodyn_controllers::watch_hold(size, qd + k * n, guard, t[k], bands.data(),
      runaway.data(), settle_until, softenings);
    std::copy(bands.begin(), bands.end(), w + k * n);
  }
}

// The sample-th configuration spread over the n joints' [lower, upper] (spread_value:
// where the derived acceleration limit looks for the largest M_jj).
void robodyn_spread_configuration(
  int n, int sample, const double * lower, const double * upper, double * q)
{
  for (int j = 0; j < n; ++j) {
    q[j] = robodyn_controllers::spread_value(sample, static_cast<std::size_t>(j), lower[j],
      upper[j]);
  }
}

// The state checks over a sequence of `count` states (rows of q and qd, count x n), each
// elapsed[k] [s] after the previous: jump[k] = position_jump against the last accepted
// state (-1: none; a jumping state is not accepted), frozen[k] = 1 when frozen_state says
// the stream is frozen (robodyn_ros.control.safety.kernels, same sequences).
void robodyn_state_checks(
  int n, int count, const double * q, const double * qd, const double * velocity,
  const double * elapsed, double frozen_seconds, int * jump, int * frozen)
{
  const auto size = static_cast<std::size_t>(n);
  std::vector<double> last_q(q, q + n), last_qd(qd, qd + n);
  double since = 0.0, frozen_for = 0.0;
  for (int k = 0; k < count; ++k) {
    const double * qk = q + k * n;
    const double * qdk = qd + k * n;
    since += std::max(elapsed[k], 0.0);
    jump[k] = robodyn_controllers::position_jump(qk, last_q.data(), velocity, nullptr, size,
      since, robodyn_controllers::JUMP_TOLERANCE);
    frozen[k] = 0;
    if (jump[k] >= 0) {continue;}
    bool same = true;
    for (int j = 0; j < n; ++j) {same = same && qk[j] == last_q[j] && qdk[j] == last_qd[j];}
    frozen[k] = robodyn_controllers::frozen_state(same, qdk, size, elapsed[k], frozen_for,
      frozen_seconds);
    std::copy(qk, qk + n, last_q.begin());
    std::copy(qdk, qdk + n, last_qd.begin());
    since = 0.0;
  }
}

// The gain blend (gain_blend.hpp) over `count` steps at times t[k] [s] from the gains kp0,
// kd0 (n each): before step k, when requested[k] != 0, the request kp_req[k], kd_req[k]
// (rows of count x n); kp[k], kd[k] the gains after it (robodyn_ros' GainBlend, the same
// sequences).
void robodyn_gain_blend(
  int n, int count, const double * kp0, const double * kd0, const double * t,
  double duration, const int * requested, const double * kp_req, const double * kd_req,
  double * kp, double * kd)
{
  const auto size = static_cast<std::size_t>(n);
  robodyn_controllers::GainBlend blend;
  blend.configure(size);
  std::vector<double> p(kp0, kp0 + n), d(kd0, kd0 + n);
  for (int k = 0; k < count; ++k) {
    if (requested[k] != 0) {
      blend.request(std::vector<double>(kp_req + k * n, kp_req + (k + 1) * n),
        std::vector<double>(kd_req + k * n, kd_req + (k + 1) * n));
    }
    blend.step(t[k], p.data(), d.data(), duration);
    std::copy(p.begin(), p.end(), kp + k * n);
    std::copy(d.begin(), d.end(), kd + k * n);
  }
}

// The payload's Slotine-Li regressor (payload_adaptation.hpp) for `count` states (rows of
// q, qd, v, a, count x n): y row k = Y_p (n x 10, row-major). tool: the tip link's axes
// (row-major 3x3) then its origin in DH frame n [m]. Returns 0, or 1 when refused.
int robodyn_payload_regressor(
  int n, const double * rows, const double * gravity, const double * tool, int count,
  const double * q, const double * qd, const double * v, const double * a, double * y)
{
  robodyn_controllers::DhDynamics dyn;
  robodyn_controllers::PayloadRegressor regressor;
  try {
    dyn.configure(unpack(n, rows), {gravity[0], gravity[1], gravity[2]});
    std::array<double, 9> rotation{};
    std::copy(tool, tool + 9, rotation.begin());
    regressor.configure(static_cast<std::size_t>(n), rotation, {tool[9], tool[10], tool[11]});
  } catch (const std::exception &) {
    return 1;
  }
  for (int k = 0; k < count; ++k) {
    const int o = k * n;
    regressor.slotine_li(dyn, q + o, qd + o, v + o, a + o, y + 10 * o);
  }
  return 0;
}

// The adaptive law over a sequence, its estimate carried from state to state: per state k
// as robodyn_joint_law, then adapt(stamps[k], allowed[k] > 0.5); pi row k (10) the estimate
// after it. tool as robodyn_payload_regressor; adaptation: gamma (3), mass_max [kg],
// rest_speed. Returns 0, or 1 when the rows or the settings are refused.
int robodyn_adaptive_law(
  int n, const double * rows, const double * gravity, const double * settings,
  const double * tool, const double * adaptation, int count, const double * stamps,
  const double * allowed, const double * q, const double * qd, const double * q_ref,
  const double * qd_ref, const double * qdd_ref, const double * kp, const double * kd,
  double * tau, double * pi)
{
  robodyn_controllers::DhDynamics dyn;
  auto law = robodyn_controllers::make_law("adaptive");
  auto s = law_settings(settings, tool);
  s.adaptation.gamma = {adaptation[0], adaptation[1], adaptation[2]};
  s.adaptation.mass_max = adaptation[3];
  s.adaptation.rest_speed = adaptation[4];
  if (!configured(dyn, *law, n, rows, gravity, s)) {return 1;}
  for (int k = 0; k < count; ++k) {
    law_sample(*law, dyn, s, n, k, q, qd, q_ref, qd_ref, qdd_ref, kp, kd, tau);
    law->adapt(stamps[k], allowed[k] > 0.5);
    std::copy(law->estimate(), law->estimate() + 10, pi + 10 * k);
  }
  return 0;
}

// A task-space law's torques (mode: cartesian_impedance or operational_space), `count`
// samples as robodyn_joint_law; tool as robodyn_payload_regressor (the tip's axes,
// row-major, then its origin in DH frame n); spring: the stiffness (6) then the damping
// ratio; wrench: count x 6 feed-forward wrenches (LawInput::wrench, DH frame 0), or
// nullptr. Returns 0, 1 when the rows or the settings are refused, 2 for another mode.
int robodyn_task_law(
  const char * mode, int n, const double * rows, const double * gravity,
  const double * settings,
  const double * tool, const double * spring, int count, const double * q,
  const double * qd, const double * q_ref, const double * qd_ref, const double * qdd_ref,
  const double * kp, const double * kd, const double * wrench, double * tau)
{
  robodyn_controllers::DhDynamics dyn;
  auto law = robodyn_controllers::make_task_law(mode);
  if (!law) {return 2;}
  auto s = law_settings(settings, tool);
  std::copy(spring, spring + 6, s.cartesian_stiffness.begin());
  s.cartesian_damping_ratio = spring[6];
  if (!configured(dyn, *law, n, rows, gravity, s)) {return 1;}
  for (int k = 0; k < count; ++k) {
    law_sample(*law, dyn, s, n, k, q, qd, q_ref, qd_ref, qdd_ref, kp, kd, tau, wrench);
  }
  return 0;
}

// The estimate's projection (PayloadEstimate::project) of `count` rows of 10 in place.
void robodyn_project_payload(int count, double mass_max, double * pi)
{
  for (int k = 0; k < count; ++k) {
    std::array<double, 10> row{};
    std::copy(pi + 10 * k, pi + 10 * k + 10, row.begin());
    robodyn_controllers::PayloadEstimate::project(row, mass_max);
    std::copy(row.begin(), row.end(), pi + 10 * k);
  }
}
// The tip's kinematics (tip_kinematics.hpp) for `count` states (rows of q and qd, count x
// n), frame 0: jacobian row k (6 x n, row-major), bias row k (J̇ q̇, 6), pose row k (the
// tip's axes row-major 3x3, then its origin [m]). tool as robodyn_payload_regressor.
// Returns 0, or 1 when refused.
int robodyn_tip_kinematics(
  int n, const double * rows, const double * tool, int count, const double * q,
  const double * qd, double * jacobian, double * bias, double * pose)
{
  robodyn_controllers::DhDynamics dyn;
  robodyn_controllers::TipKinematics tip;
  try {
    dyn.configure(unpack(n, rows), {0.0, 0.0, -9.81});
    std::array<double, 9> rotation{};
    std::copy(tool, tool + 9, rotation.begin());
    tip.configure(static_cast<std::size_t>(n), rotation, {tool[9], tool[10], tool[11]});
  } catch (const std::exception &) {
    return 1;
  }
  for (int k = 0; k < count; ++k) {
    tip.at(dyn, q + k * n);
    tip.jacobian(dyn, jacobian + 6 * n * k);
    tip.bias(dyn, qd + k * n, bias + 6 * k);
    std::copy(tip.rotation().begin(), tip.rotation().end(), pose + 12 * k);
    std::copy(tip.point().begin(), tip.point().end(), pose + 12 * k + 9);
  }
  return 0;
}

// The pose follower (pose_follower.hpp) from q0 (n, at rest) at time 0: target k (count x
// 12: position, then the rotation row-major, DH frame 0) aimed at step k * every, `steps`
// steps of `period` in all; out row s (steps x 3n) the reference after step s. `limits`:
// lower, upper, velocity, acceleration (n each); `tool`: the tip's axes (9) then origin (3)
// in DH frame n; `torque_rate` [N m/s] the law's rate limit the jerk is bounded by (inf:
// none). Returns 0, or 1 when the rows or the settings are refused.
int robodyn_follow_poses(
  int n, const double * rows, const double * tool, const double * limits, double speed,
  double rotation_speed, double period, double torque_rate, const double * q0, int count,
  const double * targets, int every, int steps, double * out)
{
  robodyn_controllers::DhDynamics dyn;
  robodyn_controllers::PoseFollower follower;
  const auto size = static_cast<std::size_t>(n);
  try {
    dyn.configure(unpack(n, rows), {0.0, 0.0, -9.81});
    std::array<double, 9> rotation{};
    std::copy(tool, tool + 9, rotation.begin());
    const auto part = [&](int k) {
        return std::vector<double>(limits + k * n, limits + (k + 1) * n);
      };
    follower.configure(size, part(0), part(1), part(2), part(3), speed, rotation_speed,
      period, rotation, {tool[9], tool[10], tool[11]}, torque_rate);
  } catch (const std::exception &) {
    return 1;
  }
  const std::vector<double> zero(size, 0.0);
  follower.start(dyn, q0, zero.data(), 0.0);
  for (int s = 0; s < steps; ++s) {
    if (every > 0 && s % every == 0 && s / every < count) {
      robodyn_controllers::PoseTarget target;
      const double * t = targets + 12 * (s / every);
      target.position = {t[0], t[1], t[2]};
      std::copy(t + 3, t + 12, target.rotation.begin());
      follower.aim(target);
    }
    const double * reference = follower.advance(dyn, (s + 1) * period);
    std::copy(reference, reference + 3 * n, out + 3 * n * s);
  }
  return 0;
}

// /diagnostics' words on the tip (task_space.hpp, pose_follower.hpp): the manipulability of
// j (6 x n row-major; nullptr: off) into text (size bytes), and the follower's slowed text.
void robodyn_manipulability_text(const double * j, int n, char * text, int size)
{
  robodyn_controllers::manipulability_text(j, static_cast<std::size_t>(n), text,
    static_cast<std::size_t>(size));
}

const char * robodyn_slowed_text()
{
  return robodyn_controllers::PoseFollower::SLOWED;
}

// The wrench feed (wrench_feed.hpp) over `steps` cycles of `period` [s] from time 0:
// target k (count x 6: force then moment in the base link, frame 0's axes there
// base_rotation row-major) checked and aimed at cycle arrival[k]; out row s (steps x 6) the
// wrench applied in cycle s (zeros: none), checks[k] 0 applied, 1 scaled, 2 not finite.
// bounds: max_force, max_torque, rise_time, timeout.
void robodyn_wrench_feed(
  const double * bounds, const double * base_rotation, int count, const int * arrival,
  const double * targets, int steps, double period, double * out, int * checks)
{
  robodyn_controllers::WrenchFeed feed;
  feed.configure({bounds[0], bounds[1], bounds[2], bounds[3]});
  std::array<double, 9> rotation{};
  std::copy(base_rotation, base_rotation + 9, rotation.begin());
  for (int s = 0; s < steps; ++s) {
    const double t = s * period;
    for (int k = 0; k < count; ++k) {
      if (arrival[k] != s) {continue;}
      double wrench[6];
      const auto check = robodyn_controllers::check_wrench(targets + 6 * k,
          targets + 6 * k + 3, rotation, {bounds[0], bounds[1], bounds[2], bounds[3]}, wrench);
      checks[k] = static_cast<int>(check);
      if (check != robodyn_controllers::WrenchCheck::NOT_FINITE) {feed.aim(wrench, t);}
    }
    const double * value = feed.value(t);
    for (int r = 0; r < 6; ++r) {out[6 * s + r] = value == nullptr ? 0.0 : value[r];}
  }
}
}
