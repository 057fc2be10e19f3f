// Recursive Newton-Euler on DH rows; see dh_dynamics.hpp for the conventions.
#include "robodyn_controllers/dh_dynamics.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace robodyn_controllers
{
namespace
{
constexpr std::size_t FRAME = 12;   // R_i (9) and p_i (3)
constexpr std::size_t WRENCH = 6;   // force and moment about the COM
constexpr std::array<double, 3> NO_GRAVITY{};
constexpr std::size_t BODY = 18;    // observer_terms: w, u', P, L_O, gravity F and moment

void require(bool ok, std::size_t row, const std::string & what)
{
  if (!ok) {
    throw std::invalid_argument(
      "DH row " + std::to_string(row + 1) + " (joint " + std::to_string(row + 1) + "): " + what);
  }
}

bool finite(const DhLink & l)
{
  bool ok = std::isfinite(l.a) && std::isfinite(l.alpha) && std::isfinite(l.d) &&
    std::isfinite(l.theta0) && std::isfinite(l.beta) && std::isfinite(l.mass) &&
    std::isfinite(l.viscous) && std::isfinite(l.coulomb) && std::isfinite(l.smoothing);
  for (double v : l.com) {ok = ok && std::isfinite(v);}
  for (double v : l.inertia) {ok = ok && std::isfinite(v);}
  return ok;
}
}  // namespace

void DhDynamics::configure(const std::vector<DhLink> & links, const std::array<double, 3> & g)
{
  if (links.empty()) {
    throw std::invalid_argument("no DH rows: the model has no joints");
  }
  for (double v : g) {
    if (!std::isfinite(v)) {throw std::invalid_argument("gravity is not finite");}
  }
  std::vector<Row> rows(links.size());
  for (std::size_t i = 0; i < links.size(); ++i) {
    const DhLink & l = links[i];
    require(finite(l), i, "a value is not finite");
    require(l.mass >= 0.0, i, "negative mass " + std::to_string(l.mass));
    require(l.viscous >= 0.0 && l.coulomb >= 0.0 && l.smoothing >= 0.0, i,
      "negative friction");
    const auto & I = l.inertia;  // xx xy xz yy yz zz
    const double scale = 1e-12 * (1.0 + std::abs(I[0]) + std::abs(I[3]) + std::abs(I[5]));
    const double minor_xy = I[0] * I[3] - I[1] * I[1];
    const double minor_xz = I[0] * I[5] - I[2] * I[2];
    const double minor_yz = I[3] * I[5] - I[4] * I[4];
    const double det = I[0] * minor_yz - I[1] * (I[1] * I[5] - I[4] * I[2]) +
      I[2] * (I[1] * I[4] - I[3] * I[2]);
    require(I[0] >= -scale && I[3] >= -scale && I[5] >= -scale && minor_xy >= -scale &&
      minor_xz >= -scale && minor_yz >= -scale && det >= -scale, i,
      "inertia is not positive semi-definite");
    rows[i].link = l;
    rows[i].cos_beta = std::cos(l.beta);
    rows[i].sin_beta = std::sin(l.beta);
    rows[i].inertia = {I[0], I[1], I[2], I[1], I[3], I[4], I[2], I[4], I[5]};
  }
  const std::size_t n = links.size();
  rows_ = std::move(rows);
  gravity_ = g;
  frames_.assign(FRAME * n, 0.0);
  wrenches_.assign(WRENCH * n, 0.0);
  zeros_.assign(n, 0.0);
  unit_.assign(n, 0.0);
  scratch_.assign(n, 0.0);
  gravity_torque_.assign(n, 0.0);
  bodies_.assign(BODY * n, 0.0);
  poses_.assign(FRAME * n, 0.0);
  composite_.assign(13 * (n + 1), 0.0);
  dual_q_.assign(n, Dual());
  dual_zero_.assign(n, Dual());
  dual_qdd_.assign(n, Dual());
  dual_tau_.assign(n, Dual());
  dual_frames_.assign(FRAME * n, Dual());
  dual_wrenches_.assign(WRENCH * n, Dual());
}

// R_i = Rz(theta) Rx(alpha) Ry(beta) (row-major) and p_i, origin i from origin i-1 in
// frame i, of joint value qi: f[0..8] and f[9..11].
template<class S>
void DhDynamics::frame(const Row & row, const S & qi, S * f) noexcept
{
  using std::cos;
  using std::sin;
  const DhLink & l = row.link;
  S theta = l.theta0, d = l.d;
  if (l.prismatic) {d += qi;} else {theta += qi;}
  const S ct = cos(theta), st = sin(theta);
  const double ca = std::cos(l.alpha), sa = std::sin(l.alpha);
  const double cb = row.cos_beta, sb = row.sin_beta;
  f[0] = ct * cb - st * sa * sb; f[1] = -st * ca; f[2] = ct * sb + st * sa * cb;
  f[3] = st * cb + ct * sa * sb; f[4] = ct * ca; f[5] = st * sb - ct * sa * cb;
  f[6] = -ca * sb; f[7] = sa; f[8] = ca * cb;
  const S dca = d * ca;
  f[9] = cb * l.a - sb * dca; f[10] = d * sa; f[11] = sb * l.a + cb * dca;
}

void DhDynamics::poses(const double * q, double * out) const noexcept
{
  double f[FRAME];
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    frame(rows_[i], q[i], f);
    double * t = out + FRAME * i;
    const double * prev = i > 0 ? out + FRAME * (i - 1) : nullptr;
    for (std::size_t r = 0; r < 3; ++r) {  // R_0i = R_0,i-1 R_i
      for (std::size_t c = 0; c < 3; ++c) {
        t[3 * r + c] = prev ? prev[3 * r] * f[c] + prev[3 * r + 1] * f[3 + c] +
          prev[3 * r + 2] * f[6 + c] : f[3 * r + c];
      }
    }
    for (std::size_t r = 0; r < 3; ++r) {  // o_i = o_i-1 + R_0i p_i (p_i is in frame i)
      t[9 + r] = (prev ? prev[9 + r] : 0.0) + t[3 * r] * f[9] + t[3 * r + 1] * f[10] +
        t[3 * r + 2] * f[11];
    }
  }
}

