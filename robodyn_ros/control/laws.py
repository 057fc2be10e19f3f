"""Control laws producing joint torques from the dynamics core.

* feedforward (seed 000 eq. 72): tau = M(q_r) qdd_r + C(q_r, qd_r) qd_r + g(q_r)
  [+ tau_f(qd_r)] [+ Kp e + Kd e_dot];
* computed_torque: tau = M(q)(qdd_r + Kd e_dot + Kp e) + C(q, qd) qd + g(q) [+ tau_f(qd)];
* gravity: tau = g(q) [+ Kp e + Kd e_dot].

e = q_r - q; e_dot = qd_r(t - lag) - qd ~= qd_r - lag qdd_r - qd, with ``velocity_lag``
the age of the measured velocity relative to the measured position. Why: a simulator
that integrates with semi-implicit Euler (MuJoCo's split step, Gazebo's DART) reports
the step's mean velocity, (q_k+1 - q_k) / dt, which is the velocity half a step before
the position's instant; compared with qd_r(t) it feeds Kd (dt / 2) qdd_r forward, and the
arm leads the reference by (Kd dt / 2) / Kp qdd_r (5e-5 s^2 at Kp = 400, Kd = 40, 1 ms).

``include_gravity=False`` drops g (robots that compensate gravity internally in torque
mode: Franka, Kinova, UR direct_torque); ``include_friction`` adds the friction model.
"""

from dataclasses import dataclass

import numpy as np

from ..errors import InputError

__all__ = ['MODES', 'LawConfig', 'ControlLaw']

MODES = ('computed_torque', 'feedforward', 'gravity')
_F64 = np.dtype(np.float64)


@dataclass(frozen=True)
class LawConfig:
    """Settings of a :class:`ControlLaw` (gains per joint: kp [1/s^2 or N m/rad], kd)."""

    mode: str
    kp: np.ndarray
    kd: np.ndarray
    include_gravity: bool = True
    include_friction: bool = True
    feedforward_pd: bool = False
    velocity_lag: float = 0.0


class ControlLaw:
    """Evaluate the chosen law with a RigidBodyDynamics object.

    For 'computed_torque', kp and kd are acceleration gains (the PD acts through M(q));
    for 'feedforward' (with feedforward_pd) and 'gravity', they are torque gains.
    """

    def __init__(self, dynamics, config):
        if config.mode not in MODES:
            raise InputError(f'unknown mode {config.mode!r}; valid: {", ".join(MODES)}')
        n = dynamics.n
        self.kp = np.asarray(config.kp, dtype=float)
        self.kd = np.asarray(config.kd, dtype=float)
        for name, gains in (('kp', self.kp), ('kd', self.kd)):
            if gains.shape != (n,) or not np.all(np.isfinite(gains)) or np.any(gains < 0):
                raise InputError(f'{name}: expected ({n},) finite gains >= 0, got {gains!r}')
        lag = config.velocity_lag
        if not (np.isfinite(lag) and 0.0 <= lag <= 0.01):
            raise InputError(f'velocity_lag: expected 0 to 0.01 s, got {lag!r}')
        self.dyn = dynamics
        self.config = config
        self._zero = np.zeros(n)
        self._shape = (n,)

    def _plain(self, a):
        return type(a) is np.ndarray and a.dtype is _F64 and a.shape == self._shape

    def __call__(self, q, qd, q_ref, qd_ref, qdd_ref):
        """Torque (n,) [N m or N] for the measured and reference state."""
        cfg, dyn = self.config, self.dyn
        # the reference velocity at the instant the measured one stands for (module doc)
        qd_cmp = qd_ref if cfg.velocity_lag == 0.0 else \
            np.asarray(qd_ref, dtype=float) - cfg.velocity_lag * np.asarray(qdd_ref, dtype=float)
        if cfg.mode == 'computed_torque':
            if self._plain(q) and self._plain(qd) and self._plain(q_ref) and \
                    self._plain(qd_cmp) and self._plain(qdd_ref):
                tau = dyn.computed_torque_prechecked(q, qd, q_ref, qd_cmp, qdd_ref, self.kp,
                                                     self.kd, cfg.include_friction)
            else:
                tau = dyn.computed_torque(q, qd, q_ref, qd_cmp, qdd_ref, self.kp, self.kd,
                                          friction=cfg.include_friction)
            if not cfg.include_gravity:
                tau -= dyn.gravity_vector(q)
            return tau
        if cfg.mode == 'feedforward':
            tau = dyn.inverse_dynamics(q_ref, qd_ref, qdd_ref)
            if not cfg.include_gravity:
                tau -= dyn.gravity_vector(q_ref)
            if cfg.include_friction:
                tau += dyn.friction_torque(qd_ref)
        else:
            tau = dyn.gravity_vector(q) if cfg.include_gravity else np.zeros(dyn.n)
            if cfg.include_friction:
                tau += dyn.friction_torque(qd)
        if cfg.mode == 'gravity' or cfg.feedforward_pd:
            tau += self.kp * (np.asarray(q_ref) - q) + self.kd * (np.asarray(qd_cmp) - qd)
        return tau
