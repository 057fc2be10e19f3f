// The four-link chain the dynamics gtests share: revolute, prismatic, revolute with a
// Hayati beta, revolute; masses, centres of mass and inertias that differ per link.
#ifndef ROBODYN_CONTROLLERS__TEST__DH_TEST_CHAIN_HPP_
#define ROBODYN_CONTROLLERS__TEST__DH_TEST_CHAIN_HPP_

#include <vector>

#include "robodyn_controllers/dh_dynamics.hpp"

namespace robodyn_test
{
inline std::vector<robodyn_controllers::DhLink> chain()
{
  std::vector<robodyn_controllers::DhLink> links(4);
  const double a[4] = {0.1, 0.0, 0.3, 0.05}, alpha[4] = {1.5708, -1.5708, 0.0, 0.7};
  for (std::size_t i = 0; i < links.size(); ++i) {
    auto & l = links[i];
    l.a = a[i];
    l.alpha = alpha[i];
    l.d = 0.1 * static_cast<double>(i);
    l.mass = 1.0 + 0.5 * static_cast<double>(i);
    l.com = {0.02 * static_cast<double>(i), -0.03, 0.05};
    l.inertia = {0.02, 0.001, -0.002, 0.03, 0.0015, 0.025};
    l.viscous = 0.1;
  }
  links[1].prismatic = true;
  links[2].beta = 0.01;
  return links;
}
}  // namespace robodyn_test

#endif  // ROBODYN_CONTROLLERS__TEST__DH_TEST_CHAIN_HPP_