// Velocities and accelerations base -> tip, everything of link i in its frame i; stores
// R_i, p_i and the link's inertial force and moment about its COM.
template<class S>
void DhDynamics::outward_t(
  const S * q, const S * qd, const S * qdd, const std::array<double, 3> & gravity,
  S * frames, S * wrenches) const noexcept
{
  const std::size_t n = rows_.size();
  S w0 = 0, w1 = 0, w2 = 0;  // angular velocity of the previous link
  S e0 = 0, e1 = 0, e2 = 0;  // its angular acceleration
  S a0 = -gravity[0], a1 = -gravity[1], a2 = -gravity[2];  // its origin's accel.
  for (std::size_t i = 0; i < n; ++i) {
    const Row & row = rows_[i];
    const DhLink & l = row.link;
    S * f = &frames[FRAME * i];
    frame(row, q[i], f);
    const S r00 = f[0], r01 = f[1], r02 = f[2], r10 = f[3], r11 = f[4], r12 = f[5];
    const S r20 = f[6], r21 = f[7], r22 = f[8], p0 = f[9], p1 = f[10], p2 = f[11];
    S b0, b1, b2, c0, c1, c2;
    if (l.prismatic) {  // in frame i-1: w, w' unchanged; the joint accelerates along z
      b0 = w0; b1 = w1; b2 = w2; c0 = e0; c1 = e1; c2 = e2;
      a2 += qdd[i];
    } else {  // w + z qd, w' + z qdd + w x z qd
      b0 = w0; b1 = w1; b2 = w2 + qd[i];
      c0 = e0 + w1 * qd[i]; c1 = e1 - w0 * qd[i]; c2 = e2 + qdd[i];
    }
    // into frame i: R_i^T (.)
    w0 = r00 * b0 + r10 * b1 + r20 * b2;
    w1 = r01 * b0 + r11 * b1 + r21 * b2;
    w2 = r02 * b0 + r12 * b1 + r22 * b2;
    e0 = r00 * c0 + r10 * c1 + r20 * c2;
    e1 = r01 * c0 + r11 * c1 + r21 * c2;
    e2 = r02 * c0 + r12 * c1 + r22 * c2;
    S v0 = r00 * a0 + r10 * a1 + r20 * a2;
    S v1 = r01 * a0 + r11 * a1 + r21 * a2;
    S v2 = r02 * a0 + r12 * a1 + r22 * a2;
    if (l.prismatic) {  // Coriolis term 2 w x (z qd), z = (r20, r21, r22) in frame i
      const S z0 = r20 * qd[i], z1 = r21 * qd[i], z2 = r22 * qd[i];
      v0 += 2.0 * (w1 * z2 - w2 * z1);
      v1 += 2.0 * (w2 * z0 - w0 * z2);
      v2 += 2.0 * (w0 * z1 - w1 * z0);
    }
    // origin i: + w' x p + w x (w x p)
    S x0 = w1 * p2 - w2 * p1, x1 = w2 * p0 - w0 * p2, x2 = w0 * p1 - w1 * p0;
    a0 = v0 + e1 * p2 - e2 * p1 + w1 * x2 - w2 * x1;
    a1 = v1 + e2 * p0 - e0 * p2 + w2 * x0 - w0 * x2;
    a2 = v2 + e0 * p1 - e1 * p0 + w0 * x1 - w1 * x0;
    // centre of mass c: m (a + w' x c + w x (w x c))
    const double m = l.mass, s0 = l.com[0], s1 = l.com[1], s2 = l.com[2];
    x0 = w1 * s2 - w2 * s1; x1 = w2 * s0 - w0 * s2; x2 = w0 * s1 - w1 * s0;
    S * h = &wrenches[WRENCH * i];
    h[0] = m * (a0 + e1 * s2 - e2 * s1 + w1 * x2 - w2 * x1);
    h[1] = m * (a1 + e2 * s0 - e0 * s2 + w2 * x0 - w0 * x2);
    h[2] = m * (a2 + e0 * s1 - e1 * s0 + w0 * x1 - w1 * x0);
    const auto & I = row.inertia;
    const S l0 = I[0] * w0 + I[1] * w1 + I[2] * w2;
    const S l1 = I[3] * w0 + I[4] * w1 + I[5] * w2;
    const S l2 = I[6] * w0 + I[7] * w1 + I[8] * w2;
    h[3] = I[0] * e0 + I[1] * e1 + I[2] * e2 + w1 * l2 - w2 * l1;
    h[4] = I[3] * e0 + I[4] * e1 + I[5] * e2 + w2 * l0 - w0 * l2;
    h[5] = I[6] * e0 + I[7] * e1 + I[8] * e2 + w0 * l1 - w1 * l0;
  }
}

