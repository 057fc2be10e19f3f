// What the ComputedTorqueController's source files share and nothing else needs: the
// diagnostics keys, the constants of its publishing and observing, small helpers.
// Private to the package (src/): the public interface is
// include/robodyn_controllers/computed_torque_controller.hpp.
#ifndef ROBODYN_CONTROLLERS__COMPUTED_TORQUE_INTERNAL_HPP_
#define ROBODYN_CONTROLLERS__COMPUTED_TORQUE_INTERNAL_HPP_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "robodyn_controllers/computed_torque_controller.hpp"

namespace robodyn_controllers
{
namespace ctc
{
constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t REFERENCES = 3;  // position, velocity, acceleration per joint
// /diagnostics keys, in order (values are filled on the publishing thread)
constexpr const char * KEYS[] = {"state", "reason", "event", "mode", "safe_command",
  "chained", "faults", "clamped", "rate_limited", "cycles", "records_dropped",
  "external_torque", "last_collision", "collisions", "hold_watch", "target", "singularity",
  "manipulability", "target_wrench", "applied_wrench",
  // the adaptive law only (the last three): pi [m, m c, I_O] in the tip frame, m, c
  "payload_estimate", "payload_estimate_mass", "payload_estimate_com"};
constexpr std::size_t KEY_COUNT = sizeof(KEYS) / sizeof(KEYS[0]);
constexpr std::size_t PAYLOAD_KEYS = 3;
constexpr std::size_t TEXT = 256;  // capacity reserved for each diagnostics string
// The publishing thread drains the cycle records this often; the ring holds a second.
constexpr auto PUBLISH_PERIOD = std::chrono::milliseconds(2);
constexpr std::size_t RING_RECORDS = 1000;
// A change of mode, event or fault count is published this soon [s], not a period later.
constexpr double DIAGNOSTICS_SPACING = 0.01;
// A state further than this from the previous one [s] is a gap the collision observer
// holds its estimate across (robodyn_ros.control.collision_watch.MAX_STEP).
constexpr double OBSERVER_MAX_STEP = 0.005;

inline const char * mode_name(ComputedTorqueController::Mode mode)
{
  switch (mode) {
    case ComputedTorqueController::Mode::ACTIVE: return "active";
    case ComputedTorqueController::Mode::HOLD: return "hold";
    default: return "safe";
  }
}

// Expands a gain list of 1 or n values to n; false (with the reason) otherwise.
inline bool expand(
  const std::vector<double> & values, std::size_t n, bool allow_empty, const char * name,
  std::vector<double> & out, std::string & error)
{
  if (values.size() == 1 || values.size() == n) {
    out.assign(n, values[0]);
    if (values.size() == n) {out = values;}
    return true;
  }
  if (allow_empty && values.empty()) {
    out.clear();
    return true;
  }
  error = std::string(name) + ": expected 1 or " + std::to_string(n) + " values, got " +
    std::to_string(values.size());
  return false;
}

inline void assign(std::string & target, const char * text)
{
  target.assign(text, std::min(std::strlen(text), TEXT - 1));
}
}  // namespace ctc
// The controller_interface names every source file of the controller uses, and ctc's own
// (a private header: these reach no one outside src/).
using controller_interface::CallbackReturn;
using controller_interface::InterfaceConfiguration;
using controller_interface::interface_configuration_type;
using controller_interface::return_type;
using namespace ctc;  // NOLINT: the package's own helpers (computed_torque_internal.hpp)
}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__COMPUTED_TORQUE_INTERNAL_HPP_
