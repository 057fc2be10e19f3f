"""What each of the fault campaign's cases does to the controller's process (its script:
``script(harness, result)``, or a factory of one), and what it checks beyond the common
invariants (checks._check_common). :mod:`.cases` names them."""

import signal
import time

import numpy as np

from .fixtures import PANDA_Q0, model


def start(h, result, count=300):
    """Stream states once the probe hears the controller; wait for ``count`` commands."""
    h.wait_command_publisher()
    h.feed()
    ok = h.wait_commands(count)
    result.check('commands flow', ok, f'{len(h.commands)} commands; '
                 f'output: {h.output()[-300:]}' if not ok else '')
    return ok


def configure_fails(words):
    """Script: configure fails with one line naming ``words``; diagnostics ERROR; no
    command; the process stays up."""
    def script(h, result):
        h.feed()
        ok = h.wait_output('configure failed', 60.0)
        _wait_for_error(h)
        out = h.output()
        lines = [line for line in out.splitlines() if 'configure failed' in line]
        result.check('one configure line naming the parameter',
                     ok and len(lines) == 1 and all(w in lines[0] for w in words),
                     lines[0] if lines else out[-300:])
        errors = [d for d in h.diagnostics if d[1] == 2 and 'configure failed' in d[2]]
        result.check('diagnostics ERROR', bool(errors),
                     f'{h.diagnostics[-1] if h.diagnostics else "no diagnostics"}')
        result.check('no command', not h.commands, f'{len(h.commands)} commands')
        result.check('process alive', h.proc.poll() is None, 'exited')
    return script


def _wait_for_error(h, after_match=5.0, longest=30.0):
    """Until the probe has heard a diagnostics ERROR: at most ``after_match`` [s] once it
    sees a /diagnostics publisher (the node repeats its status every diagnostics_period),
    at most ``longest`` [s] in all. Discovery is the machine's: beside two hogs the node
    failed its configure before the probe had found its publisher, and 5 s from the
    failure were not enough once."""
    deadline, matched = time.monotonic() + longest, None
    while time.monotonic() < deadline and not any(d[1] == 2 for d in h.diagnostics):
        if matched is None and h.node.count_publishers('/diagnostics'):
            matched = time.monotonic()
        if matched is not None and time.monotonic() > matched + after_match:
            return
        time.sleep(0.05)


def big_trajectory(points, accepted):
    def script(h, result):
        from rclpy.serialization import serialize_message
        # Serialized before the stream starts: rclpy's serializer holds this process's
        # interpreter lock for the whole message, which would stall the probe's stream.
        raw = serialize_message(h.trajectory(points, 4.0, lead=0.5))
        if not start(h, result):
            return
        n_quiet, t_quiet = len(h.commands), time.monotonic()
        time.sleep(1.5)  # the node's own answer rate on this machine, loaded as it is now
        n0, t0 = len(h.commands), time.monotonic()
        quiet = h.answered(n_quiet, t_quiet, t0)  # (its command count ends now)
        h.publish_trajectory(raw)
        time.sleep(3.0)
        t1 = time.monotonic()
        busy = h.answered(n0, t0, t1)
        out = h.output()
        text = 'following a' if accepted else 'more than max_trajectory_points'
        result.check('trajectory ' + ('followed' if accepted else 'refused'), text in out,
                     out[-300:])
        # Against the node's own rate before (the load is the machine's, not the package's)
        rate_quiet, rate_busy = (c / max(s, 1) for c, s in (quiet, busy))
        result.check('commands keep flowing (>= 0.65 x before)',
                     rate_busy >= 0.65 * rate_quiet,
                     f'{busy[0]} commands for {busy[1]} states in {t1 - t0:.1f} s '
                     f'({rate_busy:.0%}); {quiet[0]} for {quiet[1]} before ({rate_quiet:.0%})')
        h.mark_stop()
    return script


def action_big(points):
    def script(h, result):
        if not start(h, result):
            return
        client = h.action_client()
        handle, future = h.send_goal(client, h.trajectory(points, 2.0, lead=0.5))
        ok = future is not None and h.wait_future(future, 15.0)
        result.check('goal gets a result', ok, 'no result')
        if ok:
            code = future.result().result.error_code  # the fake arm does not follow:
            result.check('goal ended with a FollowJointTrajectory code',  # any code is fine
                         code in (0, -1, -2, -3, -4, -5), future.result().result.error_string)
        h.mark_stop()
    return script