// Forces tip -> base; tau_i is the moment (revolute) or force (prismatic) along z_{i-1}.
template<class S>
void DhDynamics::inward_t(const S * frames, const S * wrenches, S * tau) const noexcept
{
  const std::size_t n = rows_.size();
  S f0 = 0, f1 = 0, f2 = 0, t0 = 0, t1 = 0, t2 = 0;
  for (std::size_t k = n; k-- > 0; ) {
    const S * f = &frames[FRAME * k];
    const S * h = &wrenches[WRENCH * k];
    const DhLink & l = rows_[k].link;
    const S p0 = f[9], p1 = f[10], p2 = f[11];
    const S F0 = h[0], F1 = h[1], F2 = h[2];
    const S c0 = p0 + l.com[0], c1 = p1 + l.com[1], c2 = p2 + l.com[2];
    t0 += p1 * f2 - p2 * f1 + c1 * F2 - c2 * F1 + h[3];
    t1 += p2 * f0 - p0 * f2 + c2 * F0 - c0 * F2 + h[4];
    t2 += p0 * f1 - p1 * f0 + c0 * F1 - c1 * F0 + h[5];
    f0 += F0; f1 += F1; f2 += F2;
    const S z0 = f[6], z1 = f[7], z2 = f[8];  // last row of R_i: z_{i-1}
    tau[k] = l.prismatic ? z0 * f0 + z1 * f1 + z2 * f2 : z0 * t0 + z1 * t1 + z2 * t2;
    // into frame i-1: R_i (.)
    const S g0 = f[0] * f0 + f[1] * f1 + f[2] * f2;
    const S g1 = f[3] * f0 + f[4] * f1 + f[5] * f2;
    const S g2 = z0 * f0 + z1 * f1 + z2 * f2;
    f0 = g0; f1 = g1; f2 = g2;
    const S u0 = f[0] * t0 + f[1] * t1 + f[2] * t2;
    const S u1 = f[3] * t0 + f[4] * t1 + f[5] * t2;
    const S u2 = z0 * t0 + z1 * t1 + z2 * t2;
    t0 = u0; t1 = u1; t2 = u2;
  }
}

