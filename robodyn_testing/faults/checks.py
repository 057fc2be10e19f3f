"""The fault campaign's verdicts: run a case (cases.Case) against a controller process and
check every invariant on what the probe recorded.

A case starts the controller with its parameters, runs a script against it (states,
trajectories, action goals, parameter sets, lifecycle transitions, signals) and names what
it expects; :func:`run_case` returns a :class:`Result` with every invariant's verdict and
the figures of the summary (worst step, longest silence, exit time).
"""

from dataclasses import dataclass, field
import gc
import re
import subprocess
import sys
import tempfile

import numpy as np

from robodyn_ros.defaults import CONTROLLER_NAME
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.io.console_log import parse_log_line

from .fixtures import PANDA_Q0, model
from .probe import Harness

__all__ = ['Result', 'run_case', 'STEP_TOLERANCE']

#: Torque steps and the safe command are compared with this tolerance [N m].
STEP_TOLERANCE = 1e-6
#: A gap's start is known from its receipt times to within the probe's receipt latency: the
#: window searched for a machine stall starts this much earlier [s].
STALL_SLACK = 0.005
#: The most of one gap excused as the machine's late wake-up of the controller's watchdog
#: (nodes/scheduler_latency.py) [s]: a longer wait for a core is a stall the witness sees
#: (its threshold is 2 ms), and an uncapped excuse would hide a watchdog never armed.
WAKEUP_EXCUSE = 0.005
#: The first command answered one of the states the probe sent this long before reading it
#: [s], at most ANSWER_STATES of them (the latest).
ANSWER_WINDOW = 1.0
ANSWER_STATES = 1000
#: The first command's distance from g(q) of the state it answered, beyond one rate-limit
#: step, that is allowed [N m]: the states are sampled 1 ms apart, the arm moves 0.31 mrad
#: in that time (0.02 N m of gravity on the panda at most).
HOLD_TOLERANCE = 0.1


@dataclass
class Result:
    """One case's verdicts: invariant -> (passed, detail) and the summary figures."""

    name: str
    checks: dict = field(default_factory=dict)
    worst_step: float = 0.0  # largest |change| of a torque between messages [N m]
    longest_silence: float = 0.0  # longest gap between commands while commanding [s]
    # longest machine-wide stall (stall_witness.py) inside a gap above the bound [s]: not
    # counted in longest_silence, reported
    machine_stall: float = 0.0
    exit_time: float | None = None  # signal, or the node taking a shutdown, to exit [s]
    commands: int = 0
    lost: int = 0  # commands the probe's reader lost (publication sequence numbers)
    output: str = ''

    def check(self, invariant, passed, detail=''):
        """Record an invariant's verdict."""
        self.checks[invariant] = (bool(passed), detail)

    @property
    def passed(self):
        """True when every invariant held."""
        return all(ok for ok, _ in self.checks.values())

    def failures(self):
        """'invariant: detail' of each failed invariant."""
        return [f'{k}: {d}' for k, (ok, d) in self.checks.items() if not ok]


def run_case(case, mode: str | None = None):
    """Run one case (cases.Case) with the law ``mode`` (None: the node's default, the
    case's own when it sets one); its Result.

    The probe's garbage collector is off while a case runs (collected before): a full
    collection over everything a campaign has imported and kept stalled the probe's stream
    and receipt for about 100 ms, which read as a silence of the controller.
    """
    if case.cli is not None:
        return _run_cli_case(case)
    gc.collect()
    gc.disable()
    try:
        return _run_controller_case(case, mode)
    finally:
        gc.enable()


def _run_controller_case(case, mode=None):
    parameters = {**({'mode': mode} if mode else {}), **(case.parameters or {})}
    harness = Harness(parameters, case.env, case.stamp_start, case.raw_args,
                      case.references)
    result = Result(case.name)
    try:
        case.script(harness, result)
    except Exception as exc:  # noqa: BLE001 - a script failure is a failed case, said why
        result.check('script', False, f'{type(exc).__name__}: {exc}')
    finally:
        output = harness.output()
        alive = harness.proc.poll() is None
        harness.close()
    result.output = output
    result.commands = len(harness.commands)
    if harness.exit_time is not None:
        result.exit_time = harness.exit_time
    _check_common(case, harness, result, output, alive)
    return result


def _run_cli_case(case):
    """A ``robodyn`` command on a bad input made by ``case.cli(folder)``: exit 2 within 60 s
    with one line on stderr naming ``case.words``, no traceback."""
    result = Result(case.name)
    with tempfile.TemporaryDirectory() as folder:
        argv = case.cli(folder)
        try:
            out = subprocess.run([sys.executable, '-m', 'robodyn_ros.cli', *argv],
                                 capture_output=True, text=True, timeout=60, cwd=folder)
        except subprocess.TimeoutExpired:
            result.check('ends within 60 s', False, 'hung')
            return result
    err = out.stderr.strip()
    result.output = out.stdout + out.stderr
    if case.exit_code != 2:  # a verdict, not a refusal: it must say what it could not use
        result.check(f'exit {case.exit_code}', out.returncode == case.exit_code,
                     f'exit {out.returncode}: {result.output[-300:]}')
        result.check('names what it could not use',
                     all(w in result.output for w in case.words), result.output[-300:])
        result.check('no traceback', 'Traceback' not in result.output, err[-300:])
        return result
    result.check('exit 2', out.returncode == 2, f'exit {out.returncode}')
    result.check('one line naming the fault', len(err.splitlines()) == 1 and
                 all(w in err for w in case.words), err[-300:])
    result.check('no traceback', 'Traceback' not in result.output, err[-300:])
    return result


