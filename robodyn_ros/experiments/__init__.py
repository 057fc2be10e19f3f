"""Experiments that measure the package against the seed papers and the JTC: seed 000's
validation reproduced (``robodyn reproduce``) and the trajectory feed-forward measurement.
Each is a library function behind a ``robodyn`` command; no ROS imports."""
