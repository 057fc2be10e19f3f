"""The loop benchmark's figures (the benchmark itself is `robodyn bench --loop`, never a
timed test)."""

import numpy as np
import pytest

from robodyn_ros.bench.loop_figures import (
    cpu_times,
    format_loop_bench,
    loop_figures,
    steal_percent,
)


def test_steal_share_of_the_cpu_time_between_two_samples():
    before = [100, 0, 50, 800, 10, 0, 5, 35, 0, 0]
    after = [200, 0, 90, 1500, 10, 0, 5, 85, 7, 0]  # guest time (9th) is inside user
    assert steal_percent(before, after) == pytest.approx(100.0 * 50 / 890)


@pytest.mark.parametrize('before, after', [(None, [0] * 10), ([0] * 10, None),
                                           ([0] * 10, [0] * 10), ([1, 2], [3, 4])])
def test_steal_unknown_is_none(before, after):
    assert steal_percent(before, after) is None


def test_cpu_times_reads_this_machine_or_says_none():
    times = cpu_times()
    assert times is None or (len(times) >= 8 and all(t >= 0 for t in times))


def test_answers_count_once_per_sent_state_and_unknown_stamps_are_ignored():
    stamps = np.array([10.0, 10.001, 10.002, 10.003])
    answers = np.array([[10.0, 10.0004], [10.0, 10.0009],  # answered twice: the first counts
                        [10.002, 10.0031], [99.0, 99.1]])  # 99.0 was never sent
    figures = loop_figures(stamps, answers, np.zeros((0, 7)))
    assert (figures['states'], figures['answered']) == (4, 2)
    assert figures['answered_pct'] == pytest.approx(50.0)
    assert figures['latency_ms']['max'] == pytest.approx(1.1)
    assert figures['latency_ms']['p50'] == pytest.approx(0.75)
    assert figures['compute_us'] is None


def _run(answered, steal):
    lat = {'p50': 0.4, 'p99': 1.0, 'max': 2.0}
    return {'states': 1000, 'answered': answered, 'answered_pct': answered / 10,
            'latency_ms': lat, 'compute_us': None, 'cycle_wall_us': None,
            'ticks_skipped': 3, 'steal_pct': steal}


@pytest.mark.parametrize('steal', [0.5, None])
def test_the_table_names_each_node_and_the_steal_only_when_known(steal):
    result = {'duration_s': 1.0, 'rate_hz': 1000.0, 'pinned': False, 'fifo': 0,
              'echo': _run(999, steal), 'echo_raw': _run(998, steal),
              'controller': _run(997, steal),
              'latency_ratio': {'p50': 1.0, 'p99': 1.0}, 'latency_ratio_raw': {'p50': 1, 'p99': 1}}
    text = format_loop_bench(result)
    assert '997/1000   99.7%' in text
    assert ('hypervisor' in text) == (steal is not None)