def _check_common(case, h, result, output, alive):
    """The invariants every case checks."""
    effort = model().effort_limits
    commands = h.commands
    values = np.array([c for _, c in commands]) if commands else np.zeros((0, 7))
    finite = bool(np.all(np.isfinite(values)))
    result.check('finite and within effort limits',
                 finite and bool(np.all(np.abs(values) <= effort + 1e-9)),
                 f'{len(commands)} commands')
    rate = float(h.parameters.get('max_torque_rate', 1000.0))
    period = 1.0 / float(h.parameters.get('rate', 1000.0))
    step = rate * period
    if len(values) > 1 and finite:
        messages = _messages_between(h.sequence, len(values))
        steps = np.abs(np.diff(values, axis=0)).max(axis=1) / messages
        result.worst_step = float(steps.max())
        result.lost = int((messages - 1).sum())
        k = int(np.argmax(steps))
        result.check('no step above max_torque_rate x period', steps.max() <= step +
                     STEP_TOLERANCE, f'worst {steps.max():.4g} N m per message at message '
                     f'{k + 1} (limit {step:.4g}; {result.lost} messages lost to the probe)')
    _check_references(case, h, result)
    if commands:
        _check_first(h, result, commands[0], step)
        _check_silence(h, result, commands)
    if 'Traceback' in output:
        result.check('no traceback', False, output[output.index('Traceback'):][:300])
    else:
        result.check('no traceback', True)
    _check_log_rate(result, output)
    if case.expect_exit:
        result.check('exits within 2 s', result.exit_time is not None and
                     result.exit_time <= 2.0, f'exit after {result.exit_time} s')
    elif alive is False and not case.may_exit:
        result.check('process alive', False, 'the controller exited on its own')


def _messages_between(sequence, count):
    """(count - 1,) the controller's messages between consecutive received commands: the
    difference of their publication sequence numbers from the same publisher (1 across a
    new publisher, or when the numbers are unknown)."""
    out = np.ones(count - 1)
    if len(sequence) != count:
        return out
    for k in range(1, count):
        (gid0, seq0, _), (gid1, seq1, _) = sequence[k - 1], sequence[k]
        if gid0 == gid1 and seq0 is not None and seq1 is not None and seq1 > seq0:
            out[k - 1] = seq1 - seq0
    return out


def _check_references(case, h, result):
    """Every recorded reference sample inside the joint limits shrunk by
    reference_margin (or where the arm was held: a hold is the arm's own position)."""
    if not h.references:
        return
    margin = float(h.parameters.get('reference_margin', 0.05))
    lower, upper = model().lower + margin, model().upper - margin
    q = np.array([r[2] for r in h.references])
    outside = (q < lower - 1e-9) | (q > upper + 1e-9)
    result.check('reference inside the limits minus reference_margin', not outside.any(),
                 f'{int(outside.any(axis=1).sum())} samples outside, e.g. '
                 f'{q[outside.any(axis=1)][0].round(3).tolist()}' if outside.any() else
                 f'{len(q)} samples')


def _check_first(h, result, first, step):
    """The first command starts from the hold torque at the state it answers (g(q) from an
    independent evaluation) within one rate-limit step, or from zero.

    Which state it answered is not on the wire: it is one the probe sent before it received
    the command, and beside two hogs the probe reads a command 100 ms late or more (the arm
    moves 0.31 rad/s). So the command is compared with every state sent in the
    ANSWER_WINDOW before its receipt and the closest counts: a wrong hold torque (zero, a
    step, another pose's) is far from all of them."""
    t, effort = first
    if h.parameters.get('include_gravity', True) is False or \
            h.parameters.get('initial_output', 'hold') == 'zero':
        holds = [np.zeros(7)]
    else:
        sent = [q for ts, q in h.state_log if t - ANSWER_WINDOW <= ts <= t]
        dynamics = RigidBodyDynamics(model())
        holds = [dynamics.gravity_vector(q) for q in sent[::-1][:ANSWER_STATES] or [PANDA_Q0]]
    gap = min(float(np.max(np.abs(effort - hold))) for hold in holds)
    result.check('first command within a step of the hold torque', gap <= step + HOLD_TOLERANCE,
                 f'{gap:.4g} N m from g(q) of the closest of {len(holds)} states sent in the '
                 f'{ANSWER_WINDOW} s before it (step {step:.4g} + {HOLD_TOLERANCE} N m)')


