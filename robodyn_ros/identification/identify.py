"""Least-squares identification of joint friction and a tip payload, physically consistent.

Motion: positions are low-pass filtered forwards and backwards (4th-order Butterworth,
``cutoff`` Hz, scipy ``filtfilt``: zero phase, so the accelerations are not delayed against
the torques), then differentiated twice by central differences; the torques get the same
filter (same bandwidth and phase as the accelerations). The measured velocity is not used:
it is noisier than the filtered derivative of the position on most arms.

Fit: tau - tau_0 = Y_p pi_p + diag(qd) k + diag(sgn qd) c (see :mod:`.regressor`) over the
first ``1 - holdout`` of the samples, with pi_p in the log-Cholesky parametrisation (mass >
0, inertia positive definite, triangle inequalities) and k, c >= 0, by scipy's
``least_squares`` from the linear least-squares solution. The residual RMS before (the
URDF model, its own friction, no payload) and after is taken on the held-out rest.
"""

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..model.inertial_parameters import from_log_cholesky, log_cholesky
from .regressor import PayloadRegressor, friction_regressor

__all__ = ['Identification', 'filtered_motion', 'identify', 'MAX_CONDITION', 'MIN_SECONDS']

#: Above this condition number of the (column-scaled) stacked regressor the motion does
#: not excite every parameter: no estimate.
MAX_CONDITION = 1000.0
MIN_SECONDS = 2.0
#: A fit explains the torques when, on every joint, the held-out residual is at most this
#: fraction of the held-out torque's RMS (about 90 % of its energy explained) or below
#: EXPLAINED_FLOOR x the joint's effort limit (a joint that carries little torque; 0.1 N m
#: without a limit).
EXPLAINED_FRACTION, EXPLAINED_FLOOR = 0.3, 0.02
#: [rad/s or m/s] below this a joint's samples do not enter the fit (friction sticks).
MIN_SPEED = 0.05
#: [s] dropped at both ends: the zero-phase filter's transients last that long.
EDGE = 0.2


@dataclass
class Identification:
    """Estimates with standard errors, and the held-out residual RMS per joint [N m]."""

    payload: np.ndarray | None
    viscous: np.ndarray | None
    coulomb: np.ndarray | None
    standard_errors: dict = field(default_factory=dict)
    rms_before: np.ndarray | None = None
    rms_after: np.ndarray | None = None
    condition_number: float = 0.0
    samples: int = 0
    held_out: int = 0
    plot: tuple | None = None


def filtered_motion(t, q, tau, cutoff=10.0):
    """(q, qd, qdd, tau) zero-phase filtered (see the module docstring), on a uniform
    grid of the median period."""
    from scipy.signal import butter, filtfilt
    dt = float(np.median(np.diff(t)))
    if not dt > 0:
        raise InputError('identify: state stamps do not advance')
    b, a = butter(4, min(cutoff * 2.0 * dt, 0.99))
    qf, tauf = filtfilt(b, a, q, axis=0), filtfilt(b, a, tau, axis=0)
    qd = np.gradient(qf, dt, axis=0)
    return qf, qd, np.gradient(qd, dt, axis=0), tauf


def _rows(regressor, q, qd, qdd, smoothing, payload, friction):
    blocks, known = [], []
    for k in range(len(q)):
        parts = []
        if payload:
            parts.append(regressor.payload(q[k], qd[k], qdd[k]))
        if friction:
            parts.append(friction_regressor(qd[k], smoothing))
        blocks.append(np.hstack(parts))
        known.append(regressor.known(q[k], qd[k], qdd[k]))
    return np.vstack(blocks), np.concatenate(known)


def _fit(a, b, payload, npay):
    """x = [pi_p (10, consistent)], [k, c >= 0] minimising |a x - b|."""
    from scipy.optimize import least_squares
    x_lin = np.linalg.lstsq(a, b, rcond=None)[0]
    if not payload:
        return x_lin if np.all(x_lin >= 0) else least_squares(
            lambda x: a @ x - b, np.maximum(x_lin, 0.0), bounds=(0.0, np.inf)).x
    start = np.concatenate([log_cholesky(x_lin[:npay]), np.maximum(x_lin[npay:], 0.0)])
    lower = np.concatenate([np.full(npay, -np.inf), np.zeros(len(x_lin) - npay)])

    def residual(z):
        return a[:, :npay] @ from_log_cholesky(z[:npay]) + a[:, npay:] @ z[npay:] - b
    with np.errstate(over='ignore', invalid='ignore'):  # trial steps may overflow exp
        z = least_squares(residual, start, bounds=(lower, np.inf), x_scale='jac').x
    return np.concatenate([from_log_cholesky(z[:npay]), z[npay:]])


