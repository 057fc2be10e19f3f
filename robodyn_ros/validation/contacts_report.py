"""What `robodyn contacts` and `robodyn validate --collision` print of a ContactScan."""

import numpy as np

from ..dynamics.contact_wrench import tool_wrench
from ..model.robot_model import RobotModel
from .contacts import TRUTH_TOPIC, ContactScan
from .report_schema import ContactsSummary

__all__ = ['contacts_summary', 'print_contacts', 'print_scan']


def contacts_summary(scan: ContactScan, thresholds_file: str,
                     allowed: bool) -> ContactsSummary:
    """The report's ``contacts`` entry of a scan with thresholds."""
    names = scan.joints
    return {'thresholds_file': str(thresholds_file), 'allowed': bool(allowed),
            'count': len(scan.contacts),
            'contacts': [{'start': float(c.start),
                          'end': None if c.end is None else float(c.end),
                          'detected': float(c.detected),
                          'peak': {names[j]: float(c.peak[j]) for j in sorted(c.joints)}}
                         for c in scan.contacts],
            'peak': {name: float(v) for name, v in zip(names, scan.peak)}}


def print_scan(scan: ContactScan, model: RobotModel, gain: float) -> None:
    """The states seen, the largest |r| per joint and, with a simulator's ground truth in
    the bag, the estimate against it and the tool wrench."""
    repeats = f', {scan.repeats} repeated states skipped' if scan.repeats else ''
    print(f'{scan.samples} states over {scan.duration:.1f} s, {scan.gaps} gaps{repeats}; '
          f'observer gain {gain:g} 1/s; largest |r| per joint [N m]:')
    for joint, peak in zip(model.joint_names, scan.peak):
        print(f'  {joint:<24}{peak:10.3g}')
    if scan.truth is not None:
        _print_truth(scan, model, gain)


def _print_truth(scan, model, gain):
    truth = scan.truth
    if not truth.onsets:
        print(f'{TRUTH_TOPIC}: no push in the recording')
        return
    share = 100.0 * truth.settled_error / truth.peak if truth.peak > 0 else float('nan')
    print(f"against the simulator's joint torque of the push ({TRUTH_TOPIC}): peak "
          f'{truth.peak:.3g} N m; from 3 time constants ({3e3 / gain:.0f} ms) into a push '
          f'the estimate is within {truth.settled_error:.3g} N m of it ({share:.1f} % of '
          'the peak)')
    if scan.wrench_at is not None:
        t, q, r = scan.wrench_at
        w = tool_wrench(model, q, r)
        force, moment = np.round(w.wrench[:3], 2).tolist(), np.round(w.wrench[3:], 2).tolist()
        print(f'tool wrench estimate at {t:.3f} s (base frame, at the tip link): force '
              f'{force} N, moment {moment} N m; Jacobian condition number {w.condition:.3g}')


def print_contacts(scan: ContactScan, model: RobotModel) -> None:
    """One line per contact: its span, joints and peaks, and, with a ground truth, how
    long after the push's onset it was declared."""
    onsets = scan.truth.onsets if scan.truth is not None else []
    for c in scan.contacts:
        end = f'{c.end:.3f}' if c.end is not None else 'end of the bag'
        joints = ', '.join(f'{model.joint_names[j]} {c.peak[j]:.2f}' for j in sorted(c.joints))
        began = [t for t in onsets if t <= c.start + 1e-9]
        after = f'; declared {(c.detected - began[-1]) * 1e3:.1f} ms after the push began' \
            if began else ''
        print(f'contact {c.start:.3f} s to {end}: {joints} N m (peak |r|){after}')
