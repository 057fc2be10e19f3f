// Inverse dynamics of a serial chain in standard DH frames, for the real-time loop.
//
// The rows are the ones robodyn_ros checked against Pinocchio and exported
// (`robodyn export`): no second URDF parser. Conventions (standard DH, seed 001 eq. 2.5):
// frame i-1 -> i is Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i) Ry(beta_i), beta being Hayati's
// rotation on nearly parallel axes; joint i moves along/about z_{i-1}; each link's mass,
// centre of mass and inertia about it are constants in its own DH frame i (seed 003
// eq. 45-46). Gravity is given in frame 0.
#ifndef ROBODYN_CONTROLLERS__DH_DYNAMICS_HPP_
#define ROBODYN_CONTROLLERS__DH_DYNAMICS_HPP_

#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

namespace robodyn_controllers
{

// One joint and the link it moves, in DH frame i (SI units: m, rad, kg, kg m^2).
struct DhLink
{
  double a = 0.0, alpha = 0.0, d = 0.0, theta0 = 0.0, beta = 0.0;
  bool prismatic = false;
  double mass = 0.0;
  std::array<double, 3> com{};      // centre of mass in frame i [m]
  std::array<double, 6> inertia{};  // about the COM, frame-i axes: xx xy xz yy yz zz [kg m^2]
  double viscous = 0.0, coulomb = 0.0, smoothing = 0.0;  // seed 004 friction
};

// A dual number v + d eps (eps^2 = 0): carried through the recursion, d is the exact
// derivative along a direction (forward-mode differentiation, no step size).
struct Dual
{
  double v = 0.0, d = 0.0;
  Dual() = default;
  Dual(double value, double derivative = 0.0) : v(value), d(derivative) {}  // NOLINT
};

inline Dual operator+(Dual a, Dual b) noexcept {return {a.v + b.v, a.d + b.d};}
inline Dual operator-(Dual a, Dual b) noexcept {return {a.v - b.v, a.d - b.d};}
inline Dual operator-(Dual a) noexcept {return {-a.v, -a.d};}
inline Dual operator*(Dual a, Dual b) noexcept {return {a.v * b.v, a.v * b.d + a.d * b.v};}
inline Dual operator+(Dual a, double b) noexcept {return {a.v + b, a.d};}
inline Dual operator+(double a, Dual b) noexcept {return {a + b.v, b.d};}
inline Dual operator-(Dual a, double b) noexcept {return {a.v - b, a.d};}
inline Dual operator-(double a, Dual b) noexcept {return {a - b.v, -b.d};}
inline Dual operator*(Dual a, double b) noexcept {return {a.v * b, a.d * b};}
inline Dual operator*(double a, Dual b) noexcept {return {a * b.v, a * b.d};}
inline Dual & operator+=(Dual & a, Dual b) noexcept {a = a + b; return a;}
inline Dual & operator-=(Dual & a, Dual b) noexcept {a = a - b; return a;}
inline Dual cos(Dual a) noexcept {return {std::cos(a.v), -std::sin(a.v) * a.d};}
inline Dual sin(Dual a) noexcept {return {std::sin(a.v), std::cos(a.v) * a.d};}

// Recursive Newton-Euler (Luh, Walker and Paul) on DH rows: tau = M(q) qdd + C(q, qd) qd
// + g(q) (seed 000 eq. 29) without forming M or C. Every member function after
// configure() is noexcept and allocates nothing: the controller calls them from update().
class DhDynamics
{
public:
  // Takes the rows; throws std::invalid_argument naming the row on a non-finite value,
  // a negative mass or an inertia that is not positive semi-definite.
  // Allocates the scratch space (not real-time).
  void configure(const std::vector<DhLink> & links, const std::array<double, 3> & gravity);

  std::size_t size() const noexcept {return rows_.size();}
  bool prismatic(std::size_t i) const noexcept {return rows_[i].link.prismatic;}
  // Gravitational acceleration in frame 0 [m/s^2].
  const std::array<double, 3> & gravity_vector() const noexcept {return gravity_;}

  // Poses of DH frames 1..n in frame 0 at q: per joint R_0i (9, row-major) then the origin
  // o_i [m], 12 n values into `out` (seed 001 eq. 2.5 chained: T_0i = T_0,i-1 A_i).
  void poses(const double * q, double * out) const noexcept;