def aborted_goal_never_moves(h, result):
    """A goal sent while no states arrive is refused; it must never run later."""
    if not start(h, result):
        return
    client = h.action_client()
    h.feed(False)
    h.mark_stop()  # the watchdog's own silence is stall_and_recovery's to check
    time.sleep(0.2)
    target = h.trajectory(3, 1.0, delta=0.3)
    _, future = h.send_goal(client, target)
    ok = future is not None and h.wait_future(future, 10.0)
    code = future.result().result.error_code if ok else None
    result.check('goal refused', ok and code != 0, f'code {code}')
    n0 = len(h.references)
    h.feed(True)
    time.sleep(2.0)
    last = [r[2] for r in h.references[n0:]]
    moved = max((float(np.max(np.abs(q - PANDA_Q0))) for q in last), default=0.0)
    result.check('refused goal never executed', moved < 0.25,
                 f'reference reached {moved:.3f} rad from Q0 (goal: +0.3)')


def goal_result_is_final(h, result):
    """A goal the controller converts for longer than the action's wait (20 000 points, the
    most max_trajectory_points allows, raised to it): whatever its result, the reference
    must not start following it after the client was told the result."""
    if not start(h, result):
        return
    sent = time.monotonic()
    before = h.references[-1][2] if h.references else None
    proc = h.goal_process(20000, 8.0, 0.3)
    line = proc.communicate(timeout=90)[0].strip()
    answered = time.monotonic()
    time.sleep(3.0)
    h.mark_stop()
    result.check('goal answered', line.startswith(('result', 'refused')), line)
    moved = [t for t, _, q in h.references
             if t > sent and before is not None and np.max(np.abs(q - before)) > 0.02]
    late = moved and moved[0] > answered
    result.check('no motion after the result', not late,
                 f'{line!r}; reference left its value {moved[0] - answered:.2f} s after the '
                 'result' if late else line)


def runtime_payload(name, value):
    def script(h, result):
        if not start(h, result):
            return
        ok, reason = h.set_parameter(name, value)
        result.check('payload refused with a reason', not ok and reason, reason)
        time.sleep(0.5)
    return script


def two_sources(h, result):
    h.second_source()
    if not start(h, result):
        return
    time.sleep(0.3)  # the controller has counted the two publishers (diagnostics rate)
    h.feed_mode = 'two_sources'
    time.sleep(1.5)
    diag = [d for d in h.diagnostics[-5:]]
    result.check('diagnostics ERROR naming the sources',
                 any(d[1] == 2 and 'disagree' in d[2] for d in diag), str(diag[-1:]))
    late = np.diff(np.array([c for t, c in h.commands[-500:]]), axis=0)
    flips = 0
    for column in late.T:  # sign reversals of each joint's changes (chatter), zeros skipped
        signs = np.sign(column[np.abs(column) > 1e-9])
        flips += int(np.sum(signs[1:] != signs[:-1]))
    result.check('no chatter', flips < 20, f'{flips} reversals in the last 500 commands')


def reconfigure(h, result):
    if not start(h, result):
        return
    for label in ('deactivate', 'cleanup', 'configure', 'activate'):
        if label == 'deactivate':
            h.pause()
        result.check(f'{label} succeeds', *h.transition(label, 30.0))
    h.resume()
    h.wait_commands(len(h.commands) + 500)
    h.mark_stop()


def running_goal(h, result):
    """Stream states, send a 4 s goal and let it run 0.5 s: (commands flow, the goal's
    result future or None when it was not accepted)."""
    h.prepare_clients()
    if not start(h, result):
        return False, None
    _, future = h.send_goal(h.action_client(), h.trajectory(4, 4.0, delta=0.1))
    time.sleep(0.5)
    return True, future


def signal_during_goal(h, result):
    started, future = running_goal(h, result)
    if not started:
        return
    h.signal(signal.SIGINT)
    ok = future is not None and h.wait_future(future, 2.0)
    result.check('goal gets a result', ok, 'no result')


def goal_then(labels):
    """Script: a goal runs, then the transitions ``labels``: it gets a result within 2 s."""
    def script(h, result):
        started, future = running_goal(h, result)
        if not started:
            return
        h.mark_stop()
        t0 = time.monotonic()
        for label in labels:
            result.check(f'{label} succeeds', *h.transition(label, 10.0))
        ok = future is not None and h.wait_future(future, 2.0 - (time.monotonic() - t0))
        result.check('goal gets a result within 2 s', ok, 'no result')
    return script


def shutdown_transition(h, result):
    """The shutdown transition, then the exit: timed from the moment the node logged it
    took the shutdown (the request's way through the probe's service client is the
    machine's: beside two hogs it can take most of the 2 s), or from the request when the
    line is missing."""
    if not start(h, result):
        return
    h.mark_stop()
    t0 = time.monotonic()
    result.check('shutdown succeeds', *h.transition('shutdown'))
    try:
        h.proc.wait(timeout=5.0)
    except Exception:  # noqa: BLE001 - still alive: the check below fails
        return
    waited, (_, taken) = time.monotonic() - t0, h.logged('-> inactive: shutdown')
    h.exit_time = waited if taken is None else min(waited, time.time() - taken)


