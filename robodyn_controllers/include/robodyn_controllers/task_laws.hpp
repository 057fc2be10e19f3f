// The task-space laws (cartesian_impedance, operational_space), one class each in
// src/task_laws.cpp over tip_kinematics.hpp and task_space.hpp; make_law (joint_laws.hpp)
// asks here for a mode name that is not a joint-space law's.
#ifndef ROBODYN_CONTROLLERS__TASK_LAWS_HPP_
#define ROBODYN_CONTROLLERS__TASK_LAWS_HPP_

#include <memory>
#include <string>

#include "robodyn_controllers/joint_laws.hpp"

namespace robodyn_controllers
{

// The task-space law of a mode name, or nullptr.
std::unique_ptr<JointLaw> make_task_law(const std::string & mode);

}  // namespace robodyn_controllers

#endif  // ROBODYN_CONTROLLERS__TASK_LAWS_HPP_
