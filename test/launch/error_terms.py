"""What the launch tests ask of a run's tracking error beyond its RMS: no term the model's
precision does not explain (validation.error_fit), and no state repeating a stamp.

MAX_ACCELERATION_TERM: a simulator whose velocity is the step's mean (semi-implicit Euler)
compared with the reference velocity of the position's instant leaves -Kd dt / (2 Kp)
= -5e-5 s^2 (config/panda.yaml, 1 ms); with ``velocity_lag`` the lock-step MuJoCo runs
measured |c_a| <= 1.2e-6 s^2 quiet (docs/benchmarks.md): the bound is four times that.
"""

MAX_ACCELERATION_TERM = 5e-6


def error_term_failures(report: dict) -> list[str]:
    """One line per joint whose fitted acceleration term is over MAX_ACCELERATION_TERM or
    could not be fitted, and one when a state repeated a stamp."""
    failures = [f'{name}: no fit of its error (a joint that did not move?)'
                if fit is None else
                f"{name}: acceleration term {fit['acceleration_term']:.2e} s^2 (bound "
                f'{MAX_ACCELERATION_TERM:g}; velocity term {fit["velocity_term"]:.2e} s)'
                for name, fit in report['error_fit'].items()
                if fit is None or not abs(fit['acceleration_term']) <= MAX_ACCELERATION_TERM]
    timing = report['timing']['state'] or {}
    if timing.get('duplicate_stamps', 0):
        failures.append(f"{timing['duplicate_stamps']} states repeat the stamp before them")
    return failures
