"""The interface every joint-space law implements, and the settings they share.

A law maps the measured state (q, qd) and the reference (q_r, qd_r, qdd_r) to a torque
with a RigidBodyDynamics. It sees ``qd_c = qd_r - velocity_lag qdd_r``, the reference
velocity of the instant the measured velocity stands for (laws/__init__.py says why), in
every term that compares a velocity with the measured one; terms of the reference's own
motion use qd_r. One module per law; the registry (laws/__init__.py) names them.
"""

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

__all__ = ['JointLaw', 'LawConfig', 'LawInput']


@dataclass(frozen=True)
class LawConfig:
    """Settings of a law (gains per joint, their units the law's: :attr:`JointLaw.gains`)."""

    mode: str
    kp: np.ndarray
    kd: np.ndarray
    include_gravity: bool = True
    include_friction: bool = True
    feedforward_pd: bool = False
    velocity_lag: float = 0.0
    inertia_feedforward: bool = True


@dataclass(frozen=True)
class LawInput:
    """One cycle's inputs, float64 (n,) each: measured q, qd; reference q_r, qd_r, qdd_r;
    qd_c the reference velocity compared with qd (qd_r - velocity_lag qdd_r)."""

    q: np.ndarray
    qd: np.ndarray
    q_r: np.ndarray
    qd_r: np.ndarray
    qdd_r: np.ndarray
    qd_c: np.ndarray


class JointLaw:
    """One control law. Subclasses set :attr:`name`, :attr:`gains` and :attr:`equation`
    and implement :meth:`torque`; :meth:`follows_reference` says whether the tracking
    guard applies (a law with nothing pulling the arm to the reference: no)."""

    name: ClassVar[str]
    #: what kp and kd mean for this law, with units (parameters and docs read it)
    gains: ClassVar[str]
    #: the torque it computes, and the seed equation it rests on
    equation: ClassVar[str]

    def follows_reference(self, config: LawConfig) -> bool:
        return True

    def torque(self, dyn, config: LawConfig, x: LawInput) -> np.ndarray:
        """The torque (n,) [N m or N], a new array the caller may keep."""
        raise NotImplementedError

    @staticmethod
    def pd(config: LawConfig, x: LawInput) -> np.ndarray:
        """Kp (q_r - q) + Kd (qd_c - qd): the torque PD of the laws that add one."""
        return config.kp * (x.q_r - x.q) + config.kd * (x.qd_c - x.qd)

    @staticmethod
    def gravity_dropped(dyn, config: LawConfig, q: np.ndarray, tau: np.ndarray) -> np.ndarray:
        """``tau`` without g(q) when the robot compensates gravity itself."""
        if not config.include_gravity:
            tau -= dyn.gravity_vector(q)
        return tau
