// The joint-space control laws, one class each, without ROS: the controller (an adapter,
// computed_torque_controller.cpp) owns one and calls torque() from update(); robodyn_ros'
// tests call the same classes through the C entry point (src/dh_dynamics_c.cpp) and hold
// them to the Python laws (robodyn_ros/control/laws/, one module per law, the registry of
// mode names). A new law: one class here and in joint_laws.cpp, its name in make_law and
// the parameter YAML's one_of, one conformance case.
//
// Every law compares the measured velocity with qd_c = qd_r - velocity_lag qdd_r, the
// reference velocity of the instant the measurement stands for (semi-implicit Euler
// physics reports the step's mean velocity, half a step old: robodyn_ros/control/laws).
#ifndef ROBODYN_CONTROLLERS__JOINT_LAWS_HPP_
#define ROBODYN_CONTROLLERS__JOINT_LAWS_HPP_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "robodyn_controllers/dh_dynamics.hpp"
#include "robodyn_controllers/payload_adaptation.hpp"

namespace robodyn_controllers
{

// What every law shares (the controller's parameters of the same names).
struct LawSettings
{
  bool include_gravity = true;      // false: the robot compensates g itself
  bool include_friction = false;    // add seed 004's friction
  bool feedforward_pd = true;       // feedforward: add the PD
  bool inertia_feedforward = true;  // joint_impedance: add M(q) qdd_r
  double velocity_lag = 0.0;        // [s], see above
  AdaptationSettings adaptation{};  // adaptive: its rates, mass bound, rest speed
  // adaptive: the tip link's axes (row-major 3x3) and origin [m] in DH frame n, the frame
  // its payload estimate is given in
  std::array<double, 9> tool_rotation{1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0};
  std::array<double, 3> tool_point{};
  // cartesian_impedance: the tool spring K_x in DH frame 0 ([N/m] x 3, [N m/rad] x 3) and
  // the damping ratio of D_x on the task-space inertia's diagonal
  std::array<double, 6> cartesian_stiffness{500.0, 500.0, 500.0, 30.0, 30.0, 30.0};
  double cartesian_damping_ratio = 1.0;
};

// One cycle's inputs, n values each (chain order): the measured state, the reference,
// the gains (their units the law's, as in the Python law's `gains`).
struct LawInput
{
  const double * q;
  const double * qd;
  const double * q_ref;
  const double * qd_ref;
  const double * qdd_ref;
  const double * kp;
  const double * kd;
  // a task-space law's feed-forward wrench at the tool point (6: [N] x 3, [N m] x 3, DH
  // frame 0; wrench_feed.hpp), added as J^T wrench; nullptr: none
  const double * wrench = nullptr;
};

class JointLaw
{
public:
  virtual ~JointLaw() = default;
  virtual const char * name() const noexcept = 0;
  // Whether the tracking guard applies: the law pulls the arm to its reference.
  virtual bool follows_reference(const LawSettings &) const noexcept {return true;}
  // Allocates the scratch space for n joints and a law's own state (not real-time); throws
  // std::invalid_argument naming a setting the law cannot take.
  void configure(std::size_t n, const LawSettings & s = LawSettings{})
  {
    configure_scratch(n);
    configure_state(s);
  }
  // tau [N m or N] (n values). Allocates nothing, takes no lock.
  virtual void torque(
    DhDynamics & dyn, const LawSettings & s, const LawInput & x, double * tau) noexcept = 0;
  // After each cycle whose torque this law gave, at `now` [s]: a law with state (adaptive's
  // estimate) updates it when `allowed` (active, no contact) and holds it otherwise.
  virtual void adapt(double /*now*/, bool /*allowed*/) noexcept {}
  // adaptive: the payload estimate pi (10 values, payload_adaptation.hpp); others: nullptr.
  virtual const double * estimate() const noexcept {return nullptr;}
  // Whether it adds a feed-forward tool wrench (LawInput::wrench): the task-space laws.
  virtual bool takes_wrench() const noexcept {return false;}
  // A task-space law: the tip's J (6 x n row-major, DH frame 0) at the last cycle's state
  // (its manipulability on /diagnostics); others: nullptr.
  virtual const double * tip_jacobian() const noexcept {return nullptr;}

protected:
  void configure_scratch(std::size_t n);
  virtual void configure_state(const LawSettings &) {}
  double compared(const LawSettings & s, const LawInput & x, std::size_t i) const noexcept
  {
    return x.qd_ref[i] - s.velocity_lag * x.qdd_ref[i];
  }
  // tau += Kp (q_r - q) + Kd (qd_c - qd): the torque PD of the laws that add one.
  void add_pd(const LawSettings & s, const LawInput & x, double * tau) const noexcept
  {
    for (std::size_t i = 0; i < n_; ++i) {
      tau[i] += x.kp[i] * (x.q_ref[i] - x.q[i]) + x.kd[i] * (compared(s, x, i) - x.qd[i]);
    }
  }
  // tau -= g(q) when the robot compensates gravity itself.
  void drop_gravity(DhDynamics & dyn, const LawSettings & s, const double * q, double * tau)
  noexcept;
  std::size_t n_ = 0;
  std::vector<double> a_, b_, c_, d_;  // scratch, n each
};

// The law of a mode name, or nullptr for a name no law has.
std::unique_ptr<JointLaw> make_law(const std::string & mode);
// Every mode name, in the registry's order (robodyn_ros.control.laws.MODES).
const std::vector<std::string> & law_names();

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__JOINT_LAWS_HPP_
