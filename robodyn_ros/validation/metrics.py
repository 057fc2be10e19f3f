"""Streaming tracking-error, timing and residual statistics (bounded memory)."""

import numpy as np

from .report_schema import JointTracking, OverallTracking, TrackingResult

__all__ = ['TrackingStats', 'TimingStats', 'ResidualStats', 'Decimator', 'hermite']


def hermite(t, t0, t1, p0, p1, v0, v1):
    """Cubic Hermite interpolation between (t0, p0, v0) and (t1, p1, v1), vectorised over t:
    p0 + s (h v0 + s (3 dp - h (2 v0 + v1) + s (h (v0 + v1) - 2 dp))) with h = t1 - t0,
    s = (t - t0) / h and dp = p1 - p0 (the basis functions h00..h11 gathered by powers of
    s, evaluated by Horner's rule: a third of the operations)."""
    h = (t1 - t0)[:, None]
    s = ((t - t0) / (t1 - t0))[:, None]
    dp = p1 - p0
    hv0, hv1 = h * v0, h * v1
    # in place, the operations and their order exactly those of the formula above (the
    # same bits): five (m, n) arrays instead of fourteen, on millions of states a bag
    inner = hv0 + hv1
    tmp = np.multiply(dp, 2.0)
    inner -= tmp                      # hv0 + hv1 - 2 dp
    inner *= s
    dp *= 3.0
    dp -= np.multiply(hv0, 2.0, out=tmp)
    dp -= hv1
    dp += inner                       # 3 dp - 2 hv0 - hv1 + s (...)
    dp *= s
    dp += hv0
    dp *= s
    dp += p0
    return dp


class TrackingStats:
    """Per-joint RMS, max |e|, final e, time within a band and settling time, accumulated
    chunk by chunk. Non-finite errors are counted per joint, left out of RMS and max, and
    count as out of band."""

    def __init__(self, n, tolerance):
        self.n = n
        self.tolerance = tolerance
        self.count = 0
        self.excluded = 0  # states after a stall, counted apart (validation.alignment)
        self.finite = np.zeros(n, dtype=np.int64)  # finite samples per joint
        self.sumsq = np.zeros(n)
        self.maxabs = np.zeros(n)
        self.final = np.zeros(n)
        self.in_band = np.zeros(n)
        self.last_out = np.full(n, -np.inf)  # last time |e| exceeded the band
        self.t_first: float | None = None  # [s], set by the first add()
        self.t_last: float | None = None

    def add(self, t, err):
        """Add errors ``err`` (m, n) at times ``t`` (m,) [s]."""
        if len(t) == 0:
            return
        if self.t_first is None:
            self.t_first = float(t[0])
        self.t_last = float(t[-1])
        self.count += len(t)
        finite = np.isfinite(err)
        if finite.all():  # the usual chunk: no masking, no copy
            self.finite += len(t)
            clean = err
        else:
            self.finite += finite.sum(axis=0)
            clean = np.where(finite, err, 0.0)  # non-finite samples: counted, out of band
        self.sumsq += np.einsum('ij,ij->j', clean, clean)
        self.maxabs = np.maximum(self.maxabs, np.maximum(clean.max(axis=0), -clean.min(axis=0)))
        self.final = err[-1].copy()
        outside = np.abs(clean) > self.tolerance  # one pass, not three (millions a bag)
        if clean is not err:
            outside |= ~finite
        self.in_band += len(t) - outside.sum(axis=0)
        last = len(t) - 1 - np.argmax(outside[::-1], axis=0)  # each joint's last outside
        self.last_out = np.where(outside.any(axis=0), t[last], self.last_out)

    def result(self, names: list[str]) -> TrackingResult | None:
        """Per joint and overall, in radians or metres; None before any sample."""
        if self.count == 0 or self.t_first is None or self.t_last is None:
            return None
        with np.errstate(invalid='ignore', divide='ignore'):
            rms = np.where(self.finite > 0, np.sqrt(self.sumsq / self.finite), np.nan)
        joints = {}
        for j, name in enumerate(names):
            settle = 0.0 if not np.isfinite(self.last_out[j]) else \
                float(self.last_out[j] - self.t_first)
            # + 0.0: an error of -0.0 is reported as 0 (never '-0.000e+00')
            joints[name] = JointTracking(rms=float(rms[j]) + 0.0,
                                         max_abs=float(self.maxabs[j]) + 0.0,
                                         final=float(self.final[j]) + 0.0,
                                         time_in_band=float(self.in_band[j] / self.count),
                                         settling_time=settle,
                                         non_finite=int(self.count - self.finite[j]))
        overall = OverallTracking(
            rms=float(np.sqrt(self.sumsq.sum() / max(self.finite.sum(), 1))),
            max_abs=float(self.maxabs.max()) + 0.0, samples=int(self.count),
            duration=float(self.t_last - self.t_first),
            excluded_after_stalls=int(self.excluded))
        return TrackingResult(joints=joints, overall=overall)