def signal_cold_configure(h, result):
    h.feed()
    time.sleep(4.0)  # numba compiling into an empty cache
    h.signal(signal.SIGINT)


def signal_at(phase, signum):
    def script(h, result):
        if phase == 'active':
            if not start(h, result):
                return
        else:
            h.wait_output('autostart is false' if phase == 'idle' else 'configured', 60.0)
        if phase == 'active':
            h.feed(False)  # the last state published is the last valid one
            h.mark_stop()  # from here the exit is checked (the watchdog: stall_and_recovery)
            time.sleep(0.05)
        h.signal(signum)
        if phase == 'active' and h.commands:
            last = h.commands[-1][1]
            q = h.state_log[-1][1]
            hold = hold_torque(q)
            result.check('safe command published last', np.max(np.abs(last - hold)) < 0.05,
                         f'{np.max(np.abs(last - hold)):.3g} N m from g(q)')
    return script


def hold_torque(q):
    from robodyn_ros.dynamics import RigidBodyDynamics
    return RigidBodyDynamics(model()).gravity_vector(q)


def flood(mode, seconds=2.0):
    def script(h, result):
        if not start(h, result):
            return
        h.feed_mode = mode
        time.sleep(seconds)
    return script


def zero_stamp(h, result):
    if not start(h, result, 1000):
        return
    out = h.output()
    result.check('no clock jump logged', 'clock jumped' not in out, out[-200:])
    stamps = [s for _, s, _ in h.references]
    result.check("reference stamps on the states' time base (from 0)",
                 stamps and max(stamps) < 100.0 and min(np.diff(stamps)) >= 0,
                 f'{min(stamps):.3f}..{max(stamps):.3f} s' if stamps else 'none')


def nan_and_stall(h, result):
    if not start(h, result):
        return
    h.feed(False)
    time.sleep(0.3)
    h.feed(True)
    time.sleep(1.0)


def refused_topic_trajectory(kind, words):
    """Script: a hostile trajectory on the topic is refused with one line naming
    ``words``; the reference never leaves the limits (checked on every case with
    references); commands keep flowing."""
    def script(h, result):
        if not start(h, result):
            return
        n0 = len(h.commands)
        # From a process of its own, as a real sender is: sending 10.9 MB holds the
        # sender's interpreter lock, and the probe's receipt times must not pause with it.
        line = h.goal_process(1, 1.0, 0.1, kind, 'topic').communicate(timeout=60)[0].strip()
        result.check('trajectory sent', line == 'published', line)
        time.sleep(2.0)
        lines = [line for line in h.output().splitlines() if 'trajectory rejected' in line]
        result.check('refused with one line naming the fault',
                     len(lines) == 1 and all(w in lines[0] for w in words) and
                     len(lines[0]) < 1000, lines[0][:300] if lines else h.output()[-300:])
        result.check('commands keep flowing', len(h.commands) - n0 > 1000,
                     f'{len(h.commands) - n0} commands in 2 s')
        h.mark_stop()
    return script


def refused_goal(kind):
    """Script: a hostile FollowJointTrajectory goal gets one final, failing result."""
    def script(h, result):
        if not start(h, result):
            return
        proc = h.goal_process(1, 1.0, 0.1, kind)
        line = proc.communicate(timeout=120)[0].strip()
        time.sleep(1.0)
        h.mark_stop()
        result.check('goal refused or failed', line == 'refused' or
                     (line.startswith('result') and not line.startswith('result 0 ')), line)
        long_lines = [x for x in h.output().splitlines() if len(x) > 1000]
        result.check('no log line above 1000 characters', not long_lines,
                     f'{len(long_lines)} lines, longest {max(map(len, long_lines), default=0)}')
    return script


def tracking_guard(h, result):
    """The arm does not follow (the fake arm ignores the commands, as a paused simulation
    does): the tracking guard holds the position, says why, at rate."""
    if not start(h, result):
        return
    time.sleep(2.5)  # the fake arm swings 0.2 rad: beyond the guard's 0.1
    errors = [d for d in h.diagnostics if d[1] == 2 and 'tracking error' in d[2]]
    result.check('diagnostics ERROR naming the tracking error and the hold',
                 bool(errors) and 'position hold' in errors[-1][2],
                 str(h.diagnostics[-1:]))
    h.mark_stop()


