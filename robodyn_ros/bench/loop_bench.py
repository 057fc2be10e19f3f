"""Loop benchmark across processes: does the controller keep up with a 1 kHz state stream?

Three processes on this machine (each its own DDS participant, localhost only):

* ``publish``: JointState at ``rate`` with header stamps taken from CLOCK_MONOTONIC; a
  tick already past is skipped, as an rcl timer does (validation.loop_figures.next_tick);
* the target: the robodyn controller (trigger 'state', hold reference) or, as the floor,
  a bare rclpy ``echo`` node answering each state with the same two messages (a
  Float64MultiArray command and a JointState reference carrying the state's stamp), once
  with rclpy's message objects and once serialized as the controller does (raw
  subscription, CDR read and written in place: io.cdr);
* ``listen``: receives the reference (the controller publishes it right after the
  command, with the answered state's stamp): latency = receipt - stamp on the shared
  monotonic clock; and /diagnostics for the controller's own compute time.

``run_loop_bench`` orchestrates the runs and returns the figures (validation.loop_figures);
``robodyn bench --loop`` prints them. Not a timed test: numbers depend on the machine and
its load.
"""

import json
import os
import subprocess
import sys
import time

import numpy as np

from ..defaults import COMMAND_TOPIC, JOINT_STATES, REFERENCE_TOPIC
from ..errors import BenchmarkError
from .loop_figures import cpu_times, loop_figures, next_tick, steal_percent

__all__ = ['run_loop_bench']

PANDA_JOINTS = [f'panda_joint{i}' for i in range(1, 8)]
PANDA_Q0 = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785]


def _publish(args):
    import rclpy
    from sensor_msgs.msg import JointState
    rclpy.init()
    node = rclpy.create_node('loop_bench_publisher')
    pub = node.create_publisher(JointState, JOINT_STATES, 10)
    msg = JointState()
    msg.name = PANDA_JOINTS
    msg.position, msg.velocity = PANDA_Q0, [0.0] * 7
    period = 1.0 / args['rate']
    start = time.monotonic()
    window = (start + args['warmup'], start + args['warmup'] + args['duration'])
    stamps, skipped = [], 0
    tick = start + period
    while tick < window[1]:
        wait = tick - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        now = time.monotonic()
        msg.header.stamp.sec, msg.header.stamp.nanosec = int(now), int((now % 1) * 1e9)
        pub.publish(msg)
        if window[0] <= now:
            stamps.append(msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9)
        tick, missed = next_tick(tick, period, now)
        skipped += missed if window[0] <= now else 0
    np.save(args['out'], np.array(stamps))
    np.save(args['out'].replace('.npy', '_skipped.npy'), np.array([skipped]))
    node.destroy_node()
    rclpy.shutdown()


def _listen(args):
    from diagnostic_msgs.msg import DiagnosticArray
    import rclpy
    from rclpy.qos import QoSProfile
    from sensor_msgs.msg import JointState
    rclpy.init()
    node = rclpy.create_node('loop_bench_listener')
    answers, compute = [], []

    def on_reference(msg):
        now = time.monotonic()
        answers.append((msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9, now))

    def on_diagnostics(msg):
        for status in msg.status:
            values = {kv.key: kv.value for kv in status.values}
            if 'compute_p99_us' in values:
                compute.append((time.monotonic(), float(values['compute_p50_us']),
                                float(values['compute_p99_us']), float(values['wall_p50_us']),
                                float(values['wall_p99_us']),
                                float(values['compute_run_p50_us']),
                                float(values['compute_run_p99_us'])))
    node.create_subscription(JointState, args['reference_topic'], on_reference,
                             QoSProfile(depth=1000))
    node.create_subscription(DiagnosticArray, '/diagnostics', on_diagnostics, 10)
    from rclpy.experimental import EventsExecutor
    executor = EventsExecutor()  # the lightest listener: it shares the 2 cores too
    executor.add_node(node)
    end = time.monotonic() + args['seconds']
    print('ready', flush=True)
    while time.monotonic() < end:
        executor.spin_once(timeout_sec=0.05)
    np.save(args['out'], np.array(answers).reshape(-1, 2))
    np.save(args['out'].replace('.npy', '_compute.npy'), np.array(compute).reshape(-1, 7))
    node.destroy_node()
    rclpy.shutdown()


