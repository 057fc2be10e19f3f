"""What a controller core says about itself: the level, message and key/values a node
publishes on /diagnostics (the keys docs/real_arm.md lists).

Why apart from the core: the report reads every part (supervisor, reference, statistics,
cross-check, collision watch) and changes none; the core keeps the cycle.
"""

from .levels import Level
from .safety.supervisor import HELD, LEVELS, SAFE

__all__ = ['core_diagnostics']


def core_diagnostics(core, now: float) -> tuple[Level, str, dict[str, str]]:
    """(level, message, {key: value}) describing ``core`` (a ControllerCore) at monotonic
    ``now`` [s]: the supervisor's state and reason at its level, a WARN while in contact."""
    sup = core.supervisor
    values = {'state': sup.state, 'reason': sup.reason, 'mode': core.config.mode,
              'reference': core.reference.kind, 'safe_command': sup.hold_kind,
              'state_age_ms': 'none' if sup.valid_time is None
              else f'{(now - sup.valid_time) * 1e3:.3f}',
              'faults': str(sup.faults), 'clamped': str(sup.clamped),
              'rate_limited': str(sup.rate_limited),
              # the per-cycle limit a bag's applied torque is judged by (validation)
              'max_torque_rate': f'{sup.limits.max_torque_rate!r}',
              'last_rejection': core.last_rejection or 'none',
              'target': core.targets.status, 'singularity': core.targets.singularity}
    values['manipulability'] = _manipulability(getattr(core.law.law, 'frame', None))
    values['target_wrench'] = core.wrenches.status
    values['applied_wrench'] = core.wrenches.applied_text()
    if sup.state in (SAFE, HELD) and sup.hold_q is not None:
        values['hold_position'] = ' '.join(f'{v:.5f}' for v in sup.hold_q)
    values.update(core.stats.summary())
    if core.cross_check is not None:
        values.update(core.cross_check.summary())
    estimate = getattr(core.law.law, 'estimate', None)  # the adaptive law's
    if estimate is not None:
        pi = estimate.pi
        values['payload_estimate'] = ' '.join(f'{v:.6g}' for v in pi)  # [m, mc, I_O] tip
        values['payload_estimate_mass'] = f'{pi[0]:.4f}'
        values['payload_estimate_com'] = ' '.join(f'{v / pi[0]:.4f}' for v in pi[1:4])
    level, message = LEVELS[sup.state], f'{sup.state}: {sup.reason}'
    watch = core.collision
    if watch is not None:
        values['external_torque'] = ' '.join(f'{v:.3f}' for v in watch.observer.residual)
        values['last_collision'] = core.last_collision
        values['observer_torque'] = watch.source
        if watch.detector.contact is not None and level == Level.OK:
            level, message = Level.WARN, f'{message}; in contact: {core.last_collision}'
    return level, message, values


def _manipulability(frame) -> str:
    """A task-space law's manipulability of its last J (the C++ controller's words), or
    'off'."""
    if frame is None:
        return 'off'
    from .laws.cartesian_impedance import manipulability
    from .reference.pose_target import SIGMA_SLOW
    # the tip frame's J: both task-space laws leave it at the last cycle's state
    measure, smallest = manipulability(frame.tip.jac)
    near = ': near a singularity, the task-space inverse damped, the torque within the ' \
        'limits' if smallest < SIGMA_SLOW else ''
    return f"{measure:.4g} (J's smallest singular value {smallest:.4f}{near})"
