"""The bounds the safety supervisor enforces, as one frozen record (pure: no numba, so
that configuring and validating need not load the compiled kernels)."""

from dataclasses import dataclass

import numpy as np

from ..options import InitialOutput, SafeCommand

__all__ = ['SafetyLimits']


@dataclass(frozen=True)
class SafetyLimits:
    """Bounds the supervisor enforces; arrays are (n,), chain order, SI units.

    Attributes:
        effort: effort limits [N m or N], finite and > 0.
        max_torque_rate: largest torque change per second [N m/s].
        period: nominal control period [s].
        ramp_time: blend duration on entering ramp_in [s].
        state_timeout: watchdog timeout [s].
        lower, upper: guard band for positions (limits shrunk by the margin).
        velocity: guard on |qd| (inf: none).
        damping: D of the gravity + damping hold (state not trusted) [N m s/rad].
        safe_command: SafeCommand (hold or zero).
        hold_kp, hold_kd: gains of the position hold [N m/rad, N m s/rad]; NaN: derived
            from the effort limit and the mass matrix at the held position (see
            PositionHold.gains).
        initial_output: where the rate limit starts at the first activation: 'hold' (the
            hold command at the first valid state: the torque that keeps the arm where its
            brakes held it, zero when the robot compensates gravity) or 'zero'.
        loop_latency: transport latency [s] of the loop the supervisor closes (state to
            applied torque) that the derived hold must tolerate (hold.py); 0: one cycle.
    """

    effort: np.ndarray
    max_torque_rate: float
    period: float
    ramp_time: float
    state_timeout: float
    lower: np.ndarray
    upper: np.ndarray
    velocity: np.ndarray
    damping: np.ndarray
    safe_command: SafeCommand = SafeCommand.HOLD
    initial_output: InitialOutput = InitialOutput.HOLD
    hold_kp: np.ndarray | None = None
    hold_kd: np.ndarray | None = None
    loop_latency: float = 0.0

    @property
    def stale_after(self):
        """Age [s] at which the last valid state is stale: one period before state_timeout,
        the budget to wake and compute, so that the first safe command is on the wire
        state_timeout after the last valid state, not state_timeout plus the wake-up."""
        return self.state_timeout - self.period
