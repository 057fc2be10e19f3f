"""What a control cycle can meet, in one registry: every kind of input that a cycle
treats specially, where the general path decides it, and how the fused cycle
(fused_cycle.py) either applies the same rule or hands the cycle to the general path with
nothing changed.

The property test (test/control/test_fused_cycle.py) draws its inputs from this registry
and fails while an entry has no perturbation there, so the two paths are compared on every
rule listed here.

Checklist: a new rule for a state or a cycle changes together

1. an entry in :data:`CYCLE_EVENTS`;
2. the general path: ``ControllerCore.on_state`` / ``update``, the supervisor
   (safety/supervisor.py) or the state clock;
3. the fused path: the kernel returns a negative code (``fused_cycle_kernel``, through a
   shared check in safety/kernels.py, never a copy), or ``ControllerCore._cycle_fused``
   returns None before it changes anything;
4. a perturbation of the same name in the property test, and a row in
   docs/architecture.md's table of safety rules when it is one.
"""

from typing import NamedTuple

__all__ = ['CycleEvent', 'CYCLE_EVENTS', 'EVENT_NAMES']


class CycleEvent(NamedTuple):
    """One kind of cycle input: ``name``, where the ``general`` path decides it, what the
    ``fused`` path does with it."""

    name: str
    general: str
    fused: str


CYCLE_EVENTS = (
    CycleEvent('non_finite_state', 'JointMap.extract rejects the state',
               'gather_packed fails: NOT_FINITE_STATE'),
    CycleEvent('guard', 'SafetySupervisor.accept_state: first_violation, safe (latched)',
               'first_violation: GUARDED'),
    CycleEvent('position_jump', 'SafetySupervisor.jump rejects the state (three in a '
               'second: safe, latched)', 'position_jump: GUARDED'),
    CycleEvent('repeated_stamp', 'StateClock.check rejects the state',
               'StateClock.steady_offset is None'),
    CycleEvent('old_stamp', 'StateClock.check rejects the state (out of order) or takes '
               'it as a clock reset', 'StateClock.steady_offset is None'),
    CycleEvent('clock_jump', "StateClock.take shifts the reference with the states' clock",
               'StateClock.steady_offset is None'),
    CycleEvent('missing_joint', 'JointMap.extract rejects the state',
               'FusedCycle.layout is None'),
    CycleEvent('reordered_joints', 'JointMap.extract picks the joints by name',
               'FusedCycle.layout indexes them by name'),
    CycleEvent('list_fields', 'JointMap.extract takes any sequence of floats',
               'the node hands bytes: the same values once packed'),
    CycleEvent('missing_state', 'SafetySupervisor.check_watchdog: safe at stale_after, '
               'recovers on a valid state', 'SafetySupervisor.fused_inputs is None unless '
               'active'),
    CycleEvent('new_trajectory', 'ReferenceManager.adopt (on_trajectory)',
               'the reference is evaluated before the kernel, as on the general path'),
    CycleEvent('non_finite_torque', 'SafetySupervisor.limit keeps the last output, safe '
               '(latched)', 'NOT_FINITE_TORQUE: the general path faults'),
    CycleEvent('frozen_state', 'SafetySupervisor.check_frozen after update: safe (latched, '
               'state not trusted)', 'the same SafetySupervisor.check_frozen after the '
               'kernel'),
    CycleEvent('tracking_error', 'ControllerCore._check_tracking after update: safe '
               '(latched, position hold)', 'the same ControllerCore._check_tracking after '
               'the kernel'),
    CycleEvent('collision', 'ControllerCore._observe after update: the collision watch '
               'declares a contact -> collision.reaction (safe latched, or a report)',
               'the same ControllerCore._observe after the kernel'),
)

#: The registry's names, in order.
EVENT_NAMES = tuple(event.name for event in CYCLE_EVENTS)