void DhDynamics::outward(const double * q, const double * qd, const double * qdd) noexcept
{
  outward_t(q, qd, qdd, gravity_, frames_.data(), wrenches_.data());
}

void DhDynamics::inward(double * tau) const noexcept
{
  inward_t(frames_.data(), wrenches_.data(), tau);
}

void DhDynamics::momentum(const double * q, const double * qd, double * p, double * mdot_qd)
noexcept
{
  const std::size_t n = rows_.size();
  for (std::size_t i = 0; i < n; ++i) {
    dual_q_[i] = Dual(q[i], qd[i]);
    dual_qdd_[i] = Dual(qd[i], 0.0);
  }
  // no gravity, no velocity: RNEA(q + eps qd, 0, qd) = M(q + eps qd) qd
  outward_t(dual_q_.data(), dual_zero_.data(), dual_qdd_.data(), NO_GRAVITY,
    dual_frames_.data(), dual_wrenches_.data());
  inward_t(dual_frames_.data(), dual_wrenches_.data(), dual_tau_.data());
  for (std::size_t i = 0; i < n; ++i) {
    p[i] = dual_tau_[i].v;
    mdot_qd[i] = dual_tau_[i].d;
  }
}

// Out: each link's angular velocity w, the velocity u' of its point on the joint's axis
// (origin i-1), its linear momentum P = m (u_i + w x c) and angular momentum about origin
// i, L_O = I_c w + c x P, and its weight's wrench (as RNEA's with qd = qdd = 0), all in
// frame i. In: both momenta and wrenches summed about origin i-1, then the joint's terms.
void DhDynamics::observer_terms(
  const double * q, const double * qd, double * p, double * beta) noexcept
{
  const std::size_t n = rows_.size();
  double w0 = 0, w1 = 0, w2 = 0, u0 = 0, u1 = 0, u2 = 0;  // previous link, at its origin
  double g0 = -gravity_[0], g1 = -gravity_[1], g2 = -gravity_[2];  // -gravity, its frame
  // The loop's head is outward_t's on purpose (duplicates pairs them): both recursions
  // start each link from its frame; they differ in what they carry (velocities only here).
  for (std::size_t i = 0; i < n; ++i) {
    const Row & row = rows_[i];
    const DhLink & l = row.link;
    double * f = &frames_[FRAME * i];
    frame(row, q[i], f);
    const double r00 = f[0], r01 = f[1], r02 = f[2], r10 = f[3], r11 = f[4], r12 = f[5];
    const double r20 = f[6], r21 = f[7], r22 = f[8], p0 = f[9], p1 = f[10], p2 = f[11];
    if (l.prismatic) {u2 += qd[i];} else {w2 += qd[i];}  // + z qd in frame i-1
    double x0 = r00 * w0 + r10 * w1 + r20 * w2;  // into frame i: R_i^T (.)
    double x1 = r01 * w0 + r11 * w1 + r21 * w2;
    w2 = r02 * w0 + r12 * w1 + r22 * w2; w0 = x0; w1 = x1;
    x0 = r00 * u0 + r10 * u1 + r20 * u2;
    x1 = r01 * u0 + r11 * u1 + r21 * u2;
    u2 = r02 * u0 + r12 * u1 + r22 * u2; u0 = x0; u1 = x1;
    x0 = r00 * g0 + r10 * g1 + r20 * g2;
    x1 = r01 * g0 + r11 * g1 + r21 * g2;
    g2 = r02 * g0 + r12 * g1 + r22 * g2; g0 = x0; g1 = x1;
    double * b = &bodies_[BODY * i];
    b[0] = w0; b[1] = w1; b[2] = w2; b[3] = u0; b[4] = u1; b[5] = u2;
    u0 += w1 * p2 - w2 * p1; u1 += w2 * p0 - w0 * p2; u2 += w0 * p1 - w1 * p0;  // origin i
    const double m = l.mass, c0 = l.com[0], c1 = l.com[1], c2 = l.com[2];
    const double P0 = m * (u0 + w1 * c2 - w2 * c1), P1 = m * (u1 + w2 * c0 - w0 * c2);
    const double P2 = m * (u2 + w0 * c1 - w1 * c0);
    const auto & I = row.inertia;
    b[6] = P0; b[7] = P1; b[8] = P2;
    b[9] = I[0] * w0 + I[1] * w1 + I[2] * w2 + c1 * P2 - c2 * P1;
    b[10] = I[3] * w0 + I[4] * w1 + I[5] * w2 + c2 * P0 - c0 * P2;
    b[11] = I[6] * w0 + I[7] * w1 + I[8] * w2 + c0 * P1 - c1 * P0;
    b[12] = m * g0; b[13] = m * g1; b[14] = m * g2;
    b[15] = m * (c1 * g2 - c2 * g1); b[16] = m * (c2 * g0 - c0 * g2);
    b[17] = m * (c0 * g1 - c1 * g0);
  }
  double hf[3] = {0, 0, 0}, ht[3] = {0, 0, 0}, gf[3] = {0, 0, 0}, gt[3] = {0, 0, 0};
  for (std::size_t k = n; k-- > 0; ) {
    const double * f = &frames_[FRAME * k];
    const double * b = &bodies_[BODY * k];
    const double p0 = f[9], p1 = f[10], p2 = f[11];
    // about origin k-1: the links beyond (summed about origin k) shifted, plus link k
    for (int s = 0; s < 2; ++s) {
      double * F = s == 0 ? hf : gf;
      double * T = s == 0 ? ht : gt;
      const double * own = b + 6 + 6 * s;
      F[0] += own[0]; F[1] += own[1]; F[2] += own[2];
      T[0] += own[3] + p1 * F[2] - p2 * F[1];
      T[1] += own[4] + p2 * F[0] - p0 * F[2];
      T[2] += own[5] + p0 * F[1] - p1 * F[0];
    }
    const double z0 = f[6], z1 = f[7], z2 = f[8];  // z_{k-1} in frame k
    const double w0 = b[0], w1 = b[1], w2 = b[2], u0 = b[3], u1 = b[4], u2 = b[5];
    // v x* H = (w x L + u' x P, w x P)
    const double n0 = w1 * ht[2] - w2 * ht[1] + u1 * hf[2] - u2 * hf[1];
    const double n1 = w2 * ht[0] - w0 * ht[2] + u2 * hf[0] - u0 * hf[2];
    const double n2 = w0 * ht[1] - w1 * ht[0] + u0 * hf[1] - u1 * hf[0];
    const double m0 = w1 * hf[2] - w2 * hf[1], m1 = w2 * hf[0] - w0 * hf[2];
    const double m2 = w0 * hf[1] - w1 * hf[0];
    if (rows_[k].link.prismatic) {
      p[k] = z0 * hf[0] + z1 * hf[1] + z2 * hf[2];
      beta[k] = -(z0 * m0 + z1 * m1 + z2 * m2) - (z0 * gf[0] + z1 * gf[1] + z2 * gf[2]);
    } else {
      p[k] = z0 * ht[0] + z1 * ht[1] + z2 * ht[2];
      beta[k] = -(z0 * n0 + z1 * n1 + z2 * n2) - (z0 * gt[0] + z1 * gt[1] + z2 * gt[2]);
    }
    for (double * v : {hf, ht, gf, gt}) {  // into frame k-1: R_k (.)
      const double a0 = f[0] * v[0] + f[1] * v[1] + f[2] * v[2];
      const double a1 = f[3] * v[0] + f[4] * v[1] + f[5] * v[2];
      v[2] = z0 * v[0] + z1 * v[1] + z2 * v[2]; v[0] = a0; v[1] = a1;
    }
  }
}