class TimingStats:
    """Loop timing from message stamps: rate, jitter percentiles, gaps, dropped cycles."""

    def __init__(self, max_keep=2_000_000):
        self.dts = []
        self.kept = 0
        self.max_keep = max_keep
        self.count = 0
        self.first: float | None = None  # [s], set by the first add()
        self.last: float | None = None
        self.backwards = 0

    def add(self, stamps):
        """Add stamps [s] in arrival order."""
        stamps = np.asarray(stamps, dtype=float)
        if stamps.size == 0:
            return
        seq = stamps if self.last is None else np.concatenate([[self.last], stamps])
        dt = np.diff(seq)
        self.backwards += int((dt < 0).sum())
        if self.kept < self.max_keep:
            take = dt[:self.max_keep - self.kept]
            self.dts.append(take)
            self.kept += len(take)
        if self.first is None:
            self.first = float(stamps[0])
        self.last = float(stamps[-1])
        self.count += len(stamps)

    def result(self):
        """Rate [Hz], dt percentiles [ms], gaps and dropped cycles."""
        if self.count < 2 or self.first is None or self.last is None:
            return None
        dt = np.concatenate(self.dts) if self.dts else np.zeros(0)
        dt = dt[dt > 0]
        nominal = float(np.median(dt)) if dt.size else 0.0
        gaps = dt[dt > 1.5 * nominal] if nominal > 0 else np.zeros(0)
        dropped = int(np.round(gaps / nominal).sum() - gaps.size) if nominal > 0 else 0
        duration = self.last - self.first
        # both percentiles from one array of deviations (millions of periods: one copy)
        p50, p99 = np.percentile(np.abs(dt - nominal), [50, 99]) if dt.size else (0.0, 0.0)
        return dict(messages=int(self.count), duration=float(duration),
                    rate_hz=float((self.count - 1) / duration) if duration > 0 else 0.0,
                    nominal_period_ms=nominal * 1e3,
                    jitter_p50_ms=float(p50 * 1e3), jitter_p99_ms=float(p99 * 1e3),
                    gaps=int(gaps.size), dropped_cycles=dropped,
                    backward_jumps=int(self.backwards))

    def periods(self):
        """Kept periods [s] (for the histogram)."""
        return np.concatenate(self.dts) if self.dts else np.zeros(0)


class ResidualStats:
    """Per-joint RMS and R^2 of measured effort against the model's prediction."""

    def __init__(self, n):
        self.count = 0
        self.sumsq = np.zeros(n)
        self.sum_y = np.zeros(n)
        self.sum_y2 = np.zeros(n)

    def add(self, measured, predicted):
        """Add (m, n) measured and predicted efforts."""
        if len(measured) == 0:
            return
        r = measured - predicted
        self.count += len(measured)
        self.sumsq += (r ** 2).sum(axis=0)
        self.sum_y += measured.sum(axis=0)
        self.sum_y2 += (measured ** 2).sum(axis=0)

    def result(self, names):
        """{'joints': {name: {rms, r2}}}."""
        if self.count == 0:
            return None
        ss_tot = self.sum_y2 - self.sum_y ** 2 / self.count
        r2 = np.where(ss_tot > 0, 1.0 - self.sumsq / np.maximum(ss_tot, 1e-300), np.nan)
        return {'samples': int(self.count), 'joints': {
            name: dict(rms=float(np.sqrt(self.sumsq[j] / self.count)), r2=float(r2[j]))
            for j, name in enumerate(names)}}


class Decimator:
    """Keep at most ~``limit`` evenly spaced rows of a stream for plotting."""

    def __init__(self, limit=20000):
        self.limit = limit
        self.stride = 1
        self.rows = []
        self.seen = 0
        self.kept = 0  # rows kept so far (a running count: adds of one sample stay O(1))

    def add(self, *columns):
        """Add aligned arrays (first axis = samples)."""
        m = len(columns[0])
        first = -self.seen % self.stride  # the rows whose running index is a multiple
        if first < m:                     # of the stride: a strided slice, copied (a
            keep = slice(first, m, self.stride)  # view would hold the whole chunk)
            self.rows.append(tuple(np.array(np.asarray(c)[keep]) for c in columns))
            self.kept += len(range(first, m, self.stride))
        self.seen += m
        if self.kept > 2 * self.limit:
            merged = self.get()
            self.rows = [tuple(c[::2] for c in merged)]
            self.kept = len(self.rows[0][0])
            self.stride *= 2

    def get(self):
        """Concatenated kept columns."""
        if not self.rows:
            return None
        return tuple(np.concatenate([r[k] for r in self.rows]) for k in range(len(self.rows[0])))
