"""The seed formulations: M, C and g in closed form, as the papers write them.

The reference the compiled path is checked against, not the 1 kHz path: they form
n x n^2 and n^3 arrays (seed 000 eq. 28, 31, 45, 52; seed 003 eq. 49, 55), exact and slow.
``link_kinematics`` (poses, Jacobians and their derivatives) feeds ``mass_matrix``,
``coriolis_matrix`` and ``gravity_vector``.
"""