void DhDynamics::inverse_dynamics(
  const double * q, const double * qd, const double * qdd, double * tau) noexcept
{
  outward(q, qd, qdd);
  inward(tau);
}

// The inverse dynamics at qd = qdd = 0 (seed 000 eq. 29's g(q)) in a pass of its own: no
// angular velocity or acceleration, so each origin's acceleration is -g turned into its
// frame, each link's force m (-g) at its COM and no moment about it; what outward_t gives
// there, term for term, at half its cost.
void DhDynamics::gravity(const double * q, double * tau) noexcept
{
  double a0 = -gravity_[0], a1 = -gravity_[1], a2 = -gravity_[2];
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    double * f = &frames_[FRAME * i];
    frame(rows_[i], q[i], f);
    const double v0 = f[0] * a0 + f[3] * a1 + f[6] * a2;
    const double v1 = f[1] * a0 + f[4] * a1 + f[7] * a2;
    const double v2 = f[2] * a0 + f[5] * a1 + f[8] * a2;
    a0 = v0; a1 = v1; a2 = v2;
    const double m = rows_[i].link.mass;
    double * h = &wrenches_[WRENCH * i];
    h[0] = m * a0; h[1] = m * a1; h[2] = m * a2;
    h[3] = 0.0; h[4] = 0.0; h[5] = 0.0;
  }
  inward(tau);
}

