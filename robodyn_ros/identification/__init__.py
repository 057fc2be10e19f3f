"""Identification of joint friction and a tip payload from recorded motion (a rosbag2):
the regressor, physically consistent estimates, excitation trajectories. No rclpy."""

from ..model.inertial_parameters import from_vector, is_consistent, to_vector
from .regressor import PayloadRegressor, friction_regressor, with_payload

__all__ = ['PayloadRegressor', 'friction_regressor', 'from_vector', 'is_consistent',
           'to_vector', 'with_payload']