def _check_silence(h, result, commands):
    """No gap above state_timeout + 2 periods between commands from the first command to
    the script's stop (or the end), less what the machine spent stalled inside it.

    A stall the witness process saw (stall_witness.py) stopped every process, the probe's
    stream and the controller alike: that part of a gap is not the controller's silence;
    nor is the time the machine took to wake the controller's watchdog when it was due
    and the controller idle (it says so: nodes/scheduler_latency.py). What remains must be
    within the bound; the larger of the two is reported (Result.machine_stall)."""
    timeout = float(h.parameters.get('state_timeout', 0.05))
    period = 1.0 / float(h.parameters.get('rate', 1000.0))
    limit = timeout + 2 * period
    end = h.stop_time if h.stop_time is not None else commands[-1][0]
    wire = _wire_gaps(h, commands, end)
    if wire is not None:  # the controller's own gaps, from its publisher's stamps
        times, gaps = wire
    else:
        times = np.array([t for t in h.arrivals or [t for t, _ in commands]
                          if commands[0][0] <= t <= end])
        if len(times) < 2:
            return
        gaps = np.diff(times)
    for start, stop in h.pauses:  # inactive on purpose: not a silence
        stop = stop if stop is not None else np.inf
        gaps[(times[1:] >= start) & (times[:-1] <= stop)] = 0.0
    stalled = np.zeros_like(gaps)
    for i in np.flatnonzero(gaps > limit):  # the gap ends at its receipt, times[i + 1]
        start = min(times[i], times[i + 1] - gaps[i]) - STALL_SLACK
        woke = [min(late, WAKEUP_EXCUSE) for expiry, late in list(h.wakeups.items())
                if start <= expiry <= times[i + 1] + STALL_SLACK]
        stalled[i] = min(gaps[i], max([h.witness.stalled(start, times[i + 1])] + woke))
    own = gaps - stalled
    k = int(np.argmax(own))
    result.longest_silence = float(own[k])
    result.machine_stall = float(stalled.max())
    result.check('no silence above state_timeout + 2 periods', own[k] <= limit,
                 f'longest {own[k] * 1e3:.1f} ms (limit {limit * 1e3:.1f} ms; a gap of '
                 f'{gaps[k] * 1e3:.1f} ms less {stalled[k] * 1e3:.1f} ms of machine stall), '
                 f"{times[k] - times[0]:.3f} s after the first command; the probe's own "
                 f'state stream paused {_probe_pause(h, times[k], times[k + 1]) * 1e3:.1f} '
                 'ms across it')


def _wire_gaps(h, commands, end):
    """(receipt times, gaps [s]) of the commands up to ``end``, the gaps taken from the
    controller's publication stamps (source_timestamp): the time between two messages on
    the wire, not the probe's receipt (whose executor can stall on its own). Across
    messages the probe lost (publication sequence numbers), the gap is the span divided by
    the messages in it. None when the stamps are unknown."""
    seq = h.sequence
    if len(seq) != len(commands) or any(s[2] is None or s[1] is None for s in seq):
        return None
    keep = [k for k, (t, _) in enumerate(commands) if t <= end]
    if len(keep) < 2:
        return None
    times = np.array([commands[k][0] for k in keep])
    stamps = np.array([seq[k][2] for k in keep], dtype=float) * 1e-9
    numbers = np.array([seq[k][1] for k in keep], dtype=float)
    same = np.array([seq[k][0] == seq[k - 1][0] for k in keep[1:]])
    steps = np.where(same & (np.diff(numbers) >= 1), np.diff(numbers), 1.0)
    gaps = np.diff(stamps) / steps
    gaps[~same] = np.diff(times)[~same]  # a new publisher (reconfigured): as received
    return times, np.maximum(gaps, 0.0)


def _probe_pause(h, start, stop):
    """Longest pause [s] of the probe's own state stream overlapping [start, stop]: a
    silence the probe shares was not (only) the controller's."""
    sent = np.array([t for t, _ in h.state_log])
    inside = sent[(sent >= start) & (sent <= stop)]
    before, after = sent[sent < start], sent[sent > stop]
    edges = np.concatenate([before[-1:], inside, after[:1]])
    return float(np.diff(edges).max()) if len(edges) > 1 else float(stop - start)


def _check_log_rate(result, output):
    """At most one log line per kind of event (numbers blanked) per second (+1 at a second's
    edge)."""
    seen: dict[tuple[str, int], int] = {}
    for line in output.splitlines():
        parsed = parse_log_line(line)
        if parsed is None or parsed.logger != CONTROLLER_NAME or \
                parsed.level not in ('INFO', 'WARN', 'ERROR'):
            continue
        kind = re.sub(r'[-+]?\d[\d.e+-]*', '#', parsed.message)
        key = (kind, int(parsed.stamp))
        seen[key] = seen.get(key, 0) + 1
    worst = max(seen.values(), default=0)
    kind = max(seen, key=lambda k: seen[k])[0][:80] if seen else ''
    result.check('at most one log line per event kind per second', worst <= 2,
                 f'{worst} lines of {kind!r} in one second' if worst > 2 else '')
