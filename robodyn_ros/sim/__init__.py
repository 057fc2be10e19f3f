"""MuJoCo simulation of a RobotModel's URDF chain. No ROS imports."""

from .mujoco_sim import MujocoSim, mjcf_from_model

__all__ = ['MujocoSim', 'mjcf_from_model']
