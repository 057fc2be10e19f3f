"""The safety supervisor: its state machine, the limits it enforces and the compiled
checks both the supervisor and the fused cycle call (one implementation of each rule)."""

from .supervisor import SafetyLimits, SafetySupervisor

__all__ = ['SafetyLimits', 'SafetySupervisor']