def catching_up(h, result):
    """One publisher whose stamps lag its motion (bursts of 19 mrad per ms): accepted and
    said, never 'two publishers that disagree', never safe mode."""
    if not start(h, result):
        return
    time.sleep(0.5)  # the controller has counted the publishers (diagnostics rate)
    h.feed_mode = 'catching_up'
    time.sleep(3.0)
    h.feed_mode = 'normal'
    time.sleep(0.3)
    out = h.output()
    result.check('no two-publisher fault', 'disagree' not in out,
                 out[out.find('disagree') - 200:][:300] if 'disagree' in out else '')
    result.check('the lag named', 'stamps lag its motion' in out, out[-300:])
    result.check('not in safe mode', bool(h.diagnostics) and h.diagnostics[-1][1] == 0,
                 str(h.diagnostics[-1:]))


#: payload_storm: sets of an impossible payload (refused by the node's check in
#: microseconds) at 100 a second, then as many good ones a second (count, count, kg).
STORM_BASELINE_SETS, STORM_SETS, STORM_REFUSED_MASS = 300, 500, -1.0
#: The storm's answer rate against the refused sets' (the same service traffic): what
#: preparing and swapping payloads costs the control thread, not the machine or rclpy's
#: service. A state arriving before the last was taken replaces it (keep-last 1): a quiet
#: run answers 93 %, two CPU hogs 63-72 %, 100 calls a second 48-61 % whatever they set.
#: 2-core VM: 0.88 idle, 0.86-1.11 in 11 runs beside two hogs (0.64 once against quiet).
STORM_RATIO = 0.75


def payload_storm(h, result):
    """payload.mass set 0.5 / 1.0 alternately, 100 a second for 5 s: the states answered
    keep STORM_RATIO of their rate under as many refused sets (the same service traffic;
    silences are checked on every case)."""
    if not start(h, result):
        return
    windows = []  # (commands, states) of each window, counted as it ends

    def window(job):
        n, t = len(h.commands), time.monotonic()
        done = job()
        windows.append(h.answered(n, t, time.monotonic()))  # commands: all received so far
        return done
    window(lambda: time.sleep(2.0))  # the node's own rate on this machine, as loaded as now
    accepted = window(lambda: _set_storm(h, [STORM_REFUSED_MASS] * STORM_BASELINE_SETS))
    refused = STORM_SETS - window(lambda: _set_storm(
        h, [0.5 if k % 2 else 1.0 for k in range(STORM_SETS)]))
    h.mark_stop()
    result.check('every set answered and accepted', refused == 0, f'{refused} refused')
    result.check('every impossible payload refused', accepted == 0,
                 f'{accepted} of {STORM_BASELINE_SETS} accepted')
    runs = dict(zip(('quiet', 'refused sets', 'storm'), windows))  # (commands, states)
    rate = {label: n / max(states, 1) for label, (n, states) in runs.items()}
    result.check(f'states answered during the storm (>= {STORM_RATIO} x during as many '
                 'refused sets)', rate['storm'] >= STORM_RATIO * rate['refused sets'], '; '.join(
                     f'{label}: {n} commands for {states} states ({rate[label]:.0%})'
                     for label, (n, states) in runs.items()))


def _set_storm(h, masses):
    """Set payload.mass to each of ``masses``, 100 a second; how many were accepted."""
    t0, accepted = time.monotonic(), 0
    for k, mass in enumerate(masses):
        accepted += bool(h.set_parameter('payload.mass', mass)[0])
        time.sleep(max(0.0, t0 + (k + 1) * 0.01 - time.monotonic()))
    return accepted


def cleanup_while_streaming(h, result):
    """deactivate -> cleanup -> configure -> activate five times while states stream: no
    internal error (a state taken just before cleanup)."""
    if not start(h, result):
        return
    for _ in range(5):
        h.pause()
        for label in ('deactivate', 'cleanup', 'configure', 'activate'):
            result.check(f'{label} succeeds', *h.transition(label, 30.0))
        h.resume()
        time.sleep(0.3)
    out = h.output()
    result.check('no internal error', 'internal error' not in out,
                 out[out.find('internal error') - 100:][:300] if 'internal error' in out
                 else '')
    h.mark_stop()


def bad_argument(h, result):
    """An argument rcl refuses (an empty value): exit 2 with one line naming it."""
    try:
        code = h.proc.wait(timeout=30.0)
    except Exception:  # noqa: BLE001 - still running: the check below fails
        code = None
    lines = [line for line in h.output().splitlines() if line.strip()]
    ours = [line for line in lines if line.startswith('controller: error')]
    result.check('exit 2', code == 2, f'exit {code}')
    result.check('one line naming the argument', len(ours) == 1 and
                 'command_topic' in ours[0] and len(lines) <= 2, '\n'.join(lines)[-300:])
