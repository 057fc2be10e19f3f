"""Reference stage of validation: what the arm should have done, evaluated at the
measured states' times. Two kinds behind one interface (``evaluate(ts, final)`` ->
(mask of evaluable states, q_ref), ``pending_after(ts)``):

* :class:`SampledReference`: reference samples (t, q, qd) (a ``*/reference`` JointState or
  a JointTrajectoryControllerState), interpolated by cubic Hermite;
* :class:`TrajectoryReference`: JointTrajectory messages, converted by the controller
  core's own conversion (control.trajectory_message), so the two cannot disagree.
"""

import numpy as np

from ..control import JointMap, trajectory_from_message
from ..errors import BagError, InputError
from .error_fit import reference_rates
from .metrics import hermite

__all__ = ['SampledReference', 'TrajectoryReference']


#: A state between two recorded reference samples further apart than this [s] is not
#: compared: the recorder lost the reference there (a lagging recorder loses seconds), and
#: a cubic across such a gap is not the reference (its error grows as gap^4: 1e-6 rad at
#: 50 ms for a 2 s sine of 0.5 rad, 0.1 rad at 1 s).
MAX_INTERPOLATED_GAP = 0.05


class SampledReference:
    """Reference samples (t, q, qd) interpolated by cubic Hermite onto state times;
    ``in_gaps`` counts the states left uncompared in a gap (MAX_INTERPOLATED_GAP)."""

    def __init__(self):
        self.in_gaps = 0
        self.t = np.zeros(0)
        self.q: np.ndarray | None = None  # (m, n), None before the first merge
        self.qd: np.ndarray | None = None
        self.pending: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def add(self, t, q, qd):
        self.pending.append((np.array([t]), np.asarray(q)[None, :], np.asarray(qd)[None, :]))

    def add_arrays(self, t, q, qd):
        self.pending.append((t, q, qd))

    def _merge(self):
        if not self.pending:
            return
        t = np.concatenate([p[0] for p in self.pending])
        q = np.concatenate([p[1] for p in self.pending])
        qd = np.concatenate([p[2] for p in self.pending])
        self.pending = []
        # the usual case: the new samples strictly later than the kept ones and in order
        in_order = bool((np.diff(t) > 0).all()) and (
            self.q is None or not len(self.t) or t[0] > self.t[-1])
        if self.q is None:
            self.t, self.q, self.qd = t, q, qd
        else:
            self.t = np.concatenate([self.t, t])
            self.q = np.concatenate([self.q, q])
            self.qd = np.concatenate([self.qd, qd])
        if in_order:
            return
        order = np.argsort(self.t, kind='stable')
        self.t, self.q, self.qd = self.t[order], self.q[order], self.qd[order]
        keep = np.concatenate([np.diff(self.t) > 0, [True]])
        self.t, self.q, self.qd = self.t[keep], self.q[keep], self.qd[keep]

    def evaluate(self, ts, final=False):
        """(mask of evaluable states, q_ref, (qd_ref, qdd_ref) at them:
        error_fit.reference_rates) and drop consumed samples."""
        self._merge()
        if self.q is None or self.qd is None or len(self.t) < 2:
            return np.zeros(len(ts), bool), None, None
        ok = (ts >= self.t[0]) & (ts <= self.t[-1])
        tsel = ts[ok]
        at = np.searchsorted(self.t, tsel, side='right') - 1
        k = np.clip(at, 0, len(self.t) - 2)
        if len(tsel) and (self.t[at] == tsel).all():
            q = self.q[at]  # every state has a sample at its own time (the usual bag)
        else:
            q = hermite(tsel, self.t[k], self.t[k + 1], self.q[k], self.q[k + 1], self.qd[k],
                        self.qd[k + 1])
        rates = reference_rates(self.t, self.qd, tsel, k)
        far = (self.t[at] != tsel) & (self.t[k + 1] - self.t[k] > MAX_INTERPOLATED_GAP)
        if far.any():  # no reference was recorded near these states
            self.in_gaps += int(np.count_nonzero(far))
            ok = ok.copy()
            ok[np.flatnonzero(ok)[far]] = False
            q, rates = q[~far], (rates[0][~far], rates[1][~far])
        if not final and len(ts):
            cut = max(np.searchsorted(self.t, ts.max(), side='right') - 2, 0)
            self.t, self.q, self.qd = self.t[cut:], self.q[cut:], self.qd[cut:]
        return ok, q, rates

    def pending_after(self, ts):
        """States later than the last reference sample (they wait for more samples); all
        of them while fewer than two samples exist (nothing can be interpolated yet, so
        whether a state is compared must not depend on how the bag interleaves them)."""
        self._merge()
        if self.q is None or len(self.t) < 2:
            return np.ones(len(ts), bool)
        return ts > self.t[-1]


class TrajectoryReference:
    """JointTrajectory messages, interpolated as the controller does."""

    def __init__(self, joints):
        self.joints = joints
        self.active = None

    def update(self, msg, t, last_q):
        if self.active is None:
            self.start = t
        self.active = trajectory_reference(msg, self.joints, t, self.active, last_q)

    def evaluate(self, ts, final=False):
        """(mask, q_ref, None): the rates are not fitted on a commanded trajectory."""
        if self.active is None:
            return np.zeros(len(ts), bool), np.zeros((0, len(self.joints))), None
        ok = ts >= self.start  # no reference before the first trajectory message
        q = np.array([self.active(t)[0] for t in ts[ok]]).reshape(-1, len(self.joints))
        return ok, q, None

    def pending_after(self, ts):
        return np.zeros(len(ts), bool)


def trajectory_reference(msg, joints, t, previous, last_q):
    """The reference a JointTrajectory gives, by the controller's own conversion
    (control.trajectory_message), from the current reference; a message the controller
    would reject leaves the previous reference (the controller kept it too)."""
    n = len(joints)
    joint_map = JointMap(joints)
    try:
        if previous is not None:
            start = previous(t)
        elif last_q is not None:
            start = (np.asarray(last_q, dtype=float), np.zeros(n), np.zeros(n))
        elif msg.points:
            first = joint_map.positions(msg.joint_names, msg.points[0].positions,
                                        np.zeros(n))
            start = (first, np.zeros(n), np.zeros(n))
        else:
            raise InputError('no points')
        return trajectory_from_message(msg, joint_map, start, t)
    except InputError as exc:
        if previous is None:
            raise BagError(f'JointTrajectory at {t:.3f} s: {exc}') from None
        return previous
