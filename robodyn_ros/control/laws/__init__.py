"""The joint-space control laws, one class per module, and their registry.

Every place that names a mode reads :data:`MODES` (the node's ``mode`` parameter, the
CLI's ``--mode``, ``robodyn demo``, the generated docs) or is tested against it (the C++
controller's parameter YAML ``one_of`` and its law classes, robodyn_controllers/
include/robodyn_controllers/joint_laws.hpp). A new law: one module here, its entry in
:data:`LAWS`, one class in joint_laws.hpp / joint_laws.cpp, one conformance case (a law
the C++ controller does not have says so in its ``paths``).

``include_gravity=False`` drops g (robots that compensate gravity internally in torque
mode: Franka, Kinova, UR direct_torque); ``include_friction`` adds the friction model.

``velocity_lag`` [s]: e_dot = qd_r(t - lag) - qd ~= qd_r - lag qdd_r - qd, the age of the
measured velocity relative to the measured position. Why: a simulator that integrates
with semi-implicit Euler (MuJoCo's split step, Gazebo's DART) reports the step's mean
velocity, (q_k+1 - q_k) / dt, the velocity half a step before the position's instant;
compared with qd_r(t) it feeds Kd (dt / 2) qdd_r forward, and the arm leads the reference
by (Kd dt / 2) / Kp qdd_r (5e-5 s^2 at Kp = 400, Kd = 40, 1 ms).
"""

from dataclasses import replace

import numpy as np

from ...errors import InputError
from .adaptive import Adaptive
from .cartesian_impedance import CartesianImpedance
from .computed_torque import ComputedTorque
from .feedforward import Feedforward
from .gain_blend import GainBlend, checked_gains
from .gravity import Gravity
from .joint_impedance import JointImpedance
from .law import Adaptation, Cartesian, JointLaw, LawConfig, LawInput
from .operational_space import OperationalSpace
from .passivity import Passivity

__all__ = ['LAWS', 'MODES', 'PLUGIN_MODES', 'Adaptation', 'Cartesian', 'ControlLaw',
           'JointLaw', 'LawConfig', 'LawInput']

#: Every law by its mode name, in the order the options are listed.
LAWS: dict[str, JointLaw] = {law.name: law for law in (
    ComputedTorque(), Feedforward(), Gravity(), JointImpedance(), Passivity(), Adaptive(),
    CartesianImpedance(), OperationalSpace())}
MODES = tuple(LAWS)
#: The laws the C++ controller has too (joint_laws.cpp; its parameter YAML's one_of).
PLUGIN_MODES = tuple(m for m in MODES if 'plugin' in LAWS[m].paths)


class ControlLaw:
    """Evaluate the configured law with a RigidBodyDynamics object (validated once)."""

    def __init__(self, dynamics, config: LawConfig):
        if config.mode not in LAWS:
            raise InputError(f'unknown mode {config.mode!r}; valid: {", ".join(MODES)}')
        self.kp, self.kd = checked_gains(dynamics.n, config.kp, config.kd)
        lag = config.velocity_lag
        if not (np.isfinite(lag) and 0.0 <= lag <= 0.01):
            raise InputError(f'velocity_lag: expected 0 to 0.01 s, got {lag!r}')
        self.dyn = dynamics
        self.config = LawConfig(config.mode, self.kp, self.kd, config.include_gravity,
                                config.include_friction, config.feedforward_pd, lag,
                                config.inertia_feedforward, config.adaptation,
                                _checked_cartesian(config.cartesian))
        self.law = LAWS[config.mode].fresh(dynamics, self.config)
        self.gains = GainBlend()  # gains set while running (gain_blend.py)
        self.spring = GainBlend()  # the tool spring set while running: K_x, zeta x 6
        self._spring = (np.array(self.config.cartesian.stiffness, dtype=float),
                        np.full(6, float(self.config.cartesian.damping_ratio)))

    @property
    def blending(self) -> bool:
        """A gain or tool-spring blend is under way, or a request waits."""
        return self.gains.active or self.spring.active

    @property
    def follows_reference(self) -> bool:
        """Whether the tracking guard applies (the law pulls the arm to the reference)."""
        return self.law.follows_reference(self.config)

    def request_gains(self, kp, kd) -> None:
        """New kp and kd (any thread): ValueError naming a bad one, else blended in
        between cycles by :meth:`step_gains`."""
        self.gains.request(*checked_gains(self.dyn.n, kp, kd))

    def request_spring(self, stiffness, damping_ratio) -> None:
        """A new tool spring (cartesian.*; any thread): ValueError naming a bad value, else
        blended in between cycles by :meth:`step_gains`, as kp and kd are: a stiffer spring
        switched in at once is a torque step of J^T (K1 - K0) e_x."""
        spring = _checked_cartesian(Cartesian(tuple(stiffness), damping_ratio))
        self.spring.request(np.array(spring.stiffness), np.full(6, spring.damping_ratio))

    def step_gains(self, now: float, duration: float) -> bool:
        """Between cycles at ``now`` [s]: the gain and spring blends' next step over
        ``duration`` [s]; True when kp or kd changed (in place: the config shares the
        arrays). A changed spring is a new config.cartesian."""
        changed = self.gains.step(now, self.kp, self.kd, duration)
        if self.spring.active and self.spring.step(now, *self._spring, duration):
            k, zeta = self._spring
            self.config = replace(self.config, cartesian=Cartesian(
                tuple(float(v) for v in k), float(zeta[0])))
        return changed

    def adapt(self, now: float, allowed: bool) -> None:
        """After the cycle's torque at ``now`` [s]: a law with state (adaptive) updates it
        when ``allowed`` (active, no contact), else holds it."""
        self.law.adapt(now, allowed)

    def __call__(self, q, qd, q_ref, qd_ref, qdd_ref, wrench=None):
        """Torque (n,) [N m or N] for the measured and reference state (and a task-space
        law's feed-forward ``wrench``, LawInput)."""
        q, qd, q_ref, qd_ref, qdd_ref = (np.asarray(v, dtype=float)
                                         for v in (q, qd, q_ref, qd_ref, qdd_ref))
        lag = self.config.velocity_lag
        qd_c = qd_ref if lag == 0.0 else qd_ref - lag * qdd_ref
        return self.law.torque(self.dyn, self.config, LawInput(q, qd, q_ref, qd_ref, qdd_ref,
                                                               qd_c, wrench))


def _checked_cartesian(spring: Cartesian) -> Cartesian:
    """``spring`` with its stiffness as six floats; InputError naming a bad value."""
    k = np.asarray(spring.stiffness, dtype=float).ravel()
    if k.shape != (6,) or not np.all(np.isfinite(k)) or np.any(k < 0.0):
        raise InputError(f'cartesian.stiffness: expected 6 finite values >= 0 (N/m x 3, '
                         f'N m/rad x 3), got {list(spring.stiffness)!r}')
    zeta = float(spring.damping_ratio)
    if not (np.isfinite(zeta) and 0.0 <= zeta <= 5.0):
        raise InputError(f'cartesian.damping_ratio: expected 0 to 5, got {zeta!r}')
    return Cartesian(tuple(float(v) for v in k), zeta)