  // tau = M(q) qdd + C(q, qd) qd + g(q) [N m or N] (seed 000 eq. 29).
  void inverse_dynamics(
    const double * q, const double * qd, const double * qdd, double * tau) noexcept;
  // tau = g(q): the recursion with qd = qdd = 0 (seed 000 eq. 29's last term).
  void gravity(const double * q, double * tau) noexcept;
  // tau += F_v qd + F_c tanh(qd / eps) (seed 004; sgn(qd) when eps = 0).
  void add_friction(const double * qd, double * tau) const noexcept;
  // M(q) [kg m^2, kg m or kg], n x n row-major, by composite rigid bodies in frame 0
  // (Walker and Orin's method 3): with the links j..n lumped into one body of inertia
  // I^c_j and S_i joint i's unit motion (revolute: z_{i-1} about o_{i-1}; prismatic:
  // along z_{i-1}), M_ij = S_i . (I^c_j S_j) for i <= j: the kinetic energy's
  // (1/2) qd^T M qd of seed 000 eq. 29's M, without the n inverse dynamics it takes column
  // by column.
  void mass_matrix(const double * q, double * m) noexcept;
  // The same from the poses of DH frames 1..n at q (poses()' layout: a caller that has
  // them, the tip kinematics, saves the forward kinematics).
  void mass_matrix_from_poses(const double * poses, double * m) noexcept;
  // diag[j] = M_jj(q) = (RNEA(q, 0, e_j) - g(q))_j [kg m^2 or kg] for every joint (n + 1
  // passes): what the position hold's gains are scaled by.
  void mass_diagonal(const double * q, double * diag) noexcept;
  // p = M(q) qd [N m s or N s] and Mdot(q, qd) qd [N m or N]: the generalized momentum and
  // its rate along the motion (seed 000 eq. 40: Mdot = dM/dq (1_n (x) qd)), exactly, from
  // one recursion on dual numbers q + eps qd without gravity or velocity:
  // RNEA(q + eps qd, 0, qd) = M(q + eps qd) qd. What the momentum observer needs, with
  // C^T qd = Mdot qd - C qd (seed 000 eq. 55), without forming M or C.
  void momentum(const double * q, const double * qd, double * p, double * mdot_qd) noexcept;
  // p = M(q) qd [N m s or N s] and beta = C(q, qd)^T qd - g(q) [N m or N]: what the
  // momentum observer needs, in one pass out and one in (about one RNEA). C^T qd = Mdot qd
  // - C qd = (1/2) V^T qd = (dK/dq)^T (seed 000 eqs. 46, 50 and 53: the kinetic energy's
  // gradient), and for joint j, with H_j the spatial momentum of links j..n and v_j link
  // j's spatial velocity, both at the joint's axis: (dK/dq_j) = -S_j . (v_j x* H_j),
  // p_j = S_j . H_j (the joint's axis S_j; x* the cross product on forces).
  void observer_terms(const double * q, const double * qd, double * p, double * beta)
  noexcept;

private:
  void outward(const double * q, const double * qd, const double * qdd) noexcept;
  void motion(const double * poses, std::size_t i, double * w, double * v) const noexcept;
  void inward(double * tau) const noexcept;
  template<class S>
  void outward_t(
    const S * q, const S * qd, const S * qdd, const std::array<double, 3> & gravity,
    S * frames, S * wrenches) const noexcept;
  template<class S>
  void inward_t(const S * frames, const S * wrenches, S * tau) const noexcept;

  struct Row
  {
    DhLink link;
    double cos_beta = 1.0, sin_beta = 0.0;
    std::array<double, 9> inertia{};  // row-major 3x3
  };
  template<class S>
  static void frame(const Row & row, const S & qi, S * f) noexcept;
  std::vector<Row> rows_;
  std::array<double, 3> gravity_{};
  std::vector<double> frames_;   // per joint: R_i (9, row-major), p_i (3)
  std::vector<double> wrenches_;  // per joint: m a_c (3), I w' + w x I w (3)
  std::vector<double> zeros_, unit_, scratch_, gravity_torque_;
  std::vector<double> poses_;  // mass_matrix: R_0i, o_i per joint (poses())
  std::vector<double> composite_;  // mass_matrix: per joint m, h = m c (3), I_O (9)
  std::vector<double> bodies_;  // per joint (observer_terms): w, u' (6), P, L_O (6), G (6)
  std::vector<Dual> dual_q_, dual_zero_, dual_qdd_, dual_tau_, dual_frames_, dual_wrenches_;
};

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__DH_DYNAMICS_HPP_