def identify(model, t, q, tau, payload=True, friction=True, cutoff=10.0, holdout=0.2,
             smoothing=0.01) -> Identification:
    """Estimate a tip payload and/or joint friction from states (t [s], q (m, n)) and joint
    torques tau (m, n) [N m or N].

    Raises:
        InputError: too short, non-finite torques, a motion that does not excite the
            parameters (condition number above MAX_CONDITION), or a fit that does not
            explain the torques (EXPLAINED_FRACTION).
    """
    n = model.n
    span = float(t[-1] - t[0]) if len(t) else 0.0
    if len(t) < 200 or span < MIN_SECONDS:
        raise InputError(f'identify: {span:.2f} s and {len(t)} states is too short; '
                         f'record at least {MIN_SECONDS:g} s of exciting motion')
    if not np.all(np.isfinite(tau)):
        raise InputError('identify: the torques contain non-finite values')
    qf, qd, qdd, tauf = filtered_motion(t, q, tau, cutoff)
    edge = int(round(EDGE / float(np.median(np.diff(t)))))
    keep = slice(edge, len(t) - edge)  # the filter's start and end transients
    qf, qd, qdd, tauf = qf[keep], qd[keep], qdd[keep], tauf[keep]
    split = int(len(qf) * (1.0 - holdout))
    regressor = PayloadRegressor(model)
    a, known = _rows(regressor, qf, qd, qdd, smoothing, payload, friction)
    b = tauf.reshape(-1) - known
    scaled = a / np.maximum(np.linalg.norm(a, axis=0), 1e-12)
    cond = float(np.linalg.cond(scaled[:split * n]))
    if not cond <= MAX_CONDITION:
        raise InputError(f'identify: the motion does not excite the parameters (condition '
                         f'number {cond:.3g} > {MAX_CONDITION:g}); record an excitation '
                         'trajectory (identification.excitation)')
    npay = 10 if payload else 0
    # Rows of a joint moving slower than MIN_SPEED are left out of the fit: there the
    # friction sticks (static friction, a simulator's soft constraint) and neither
    # model term holds; they still count in the held-out residual.
    moving = np.abs(qd[:split]).reshape(-1) >= MIN_SPEED if friction else \
        np.ones(split * n, bool)
    x = _fit(a[:split * n][moving], b[:split * n][moving], payload, npay)
    result = Identification(x[:npay] if payload else None,
                            x[npay:npay + n] if friction else None,
                            x[npay + n:] if friction else None, condition_number=cond,
                            samples=split, held_out=len(qf) - split)
    result.standard_errors = _standard_errors(a[:split * n][moving], b[:split * n][moving],
                                              x, npay, n,
                                              friction)
    _held_out(result, model, qf[split:], qd[split:], qdd[split:], tauf[split:],
              a[split * n:] @ x + known[split * n:], smoothing)
    _check_explained(result, model, tauf[split:])
    return result


def _check_explained(result, model, tau):
    """InputError with the figures when the fit does not explain the held-out torques
    ``tau`` (EXPLAINED_FRACTION, EXPLAINED_FLOOR): the torques are not the model's (a
    command that never reached the arm, a driver that compensates gravity, other joints'
    data), and parameters fitted to them would be confident nonsense."""
    signal = np.sqrt(np.mean(tau ** 2, axis=0))
    effort = np.asarray(model.effort_limits, dtype=float)
    floor = np.where(np.isfinite(effort) & (effort > 0), EXPLAINED_FLOOR * effort, 0.1)
    bad = [j for j in range(model.n) if result.rms_after[j] > floor[j] and
           result.rms_after[j] > EXPLAINED_FRACTION * signal[j]]
    if bad:
        worst = max(bad, key=lambda j: result.rms_after[j] / max(signal[j], 1e-12))
        raise InputError(
            f'identify: the fit does not explain the torques: held-out residual RMS '
            f'{result.rms_after[worst]:.3g} N m on {model.joint_names[worst]} against its '
            f'torque RMS {signal[worst]:.3g} (more than {EXPLAINED_FRACTION:g} of it on '
            f'{len(bad)} joint(s); before the fit {result.rms_before[worst]:.3g}); are these '
            'the torques the model makes (the applied effort, gravity included)? Nothing '
            'written')


def _standard_errors(a, b, x, npay, n, friction):
    dof = max(len(b) - len(x), 1)
    sigma2 = float(np.sum((a @ x - b) ** 2)) / dof
    se = np.sqrt(np.clip(np.diag(np.linalg.pinv(a.T @ a)) * sigma2, 0.0, None))
    out = {'payload': se[:npay].tolist()} if npay else {}
    if friction:
        out.update(viscous=se[npay:npay + n].tolist(), coulomb=se[npay + n:].tolist())
    return out


def _held_out(result, model, q, qd, qdd, tau, predicted, smoothing):
    """RMS of tau - model on the held-out samples, the URDF model before, the fit after."""
    from ..dynamics import RigidBodyDynamics
    urdf = RigidBodyDynamics(model, friction_smoothing=smoothing)
    before = np.array([urdf.inverse_dynamics(q[k], qd[k], qdd[k]) +
                       urdf.friction_torque(qd[k]) for k in range(len(q))])
    after = predicted.reshape(len(q), -1)
    result.rms_before = np.sqrt(np.mean((tau - before) ** 2, axis=0))
    result.rms_after = np.sqrt(np.mean((tau - after) ** 2, axis=0))
    result.plot = (np.arange(len(q)), tau, before, after)
