"""The loop benchmark's node processes (``robodyn bench --loop``, bench/loop_bench.py
starts them): ``publish`` sends JointState at a rate on CLOCK_MONOTONIC stamps, ``listen``
records the answers and the controller's diagnostics, ``echo`` is the floor, a bare node
answering each state with the controller's two messages.

Run as ``python -m robodyn_ros.nodes.loop_bench_nodes ROLE JSON_ARGS``; rclpy is imported
inside each role, so importing this module (for PANDA_Q0, next_tick) does not load it.
"""

import json
import math
import sys
import time

import numpy as np

from ..defaults import COMMAND_TOPIC, CONTROLLER_NAME, JOINT_STATES
from ..model.registry import PANDA_HOME

__all__ = ['PANDA_JOINTS', 'PANDA_Q0', 'next_tick']

PANDA_JOINTS = [f'panda_joint{i}' for i in range(1, 8)]
PANDA_Q0 = list(PANDA_HOME)


def next_tick(tick, period, now):
    """The publisher's next tick after ``tick`` [s], called at ``now`` [s], and how many
    ticks it skips, as rcl_timer_call does: a tick already past is skipped, not sent late
    in a burst (states microseconds apart leave keep-last-1 subscribers, by design, only
    the newest: the benchmark would measure the publisher's wake-ups, not the node)."""
    tick += period
    missed = math.ceil((now - tick) / period) if tick < now else 0
    return tick + missed * period, missed


def _matched(node, pub, timeout: float) -> float:
    """The time [s, monotonic] the target's subscription was first seen (the count starts
    from there: states sent before anyone listens are nobody's to answer)."""
    deadline = time.monotonic() + timeout
    while pub.get_subscription_count() < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    return time.monotonic()


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
    start = _matched(node, pub, args.get('match_timeout', 30.0))
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
    while time.monotonic() < end and not (answers and time.monotonic() - answers[-1][1] > 2.0):
        executor.spin_once(timeout_sec=0.05)  # until 2 s without an answer, once they came
    np.save(args['out'], np.array(answers).reshape(-1, 2))
    np.save(args['out'].replace('.npy', '_compute.npy'), np.array(compute).reshape(-1, 7))
    node.destroy_node()
    rclpy.shutdown()


def _echo(args: dict) -> None:
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
    from .node_runner import run_node

    def build() -> Node:
        node = Node(CONTROLLER_NAME)
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


if __name__ == '__main__':
    {'publish': _publish, 'listen': _listen, 'echo': _echo}[sys.argv[1]](
        json.loads(sys.argv[2]))
