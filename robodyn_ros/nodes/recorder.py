"""Record chosen topics to a rosbag2 directory (rosbags; mcap by default, sqlite3 on request).

Topics are subscribed as raw CDR (no deserialization) once their type is known: given in
the ``types`` parameter or discovered from the ROS graph. The bag is closed cleanly on
SIGINT/SIGTERM; everything older than ``flush_period`` is kept even if the recorder is
killed (SIGKILL, the OOM killer; a power loss loses what the kernel had not yet written:
io.bag_writer), and ``robodyn validate`` recovers such a bag.

Each message's publisher and publication sequence number are checked: messages lost
while the recorder lagged (a keep-last writer overwrote them) are counted per topic and
stored in the bag's metadata (io.sequence_gaps), so validation never reads two commands
with lost ones between them as one published step; the recorder says so when it closes.

The messages are taken by the recorder's own wait loop (:meth:`RecorderNode.spin_once`),
not by an executor: rclpy's EventsExecutor cannot hand a callback the message info (it
raises SystemError), and the Python executor costs 58 % of a core for three 1 kHz topics
here against this loop's 23 % (the EventsExecutor's 20 %): CPU the controller needs.
"""

import importlib
import os
import time

import rclpy
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile

from ..defaults import (
    COMMAND_TOPIC,
    CONTROLLER_STATE_TOPIC,
    DIAGNOSTICS_TOPIC,
    JOINT_STATES,
    REFERENCE_TOPIC,
    TARGET_TOPIC,
)
from ..errors import BagError, ConfigError
from ..io.bag_writer import BagWriter
from ..io.sequence_gaps import CUSTOM_DATA_KEY, SequenceGaps
from .dds_transport import OPT_IN
from .node_parameters import declare
from .node_runner import run_node

__all__ = ['RecorderNode', 'main']

#: What validation needs, plus the clock, the robot description and the transforms.
DEFAULT_TOPICS = ['/' + JOINT_STATES, '/' + COMMAND_TOPIC, REFERENCE_TOPIC,
                  CONTROLLER_STATE_TOPIC, DIAGNOSTICS_TOPIC, TARGET_TOPIC, '/clock',
                  '/robot_description', '/tf', '/tf_static']
#: Topics published transient local (latched): recorded with a matching subscription.
LATCHED = ('/robot_description', '/tf_static')
#: The most wall time one turn of the loop takes messages [s]: with a backlog (the recorder
#: runs niced, and a busy machine starves it) the loop still sees a signal this often, so
#: the bag is closed within the exit deadline.
TURN = 0.02


def _msg_class(msgtype):
    pkg, _, name = msgtype.split('/')
    return getattr(importlib.import_module(f'{pkg}.msg'), name)


#: The default flush_period [s]: a killed recorder loses at most this much of what it took.
FLUSH_PERIOD = 0.1
#: A topic is silent when nothing came for this long [s], and for ten of its mean intervals
#: so far, while a publisher offers it: the recorder says so, subscribes again, and the bag
#: notes the stretch it lacks (io.sequence_gaps).
SILENT = 2.0
#: At close, how long [s] the recorder keeps taking what DDS had already delivered to it and
#: it had not yet taken (a backlog after a stall): those are recorded, not left out of both
#: the bag and its lost count. Bounded, as the process exits within node_runner's
#: EXIT_DEADLINE of the signal.
CLOSE_DRAIN = 0.3


