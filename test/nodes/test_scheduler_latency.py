"""nodes.scheduler_latency: the machine's part of a late watchdog, never the node's own."""

from robodyn_ros.nodes.scheduler_latency import WatchdogWakeup


def test_the_wake_up_counts_from_the_due_time_or_the_node_s_last_callback():
    wakeup = WatchdogWakeup()
    assert wakeup.values() == {}
    wakeup.note(10.0, None, 9.0)  # not an expiry: nothing
    assert wakeup.values() == {}
    wakeup.note(10.004, 10.0, 9.99)  # idle since before the due time: 4 ms the machine's
    assert wakeup.values() == {'watchdog_expiry': '10.004000', 'watchdog_wakeup_ms': '4.000'}
    wakeup.note(20.004, 20.0, 20.003)  # busy in its own callback until 3 ms past due
    assert wakeup.values()['watchdog_wakeup_ms'] == '1.000'
    wakeup.note(30.004, 30.0, 30.005)  # a callback ended after the wake-up was taken
    assert wakeup.values()['watchdog_wakeup_ms'] == '0.000'