void DhDynamics::add_friction(const double * qd, double * tau) const noexcept
{
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const DhLink & l = rows_[i].link;
    const double sgn = l.smoothing > 0.0 ? std::tanh(qd[i] / l.smoothing) :
      static_cast<double>((qd[i] > 0.0) - (qd[i] < 0.0));
    tau[i] += l.viscous * qd[i] + l.coulomb * sgn;
  }
}

void DhDynamics::mass_matrix(const double * q, double * m) noexcept
{
  poses(q, poses_.data());
  mass_matrix_from_poses(poses_.data(), m);
}

void DhDynamics::mass_matrix_from_poses(const double * frames, double * m) noexcept
{
  const std::size_t n = rows_.size();
  double * after = composite_.data() + 13 * n;  // links beyond the tip: none
  std::fill(after, after + 13, 0.0);
  for (std::size_t k = n; k-- > 0; ) {  // the links k..n as one body, about frame 0's origin
    const Row & row = rows_[k];
    const double * t = frames + FRAME * k;
    const double * next = composite_.data() + 13 * (k + 1);
    double * body = composite_.data() + 13 * k;
    const double mk = row.link.mass;
    double c[3], rc[9];  // the COM in frame 0; R_0k I_k
    for (int r = 0; r < 3; ++r) {
      c[r] = t[9 + r] + t[3 * r] * row.link.com[0] + t[3 * r + 1] * row.link.com[1] +
        t[3 * r + 2] * row.link.com[2];
      for (int col = 0; col < 3; ++col) {
        rc[3 * r + col] = t[3 * r] * row.inertia[col] + t[3 * r + 1] * row.inertia[3 + col] +
          t[3 * r + 2] * row.inertia[6 + col];
      }
    }
    const double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    body[0] = next[0] + mk;
    for (int r = 0; r < 3; ++r) {
      body[1 + r] = next[1 + r] + mk * c[r];
      for (int col = 0; col < 3; ++col) {  // R I R^T + m (|c|^2 1 - c c^T)
        const double rir = rc[3 * r] * t[3 * col] + rc[3 * r + 1] * t[3 * col + 1] +
          rc[3 * r + 2] * t[3 * col + 2];
        body[4 + 3 * r + col] = next[4 + 3 * r + col] + rir +
          mk * ((r == col ? cc : 0.0) - c[r] * c[col]);
      }
    }
  }
  for (std::size_t j = 0; j < n; ++j) {
    double w[3], v[3];
    motion(frames, j, w, v);
    const double * body = composite_.data() + 13 * j;
    const double * h = body + 1;
    const double * inertia = body + 4;
    double lo[3], p[3];  // I^c_j S_j: the moment about the origin, the force
    for (int r = 0; r < 3; ++r) {
      lo[r] = inertia[3 * r] * w[0] + inertia[3 * r + 1] * w[1] + inertia[3 * r + 2] * w[2];
      p[r] = body[0] * v[r];
    }
    lo[0] += h[1] * v[2] - h[2] * v[1];  // + h x v_O
    lo[1] += h[2] * v[0] - h[0] * v[2];
    lo[2] += h[0] * v[1] - h[1] * v[0];
    p[0] += w[1] * h[2] - w[2] * h[1];  // + w x h
    p[1] += w[2] * h[0] - w[0] * h[2];
    p[2] += w[0] * h[1] - w[1] * h[0];
    for (std::size_t i = 0; i <= j; ++i) {
      double wi[3], vi[3];
      motion(frames, i, wi, vi);
      const double mij = wi[0] * lo[0] + wi[1] * lo[1] + wi[2] * lo[2] + vi[0] * p[0] +
        vi[1] * p[1] + vi[2] * p[2];
      m[i * n + j] = mij;
      m[j * n + i] = mij;
    }
  }
}

