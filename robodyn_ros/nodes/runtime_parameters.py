"""The controller's parameters that may change while it runs: each one's applier, and the
entry point the parameter services call. No rclpy import: the services pass rclpy
Parameters in, and the node's get_parameter."""

from ..control.parameters import RUNTIME
from ..errors import RobodynError

__all__ = ['RUNTIME_APPLIERS', 'apply_runtime_parameters']


def _apply_payload(core, value, submit):
    """The payload parameters: checked here (microseconds), prepared by the payload
    worker off the control thread, swapped in by the control thread. '' or the reason."""
    try:
        args = (float(value['payload.mass']), list(value['payload.com']),
                list(value['payload.inertia']))
        core.check_payload(*args)
    except (RobodynError, TypeError, ValueError) as exc:
        return f'payload refused: {exc}'
    submit(args)
    return ''


def _apply_gains(core, value, submit):
    """kp and kd: checked here, blended in by the control thread between cycles
    (ControlLaw.request_gains). '' or the reason."""
    try:
        core.law.request_gains(list(value['kp']), list(value['kd']))
    except (TypeError, ValueError) as exc:
        return f'gains refused: {exc}'
    return ''


def _apply_spring(core, value, submit):
    """The tool spring (cartesian.*): checked here, blended in by the control thread
    between cycles (ControlLaw.request_spring). '' or the reason."""
    try:
        core.law.request_spring(list(value['cartesian.stiffness']),
                                float(value['cartesian.damping_ratio']))
    except (TypeError, ValueError) as exc:
        return f'tool spring refused: {exc}'
    return ''


#: Each parameter that may change while running (``runtime=True`` in
#: control/parameters.py) and the function that applies it: (core, {name: value}, submit)
#: -> '' or the reason it is refused. A test fails when a runtime parameter has none.
RUNTIME_APPLIERS = {'payload.mass': _apply_payload, 'payload.com': _apply_payload,
                    'payload.inertia': _apply_payload, 'kp': _apply_gains, 'kd': _apply_gains,
                    'cartesian.stiffness': _apply_spring, 'cartesian.damping_ratio': _apply_spring}


def apply_runtime_parameters(core, params, get, submit):
    """Apply the runtime parameters among ``params`` (rclpy Parameters being set) through
    RUNTIME_APPLIERS, each applier once; ``get``: the node's get_parameter (the values not
    being set); ``submit``: the payload worker's. Returns '' when accepted, else the reason.
    Runs on the parameter services' own thread (parameter_host.py)."""
    changed = {p.name: p.value for p in params if p.name in RUNTIME}
    if not changed or core is None:  # not configured yet: configure reads them
        return ''
    value = {name: changed.get(name, get(name).value) for name in RUNTIME}
    for apply in dict.fromkeys(RUNTIME_APPLIERS[name] for name in changed):
        reason = apply(core, value, submit)
        if reason:
            return reason
    return ''
