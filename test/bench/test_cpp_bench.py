"""`robodyn bench --cpp`: the C++ laws beside Pinocchio give the same torques (the
figures' times are the benchmark's, docs/benchmarks.md; not judged here)."""

import shutil

import pytest

from robodyn_ros.control.laws import PLUGIN_MODES

pytestmark = pytest.mark.integration  # compiles against Pinocchio's headers (about 40 s)


def test_every_law_of_the_cpp_controller_matches_pinocchio_computing_the_same():
    if shutil.which('g++') is None:
        pytest.skip('g++ is not installed: the C++ benchmark compiles with it')
    from robodyn_ros.bench.cpp_bench import cpp_bench, format_cpp_bench
    report = cpp_bench('panda', count=50, repeats=4)
    assert set(report['laws']) == set(PLUGIN_MODES)
    scale = max(1.0, report['max_abs_torque'])
    for mode, law in report['laws'].items():
        assert law['max_abs_difference'] <= 1e-11 * scale, (mode, law)
        assert law['robodyn_ns'] > 0 and law['pinocchio_ns'] > 0, (mode, law)
    # adaptive's estimate starts near zero: its payload term checked with a real payload
    assert report['payload_regressor_difference'] <= 1e-11 * scale, report
    text = format_cpp_bench(report)
    assert all(f'\n{mode}: robodyn' in text for mode in PLUGIN_MODES), text
