"""The cold-cycle diagnosis times the path it names: every timed cycle of the fused path
runs the fused kernel, none of the general path's does."""

from robodyn_ros.bench.cold_cycle import cold_cycle


def test_the_fused_count_grows_with_the_timed_cycles_of_the_fused_path_only():
    fused = [cold_cycle(sweep_mb=1, cycles=n).fused for n in (20, 50)]
    general = [cold_cycle(cycles=n, path='general').fused for n in (20, 50)]
    assert fused[1] - fused[0] == 30
    assert general[1] == general[0]  # the ramp-in's only
    timed = cold_cycle(cycles=50)
    assert 0.0 < timed.p50 <= timed.p99
