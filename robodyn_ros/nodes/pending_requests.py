"""What the control thread swaps in between two cycles, each in O(1): a trajectory the
worker converted, a payload the payload worker prepared, the gains' blend, the action's
requests. The
workers do the unbounded work on their own threads; the cycle only adopts the result."""

from ..control.events import EventKind, emit
from ..control.levels import Level

__all__ = ['apply_requests']


def apply_requests(run, now: float) -> None:
    """Swap in ``run``'s (a controller node's ConfiguredResources) converted trajectories,
    prepared payload and the action's requests, at ``now`` [s, the controller's clock]."""
    if run.worker.has_result:
        run.worker.apply(now)
    if run.payload_worker.has_result:
        ready = run.payload_worker.take()
        if ready is not None:
            (prepared,) = ready
            if isinstance(prepared, str):
                emit(run.core.events, EventKind.PAYLOAD_REFUSED, Level.WARN, prepared)
            else:
                run.core.adopt_payload(prepared)
    core = run.core
    if core.law.blending and core.law.step_gains(now, core.config.gain_ramp_time) and \
            core.fused_cycle is not None:  # the fused cycle keeps its own copy of the gains
        core.fused_cycle.set_gains(core.law.kp, core.law.kd)
    bridge = run.interfaces.bridge
    if bridge is not None and bridge.requests:
        bridge.apply_requests(now)
