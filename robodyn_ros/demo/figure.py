"""``robodyn demo --reference circle``: the tool draws a circle (control/reference/
figures.py) from the configured start, sent as one joint trajectory while the controller
holds; the run is judged on the tool's pose error to the reference's tool
(validation/tool_tracking.py), which lies on the circle.
"""

__all__ = ['FREQUENCY', 'RADIUS', 'START', 'TURNS', 'circle_run']

#: The circle: radius [m], turns per second at full speed [Hz], full-speed turns (one more
#: in its two ramps), in the base link's y-z plane through the start's tool point.
RADIUS, FREQUENCY, TURNS = 0.1, 0.5, 2.0
#: When the trajectory is sent [s of simulated time] (the controller has ramped in).
START = 0.5


def circle_run(ctrl: dict, q0, rate: float = 1000.0):
    """(lock-step hook, the time the circle ends [s], a line saying what it draws) for the
    demo's controller parameters ``ctrl`` (its description, base and tip) starting at q0."""
    from ..nodes.figure_sender import circle_hook
    from .config import load_model
    model = load_model(ctrl['urdf_file'], ctrl.get('base_link'), ctrl.get('tip_link'),
                       ctrl.get('xacro_args', ()))
    hook, duration, start = circle_hook(model, q0, RADIUS, FREQUENCY, TURNS, 'yz',
                                        int(round(START * rate)), rate)
    line = (f'a circle of {RADIUS * 1e3:g} mm radius at {FREQUENCY:g} Hz ({TURNS:g} turns '
            f'at speed, {TURNS + 2:g} in all) in the y-z plane of {model.base_link} through '
            f'the tool point {[round(v, 4) for v in start]} m, from {START:g} s to '
            f'{START + duration:g} s')
    return hook, START + duration, line
