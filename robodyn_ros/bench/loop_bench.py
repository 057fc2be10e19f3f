"""Loop benchmark across processes: does the controller keep up with a 1 kHz state stream?

Three processes on this machine (each its own DDS participant, localhost only):

* ``publish``: JointState at ``rate`` with header stamps taken from CLOCK_MONOTONIC; a
  tick already past is skipped, as an rcl timer does (nodes.loop_bench_nodes.next_tick);
* the target: the robodyn controller (trigger 'state', hold reference) or, as the floor,
  a bare rclpy ``echo`` node answering each state with the same two messages (a
  Float64MultiArray command and a JointState reference carrying the state's stamp), once
  with rclpy's message objects and once serialized as the controller does (raw
  subscription, CDR read and written in place: io.cdr);
* ``listen``: receives the reference (the controller publishes it right after the
  command, with the answered state's stamp): latency = receipt - stamp on the shared
  monotonic clock; and /diagnostics for the controller's own compute time.

The three are nodes (nodes/loop_bench_nodes.py); ``run_loop_bench`` starts them as
processes, one run per target, and returns the figures (loop_figures.py);
``robodyn bench --loop`` prints them. Not a timed test: numbers depend on the machine and
its load.
"""

import json
import os
import subprocess
import sys
import time

import numpy as np

from ..defaults import REFERENCE_TOPIC
from ..errors import BenchmarkError
from ..nodes.dds_transport import apply_transport
from .loop_figures import cpu_times, loop_figures, steal_percent

__all__ = ['run_loop_bench']

#: Seconds after the publisher first sees the target's subscription before states count
#: (the target's side of the match may take that long); every state after it counts, the
#: first seconds of a node's life included, as an outside harness counts them.
WARMUP = 0.5


def _spawn(*argv, cpus=None, fifo=0):
    def pin():
        if cpus:
            os.sched_setaffinity(0, cpus)
        if fifo:  # before exec: every thread of the node (DDS ones too) inherits it
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(fifo))
    return subprocess.Popen([sys.executable, *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, preexec_fn=pin)


def _wait_for(proc, word, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if word in line:
            return
        if not line and proc.poll() is not None:
            break
    raise BenchmarkError(f'{proc.args[1:3]} did not print {word!r} within {timeout} s')


def _one_run(target, duration, rate, tmp, pin=False, extra=(), fifo=0):
    module = 'robodyn_ros.nodes.loop_bench_nodes'
    ncpu = os.cpu_count() or 1
    target_cpus = {ncpu - 1} if pin and ncpu > 1 else None
    others = set(range(ncpu - 1)) if pin and ncpu > 1 else None
    if target == 'controller':
        proc = _spawn('-m', 'robodyn_ros.nodes.controller_main', '--ros-args', '-p',
                      'robot:=panda', '-p', 'tip_link:=panda_hand', '-p', 'autostart:=true', '-p',
                      'reference:=hold', '-p', 'kp:=[400.0]', '-p', 'kd:=[40.0]', '-p',
                      'include_friction:=true', '-p', 'diagnostics_period:=1.0', *extra,
                      cpus=target_cpus, fifo=fifo)
    else:
        proc = _spawn('-m', module, 'echo', json.dumps({'raw': target == 'echo_raw'}),
                      cpus=target_cpus, fifo=fifo)
    answers, stamps = (os.path.join(tmp, f'{target}_{k}.npy') for k in ('answers', 'stamps'))
    warmup = WARMUP
    try:
        _wait_for(proc, 'configured', 120.0)
        listener = _spawn('-m', module, 'listen', json.dumps(dict(
            out=answers, seconds=warmup + duration + 40.0,
            reference_topic=REFERENCE_TOPIC)), cpus=others)
        _wait_for(listener, 'ready', 60.0)
        time.sleep(1.0)
        before = cpu_times()
        publisher = _spawn('-m', module, 'publish', json.dumps(dict(
            out=stamps, rate=rate, warmup=warmup, duration=duration)), cpus=others)
        publisher.wait(timeout=warmup + duration + 60)
        after = cpu_times()
        listener.wait(timeout=60)
    finally:
        proc.send_signal(2)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    figures = loop_figures(np.load(stamps), np.load(answers),
                           np.load(answers.replace('.npy', '_compute.npy')))
    figures['ticks_skipped'] = int(np.load(stamps.replace('.npy', '_skipped.npy'))[0])
    figures['steal_pct'] = steal_percent(before, after)
    return figures


def run_loop_bench(duration=30.0, rate=1000.0, tmp='/tmp', pin=False, fifo=0):
    """Echo floors (message objects, then serialized), then the controller, each for
    ``duration`` [s] at ``rate`` [Hz].

    ``pin``: the node under test on the last CPU, publisher and listener on the others
    (as a real-time deployment isolates its controller), the same for both runs.
    ``fifo``: run the node under test with SCHED_FIFO at this priority (ros2_control's
    controller_manager runs its loop at 50), the same for both runs; 0: normal.
    """
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    os.environ.setdefault('ROS_DOMAIN_ID', '43')
    apply_transport()  # the transport the controller's process chooses, for every process
    runs = {name: _one_run(name, duration, rate, tmp, pin, fifo=fifo)
            for name in ('echo', 'echo_raw', 'controller')}
    controller = runs['controller']['latency_ms']
    ratios = {floor: {k: controller[k] / max(runs[floor]['latency_ms'][k], 1e-9)
                      for k in ('p50', 'p99')} for floor in ('echo', 'echo_raw')}
    return {'duration_s': duration, 'rate_hz': rate, 'pinned': pin, 'fifo': fifo, **runs,
            'latency_ratio': ratios['echo'], 'latency_ratio_raw': ratios['echo_raw']}