class RecorderNode(Node):
    """Subscribe raw to each topic and append to the bag (receive time on the node clock)."""

    def __init__(self, **kwargs):
        super().__init__('robodyn_recorder', **kwargs)
        self.topics = declare(self, 'topics', DEFAULT_TOPICS, 'topics to record')
        types = declare(self, 'types', [''], "'topic=pkg/msg/Type' entries (else discovered)")
        path = declare(self, 'bag_path', 'robodyn_bag', 'output rosbag2 directory')
        storage = declare(self, 'storage', 'mcap', 'mcap | sqlite3')
        self.known = dict(t.split('=', 1) for t in types if '=' in t)
        niceness = declare(self, 'nice', 10, 'raise the process niceness by this much '
                           '(0-19): recording yields the CPU to control (the queues hold '
                           '10 s)', dynamic=True)
        if type(niceness) is not int or not 0 <= niceness <= 19:
            raise ConfigError(f'nice: expected an integer 0-19, got {niceness!r}')
        if niceness:
            os.nice(niceness)
        flush = declare(self, 'flush_period', FLUSH_PERIOD, 'make the bag durable at least '
                        'this often [s] (a killed recorder loses at most that much)')
        self.bag = BagWriter(path, storage, flush_period=flush)
        self.gaps = SequenceGaps()
        # The subscriptions live on a node no executor spins: spin_once takes them. It
        # takes no command-line arguments (a launch file's node name would be its name
        # too); the names it subscribes to are resolved by this node (remaps, namespace).
        self.sink = rclpy.create_node('robodyn_recorder_sink', context=self.context,
                                      start_parameter_services=False,
                                      use_global_arguments=False, enable_rosout=False)
        self.wait_set = None
        self.next_service = 0.0
        self.turn = 0  # turns of the loop (which topic is taken first)
        self.subs = {}
        self.heard = {}  # topic -> [first, last receive time ns, messages]
        self.silent = {}  # topic -> receive time ns of its last message before the silence
        self.next_silence_check = 0.0
        self.qos = QoSProfile(depth=10000)
        self.latched_qos = QoSProfile(depth=100, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.discover()
        self.create_timer(0.5, self.discover)

    def discover(self):
        """Subscribe to every wanted topic whose type is known or visible in the graph."""
        graph = dict(self.get_topic_names_and_types())
        for topic in self.topics:
            if topic in self.subs:
                continue
            offered = graph.get(topic)
            msgtype = self.known.get(topic) or (offered[0] if offered else None)
            if msgtype is None:
                continue
            try:
                cls = _msg_class(msgtype)
                self.bag.add_topic(topic, msgtype)
            except (ImportError, AttributeError, ValueError, BagError) as exc:
                self.get_logger().warning(f'not recording {topic} ({msgtype}): {exc}')
                self.subs[topic] = None
                continue
            self._subscribe(topic, cls)

    def _subscribe(self, topic, cls):
        self.subs[topic] = self.sink.create_subscription(
            cls, self.resolve_topic_name(topic), lambda _data: None,
            self.latched_qos if topic in LATCHED else self.qos, raw=True)
        self.wait_set = None

    def check_silence(self, now_ns, waiting=frozenset()):
        """Each recorded topic that stopped arriving while a publisher still offers it
        (SILENT; none in ``waiting``, the topics with messages still to take): say so once,
        note where the bag starts to lack it, subscribe again."""
        for topic, (first, last, count) in self.heard.items():
            sub = self.subs.get(topic)
            if topic in self.silent or topic in LATCHED or topic in waiting or sub is None \
                    or count < 2:
                continue
            quiet = (now_ns - last) * 1e-9
            if quiet < max(SILENT, 10e-9 * (last - first) / (count - 1)):
                continue
            offered = self.sink.count_publishers(self.resolve_topic_name(topic))
            if not offered:
                continue
            self.silent[topic] = last
            self.get_logger().warning(
                f'nothing received on {topic} for {quiet:.1f} s although {offered} '
                'publisher(s) offer it (a publisher that stopped, or a recorder that no '
                'longer receives): subscribing again; the bag notes the stretch it lacks')
            cls = sub.msg_type
            self.sink.destroy_subscription(sub)
            self._subscribe(topic, cls)

    def spin_once(self, executor, timeout_sec):
        """Wait up to ``timeout_sec`` [s] for messages and record every one taken; the
        node's own timer and parameter services go through ``executor`` every 50 ms."""
        now = time.monotonic()
        if now >= self.next_service:
            executor.spin_once(timeout_sec=0.0)
            self.next_service = now + 0.05
        subs = [(t, s) for t, s in self.subs.items() if s is not None]
        if not subs:
            time.sleep(min(timeout_sec, 0.05))
            return
        if self.wait_set is None:
            handle = self.context.handle
            if handle is None:  # the context is shut down: nothing to wait for
                return
            self.wait_set = _rclpy.WaitSet(len(subs), 0, 0, 0, 0, 0, handle)
        wait_set = self.wait_set
        wait_set.clear_entities()
        for _, sub in subs:
            wait_set.add_subscription(sub.handle)
        wait_set.wait(int(1e9 * min(timeout_sec, 0.05)))
        ready = wait_set.get_ready_entities('subscription')
        deadline = time.monotonic() + TURN
        self.turn += 1  # each topic first in turn: a backlog on one does not starve the rest
        first = self.turn % len(subs)
        for topic, sub in subs[first:] + subs[:first]:
            if sub.handle.pointer in ready:
                self._take_all(topic, sub, deadline)
        if now >= self.next_silence_check:  # a topic with messages waiting is not silent
            self.check_silence(self.get_clock().now().nanoseconds,
                               {t for t, s in subs if s.handle.pointer in ready})
            self.next_silence_check = now + 0.5

    def take_ready(self):
        """Record every message already received, without waiting (a caller that spins
        this node on an executor of its own, as the lock-step demo does)."""
        for topic, sub in self.subs.items():
            if sub is not None:
                self._take_all(topic, sub)

    def _take_all(self, topic, sub, deadline=None):
        """Record the messages ``sub`` has received, until none is left or the monotonic
        ``deadline`` [s] has passed (the rest wait for the next turn)."""
        while deadline is None or time.monotonic() < deadline:
            taken = sub.handle.take_message(sub.msg_type, True)
            if taken is None:
                return
            self.on_message(topic, taken[0], taken[1])

    def on_message(self, topic, data, info=None):
        """Append one serialized message (``info``: rclpy's MessageInfo dict)."""
        now = self.get_clock().now().nanoseconds
        self.bag.write(topic, now, data)
        heard = self.heard.get(topic)
        if heard is None:
            heard = self.heard[topic] = [now, now, 0]
        heard[1], heard[2] = now, heard[2] + 1
        if topic in self.silent:
            start = self.silent.pop(topic)
            self.gaps.silence(topic, start, now)
            self.get_logger().info(f'receiving {topic} again after {(now - start) * 1e-9:.1f} s')
        if info:
            gid = info.get('publisher_gid') or {}
            self.gaps.note(topic, bytes(gid.get('data', b'')),
                           info.get('publication_sequence_number'), now)

    def close(self):
        """Record what was received and not yet taken (for up to CLOSE_DRAIN), store the
        lost-message summary, say what was lost, and close the bag."""
        deadline = time.monotonic() + CLOSE_DRAIN
        for topic, sub in list(self.subs.items()):
            if sub is not None:
                try:
                    self._take_all(topic, sub, deadline)
                except RuntimeError as exc:  # the context is gone: what was taken is kept
                    self.get_logger().warning(f'{topic}: not drained at close: {exc}')
                    break
        now = self.get_clock().now().nanoseconds
        for topic, start in sorted(self.silent.items()):
            self.gaps.silence(topic, start, None)
            self.get_logger().warning(f'nothing of {topic} received in the last '
                                      f'{(now - start) * 1e-9:.1f} s before closing the bag, '
                                      'although a publisher offered it')
        lost = {t: e['lost'] for t, e in self.gaps.topics.items() if e['lost']}
        if lost:
            self.get_logger().warning(
                'messages lost while the recorder lagged (the publishers overwrote them): '
                + ', '.join(f'{t} {n}' for t, n in sorted(lost.items())))
        self.bag.set_custom_data(CUSTOM_DATA_KEY, self.gaps.to_json())
        self.bag.close()

    #: run_node ends the process right after :meth:`close`: the bag is complete, and
    #: tearing down the DDS entities (rclpy holds the interpreter lock while it destroys a
    #: subscription) took over 2 s on a loaded machine, past the exit deadline.
    exit_after_close = True

    def destroy_node(self):
        """The sink node too (a recorder used in-process; none when the constructor
        refused a parameter before making it)."""
        sink = getattr(self, 'sink', None)
        if sink is not None:
            sink.destroy_node()
        super().destroy_node()


def main(args=None):
    """Record until SIGINT/SIGTERM, then close the bag.

    The recorder joins DDS on UDP unless ``ROBODYN_DDS_TRANSPORT`` names a transport
    (``shm``: Fast DDS's shared memory). Why: it takes the 1 kHz streams in Python and
    falls behind now and then, and a shared-memory reader that falls behind stalled its
    senders, the node and ros2_control_node, for 50 to 200 ms (2 of 20 launches of the
    node path tripped with it on shared memory, 0 of 20 on UDP or without a recorder;
    docs/reliability.md); on UDP the kernel's socket buffer holds what it has not read."""
    os.environ.setdefault(OPT_IN, 'udp')
    return run_node(RecorderNode, 'recorder', args)


if __name__ == '__main__':
    raise SystemExit(main())
