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

__all__ = ['Adaptation', 'Cartesian', 'JointLaw', 'LawConfig', 'LawInput']


@dataclass(frozen=True)
class Adaptation:
    """The adaptive law's settings (laws/adaptive.py): ``gamma`` the adaptation rates of the
    mass, the first moments and the inertia (Gamma's diagonal; with Y^T s in N m rad/s per
    unit of the parameter, Gamma Y^T s is that parameter's rate: kg/s, kg m/s, kg m^2/s),
    ``mass_max`` [kg] the heaviest payload the estimate may reach, ``rest_speed`` [rad/s or
    m/s] below which a joint is at rest."""

    gamma: tuple[float, ...] = (0.2, 0.005, 5e-5)
    mass_max: float = 5.0
    rest_speed: float = 0.01

    def diagonal(self) -> np.ndarray:
        """Gamma's diagonal (10,) in pi's order [m, mc (3), I_O (6)]."""
        g = np.resize(np.asarray(self.gamma, dtype=float), 3)  # one value: every parameter
        return np.array([g[0], g[1], g[1], g[1], *([g[2]] * 6)])


@dataclass(frozen=True)
class Cartesian:
    """The task-space laws' tool spring (laws/cartesian_impedance.py): ``stiffness`` K_x
    per axis of DH frame 0, [N/m] x 3 then [N m/rad] x 3; ``damping_ratio`` zeta of D_x on
    the task-space inertia's diagonal."""

    stiffness: tuple[float, ...] = (500.0, 500.0, 500.0, 30.0, 30.0, 30.0)
    damping_ratio: float = 1.0


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
    adaptation: Adaptation = Adaptation()
    cartesian: Cartesian = Cartesian()


@dataclass(frozen=True)
class LawInput:
    """One cycle's inputs, float64 (n,) each: measured q, qd; reference q_r, qd_r, qdd_r;
    qd_c the reference velocity compared with qd (qd_r - velocity_lag qdd_r); ``wrench``
    (6,) the feed-forward wrench at the tool point [N, N m] in DH frame 0 a task-space law
    adds as J^T wrench (reference/wrench_target.py), or None."""

    q: np.ndarray
    qd: np.ndarray
    q_r: np.ndarray
    qd_r: np.ndarray
    qdd_r: np.ndarray
    qd_c: np.ndarray
    wrench: np.ndarray | None = None


class JointLaw:
    """One control law. Subclasses set :attr:`name`, :attr:`gains` and :attr:`equation`
    and implement :meth:`torque`; :meth:`follows_reference` says whether the tracking
    guard applies (a law with nothing pulling the arm to the reference: no)."""

    name: ClassVar[str]
    #: where the law runs: the node (Python) and the C++ plugin (joint_laws.cpp)
    paths: ClassVar[tuple[str, ...]] = ('node', 'plugin')
    #: what kp and kd mean for this law, with units (parameters and docs read it)
    gains: ClassVar[str]
    #: the torque it computes, and the seed equation it rests on
    equation: ClassVar[str]
    #: whether it adds a feed-forward tool wrench (LawInput.wrench): the task-space laws
    takes_wrench: ClassVar[bool] = False

    def follows_reference(self, config: LawConfig) -> bool:
        return True

    def fresh(self, dyn, config: LawConfig) -> 'JointLaw':
        """The instance a controller uses: this one (a law without state), or a new one
        holding the state of a law that has some (adaptive's estimate)."""
        return self

    def adapt(self, now: float, allowed: bool) -> None:
        """After each commanded cycle at ``now`` [s]: a law with state updates it when
        ``allowed`` (active, no contact); the others do nothing."""

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