def _echo(args):
    """The floor: answer each state with the controller's two messages, nothing else, in
    the controller's own main loop (run_node, EventsExecutor); ``raw``: with the
    controller's serialized input and output instead of message objects."""
    import array

    from rclpy.node import Node
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray

    from ..io.cdr import (
        Float64MultiArrayWriter,
        JointStateLayout,
        JointStateWriter,
        stamp_parts,
    )
    from ..nodes.node_support import run_node

    def build():
        node = Node('robodyn_controller')
        cmd = node.create_publisher(Float64MultiArray, COMMAND_TOPIC, 1)
        ref = node.create_publisher(JointState, '~/reference', 10)
        out = JointState()
        out.name = PANDA_JOINTS
        layout: list[JointStateLayout | None] = [None]
        cmd_wire, ref_wire = Float64MultiArrayWriter(7), JointStateWriter(PANDA_JOINTS)

        def on_state(msg):
            cmd.publish(Float64MultiArray(data=array.array('d', msg.position)))
            out.header.stamp = msg.header.stamp
            out.position, out.velocity, out.effort = msg.position, msg.velocity, msg.position
            ref.publish(out)

        def on_raw_state(data):
            reader = layout[0]
            if reader is None or not reader.matches(data):
                reader = layout[0] = JointStateLayout(data)
            position, velocity, _ = reader.values(data)
            cmd.publish(cmd_wire(position))
            ref.publish(ref_wire(*stamp_parts(reader.stamp(data)), position, velocity,
                                 position))
        node.create_subscription(JointState, JOINT_STATES,
                                 on_raw_state if args.get('raw') else on_state,
                                 QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT),
                                 raw=bool(args.get('raw')))
        print('configured', flush=True)
        return node
    run_node(build, 'echo', events_executor=True)


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
    module = 'robodyn_ros.bench.loop_bench'
    ncpu = os.cpu_count() or 1
    target_cpus = {ncpu - 1} if pin and ncpu > 1 else None
    others = set(range(ncpu - 1)) if pin and ncpu > 1 else None
    if target == 'controller':
        proc = _spawn('-m', 'robodyn_ros.nodes.controller', '--ros-args', '-p', 'robot:=panda',
                      '-p', 'tip_link:=panda_hand', '-p', 'autostart:=true', '-p',
                      'reference:=hold', '-p', 'kp:=[400.0]', '-p', 'kd:=[40.0]', '-p',
                      'include_friction:=true', '-p', 'diagnostics_period:=1.0', *extra,
                      cpus=target_cpus, fifo=fifo)
    else:
        proc = _spawn('-m', module, 'echo', json.dumps({'raw': target == 'echo_raw'}),
                      cpus=target_cpus, fifo=fifo)
    answers, stamps = (os.path.join(tmp, f'{target}_{k}.npy') for k in ('answers', 'stamps'))
    warmup = 2.0
    try:
        _wait_for(proc, 'configured', 120.0)
        listener = _spawn('-m', module, 'listen', json.dumps(dict(
            out=answers, seconds=warmup + duration + 2.0,
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
    runs = {name: _one_run(name, duration, rate, tmp, pin, fifo=fifo)
            for name in ('echo', 'echo_raw', 'controller')}
    controller = runs['controller']['latency_ms']
    ratios = {floor: {k: controller[k] / max(runs[floor]['latency_ms'][k], 1e-9)
                      for k in ('p50', 'p99')} for floor in ('echo', 'echo_raw')}
    return {'duration_s': duration, 'rate_hz': rate, 'pinned': pin, 'fifo': fifo, **runs,
            'latency_ratio': ratios['echo'], 'latency_ratio_raw': ratios['echo_raw']}


if __name__ == '__main__':
    {'publish': _publish, 'listen': _listen, 'echo': _echo}[sys.argv[1]](
        json.loads(sys.argv[2]))
