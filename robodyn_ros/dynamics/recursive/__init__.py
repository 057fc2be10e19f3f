"""The 1 kHz path: recursive dynamics compiled with numba, read on its own.

``recursive_params`` packs a chain into one float array (plain numpy: importing this
package does not load numba); ``newton_euler`` runs inverse dynamics and the controller's
computed torque on it (one pass); ``composite_rigid_body`` forms M, C and g when they are
wanted as matrices. The C++ controller (robodyn_controllers/src/dh_dynamics.cpp) runs the
same recursion on the same rows.
"""
