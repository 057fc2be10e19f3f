"""``robodyn demo``: the closed loop in lock step (sim + controller + recorder on one
executor, nodes/lock_step.py), recorded to a rosbag2 directory, then validated; and the
JTC feed-forward experiment (``--mode jtc_feedforward``). No rclpy here: the nodes run in
nodes/.
"""

from collections.abc import Callable, Sequence
import os

from ..defaults import CONTROLLER_NAME
from ..errors import ConfigError
from ..model.registry import is_description, robot_path
from .config import config_dir, demo_parameters, load_config, recorder_parameters

__all__ = ['closed_loop', 'demo', 'jtc_demo']


def closed_loop(robot, mode='computed_torque', reference=None, duration=1.0, rate=1000.0,
                bag_path=None, storage='mcap', tip=None, hook=None, controller_overrides=None,
                base=None, xacro_args=(), log=print, sim_overrides=None):
    """Run sim + controller (+ recorder) in lock step on one executor.

    Args:
        robot: robot name or URDF path (config/<robot>.yaml supplies gains and q0).
        base, xacro_args: chain base link and xacro arguments ('name:=value') of a
            description path.
        reference: the controller's reference kind, or 'circle' (demo/figure.py: the
            controller holds and receives the circle as a joint trajectory).
        hook: optional ``hook(step, nodes, executor)`` called before each step (tests
            publish trajectories from it).
        controller_overrides, sim_overrides: parameters replacing the config's (the sim's
            push_wrench records its ground truth too).

    Returns:
        dict with steps, wall time, timeouts, the controller's command count (``answered``:
        before the final ramp of cleanup) and, when recording, the number of
        messages written.
    """
    if duration <= 0:
        raise ConfigError(f'duration must be > 0, got {duration}')
    circle = reference == 'circle'
    ctrl, sim_cfg, notes = demo_parameters(robot, mode, 'hold' if circle else reference,
                                           rate, tip, controller_overrides, base, xacro_args)
    for text in notes:
        log(f'demo: {text}')
    if circle:
        hook = _circle(ctrl, sim_cfg, rate, duration, hook, log)
    sim_cfg.update(sim_overrides or {})
    from ..nodes.lock_step import run_lock_step
    recorder = recorder_parameters(ctrl, bag_path, storage,
                                   truth=any(sim_cfg.get('push_wrench', ())) or
                                   len(sim_cfg.get('obstacle', ())) > 0) \
        if bag_path else None
    return run_lock_step(ctrl, sim_cfg, int(round(duration * rate)), recorder, hook)


def _circle(ctrl, sim_cfg, rate, duration, hook, log):
    """The hook that sends the circle (demo/figure.py), after ``hook``'s own step."""
    from .figure import circle_run
    draw, end, line = circle_run(ctrl, sim_cfg['q0'], rate)
    if duration < end:
        raise ConfigError(f'--reference circle: the circle ends at {end:g} s; give '
                          f'--duration {end:g} or more')
    log(f'demo: {line}')
    if hook is None:
        return draw

    def both(step, nodes, executor):
        hook(step, nodes, executor)
        draw(step, nodes, executor)
    return both


def jtc_demo(duration: float = 10.0) -> dict:
    """``robodyn demo --mode jtc_feedforward``: the Panda sum-of-sines tracked by a JTC-like
    PD with and without robodyn's effort feed-forward; worst-joint RMS of each [rad]."""
    from ..experiments.jtc_feedforward import (
        PANDA_JTC_KD,
        PANDA_JTC_KP,
        jtc_feedforward_experiment,
    )
    from ..model import load_robot
    config = load_config('panda')
    ctrl, sim = config[CONTROLLER_NAME], config['robodyn_sim']
    model = load_robot('panda', tip_link=ctrl.get('tip_link'))
    result = jtc_feedforward_experiment(model, sim['q0'], ctrl['amplitudes'], ctrl['periods'],
                                        PANDA_JTC_KP, PANDA_JTC_KD, duration)
    result.update(kp=list(PANDA_JTC_KP), kd=list(PANDA_JTC_KD), duration=duration)
    return result


def demo(robot: str = 'panda', mode: str = 'computed_torque',
         reference: str = 'sum_of_sines', duration: float = 10.0, rate: float = 1000.0,
         out: str = 'out/demo', storage: str = 'mcap', tip: str | None = None,
         max_rms: float | None = None, max_abs: float | None = None,
         log: Callable[[str], None] = print, base: str | None = None,
         xacro_args: Sequence[str] = (), controller_overrides: dict | None = None,
         sim_overrides: dict | None = None) -> dict:
    """``robodyn demo``: closed loop in lock step, recorded to ``out``/bag, then validated
    (computed torque: within 1e-3 rad RMS and 5e-3 rad max unless given). Returns the
    run's figures and the validation report; ``log`` receives progress lines."""
    from ..validation.validate import validate_bag
    os.makedirs(out, exist_ok=True)
    bag_path = os.path.join(out, 'bag')
    if os.path.exists(bag_path):
        import shutil
        shutil.rmtree(bag_path)
    plain = is_description(robot)
    config = os.path.join(config_dir(), f'{robot}.yaml')
    log(f'demo: URDF {robot_path(robot)[0]}, config '
        f'{config if os.path.isfile(config) else "none (generic gains, mid-range start)"}')
    run = closed_loop(robot, mode, None if reference == 'sum_of_sines' and not plain
                      else reference, duration, rate, bag_path, storage, tip,
                      base=base, xacro_args=xacro_args, log=log,
                      controller_overrides=controller_overrides, sim_overrides=sim_overrides)
    log(f'demo: {robot}, mode {mode}, {run["steps"]} steps of {1e3 / rate:.3f} ms (simulated '
        f'{duration:.1f} s in {run["wall"]:.1f} s wall), {run["timeouts"]} step timeouts, '
        f'{run["recorded"]} messages in {bag_path}')
    if mode == 'computed_torque':
        max_rms = 1e-3 if max_rms is None else max_rms
        max_abs = 5e-3 if max_abs is None else max_abs
    report = validate_bag(bag_path, out_dir=out, plots=True, max_rms=max_rms, max_abs=max_abs,
                          tool_tracking=_tool_tracking(bag_path, mode, reference, robot,
                                                       tip, base, xacro_args))
    return dict(run=run, bag=bag_path, report=report)


def _tool_tracking(bag_path, mode, reference, robot, tip, base, xacro_args):
    """The tool against the reference's tool for a task-space law or a figure (else
    None): judged (1 mm, 10 mrad) on a figure, reported otherwise (a push moves the tool
    off its reference by design)."""
    from ..validation.tool_tracking import scan_tool_tracking, task_space_modes
    if reference != 'circle' and mode not in task_space_modes():
        return None
    from .config import load_model
    path, default_base, default_tip = robot_path(robot)
    model = load_model(path, base or default_base, tip or default_tip, xacro_args)
    judged = reference == 'circle'
    return (scan_tool_tracking(bag_path, model), 1.0 if judged else None,
            10.0 if judged else None)