// Joint i's unit motion about frame 0's origin (mass_matrix; frames: the poses at q):
// revolute, the angular velocity z_{i-1} and the origin's velocity o_{i-1} x z_{i-1};
// prismatic, none and z_{i-1}.
void DhDynamics::motion(const double * frames, std::size_t i, double * w, double * v) const
noexcept
{
  const double * t = i > 0 ? frames + FRAME * (i - 1) : nullptr;
  const double z[3] = {t ? t[2] : 0.0, t ? t[5] : 0.0, t ? t[8] : 1.0};
  if (rows_[i].link.prismatic) {
    for (int r = 0; r < 3; ++r) {w[r] = 0.0; v[r] = z[r];}
    return;
  }
  const double o[3] = {t ? t[9] : 0.0, t ? t[10] : 0.0, t ? t[11] : 0.0};
  for (int r = 0; r < 3; ++r) {w[r] = z[r];}
  v[0] = o[1] * z[2] - o[2] * z[1];
  v[1] = o[2] * z[0] - o[0] * z[2];
  v[2] = o[0] * z[1] - o[1] * z[0];
}

void DhDynamics::mass_diagonal(const double * q, double * diag) noexcept
{
  gravity(q, gravity_torque_.data());
  for (std::size_t j = 0; j < rows_.size(); ++j) {
    unit_[j] = 1.0;
    inverse_dynamics(q, zeros_.data(), unit_.data(), scratch_.data());
    unit_[j] = 0.0;
    diag[j] = scratch_[j] - gravity_torque_[j];
  }
}

}  // namespace robodyn_controllers
