// A C entry point to DhDynamics, so that tests (Python's ctypes) and benchmarks feed the
// controller's own dynamics the states they feed robodyn_ros and Pinocchio.
#include <array>
#include <exception>
#include <vector>

#include "robodyn_controllers/dh_dynamics.hpp"

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

}
