"""The C++ package's gtests (robodyn_controllers/test/*.cpp), built by the test workspace
(BUILD_TESTING on) and run here, so `.ci/run` runs them; and `colcon test` of the package,
as a user runs it in the README's workspace."""

import glob
import os
import re
import subprocess

import pytest

pytestmark = pytest.mark.integration

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GTESTS = sorted(os.path.basename(p)[:-4] for p in
                glob.glob(os.path.join(ROOT, 'robodyn_controllers', 'test', 'test_*.cpp')))


def test_every_gtest_is_registered_with_cmake():
    cmake = open(os.path.join(ROOT, 'robodyn_controllers', 'CMakeLists.txt'),
                 encoding='utf-8').read()
    listed = set(re.findall(r'ament_add_gtest\((\w+) ', cmake))  # one by one
    for items in re.findall(r'foreach\(\w+ IN ITEMS([^)]*)\)', cmake):  # in a loop
        listed |= set(items.split())
    assert GTESTS and set(GTESTS) <= listed, set(GTESTS) - listed


def test_the_committed_fixtures_are_what_robodyn_ros_writes_now():
    """The gtests read committed files (robodyn_controllers/test/data/panda); a change of
    the model, the export or the edits must regenerate them (gtest_fixtures.py says how)."""
    from gtest_fixtures import DATA, fixture_texts
    import yaml
    texts = fixture_texts()
    assert sorted(os.listdir(DATA)) == sorted(texts), 'run test/controllers/gtest_fixtures.py'
    for name, text in texts.items():
        with open(os.path.join(DATA, name), encoding='utf-8') as handle:
            committed = handle.read()
        if name.endswith('.yaml'):
            assert _close(yaml.safe_load(committed), yaml.safe_load(text)), name
        elif name == 'state.txt':
            assert _close([line.split() for line in committed.splitlines()],
                          [line.split() for line in text.splitlines()]), name
        else:
            assert committed == text, name


def _close(a, b) -> bool:
    """Equal structures, numbers within 1e-12 relative (a last digit of g(q) may differ
    between numpy builds)."""
    import math
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    try:
        x, y = float(a), float(b)
    except (TypeError, ValueError):
        return a == b
    return x == y or (math.isnan(x) and math.isnan(y)) or \
        math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-300)


@pytest.mark.parametrize('name', GTESTS)
def test_the_gtest_passes(plugin_library, colcon_install, ros_launch_env, name):
    """Each gtest binary, in the environment a launch has (the workspace's install on the
    ament index: test_load_robodyn_controllers finds the plugins there), on a domain of its
    own (a controller_manager's node), with nothing from Python: the files they read are
    committed."""
    exe = colcon_install / 'build' / 'robodyn_controllers' / name
    if not exe.is_file() and os.environ.get('ROBODYN_TEST_WS'):
        pytest.skip(f'{name}: ROBODYN_TEST_WS was built without ROBODYN_BUILD_TESTING=ON')
    assert exe.is_file(), f'{exe}: not built (BUILD_TESTING off?)'
    env = dict(ros_launch_env, ROS_DOMAIN_ID='87')
    env.pop('ROBODYN_GTEST_DIR', None)
    lib = str(colcon_install / 'install' / 'robodyn_controllers' / 'lib')  # as the launch
    env['LD_LIBRARY_PATH'] = os.pathsep.join([lib] + [  # gives ros2_control_node
        p for p in env.get('LD_LIBRARY_PATH', '').split(os.pathsep) if p])
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0 and '[  PASSED  ]' in out.stdout, \
        out.stdout[-3000:] + out.stderr[-2000:]
    assert 'SKIPPED' not in out.stdout, out.stdout[-3000:]


def test_colcon_test_runs_every_gtest_with_none_skipped(plugin_library, colcon_install,
                                                         ros_launch_env):
    """`colcon test --packages-select robodyn_controllers` in the workspace, as a user runs
    it: every gtest runs (ctest), none skips, all pass (`colcon test-result`)."""
    import re
    env = dict(ros_launch_env, ROS_DOMAIN_ID='87')
    env.pop('ROBODYN_GTEST_DIR', None)
    lib = str(colcon_install / 'install' / 'robodyn_controllers' / 'lib')
    env['LD_LIBRARY_PATH'] = os.pathsep.join([lib] + [
        p for p in env.get('LD_LIBRARY_PATH', '').split(os.pathsep) if p])
    results = colcon_install / 'build' / 'robodyn_controllers' / 'test_results'
    if not results.parent.is_dir() and os.environ.get('ROBODYN_TEST_WS'):
        pytest.skip('ROBODYN_TEST_WS has no robodyn_controllers build')
    run = subprocess.run(['colcon', 'test', '--packages-select', 'robodyn_controllers',
                          '--return-code-on-test-failure'], cwd=colcon_install, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    ran = {p.name[:-len('.gtest.xml')] for p in results.rglob('*.gtest.xml')}
    assert set(GTESTS) <= ran, set(GTESTS) - ran
    summary = subprocess.run(['colcon', 'test-result', '--test-result-base', str(results)],
                             cwd=colcon_install, env=env, capture_output=True, text=True,
                             timeout=60).stdout
    counts = re.search(r'Summary: (\d+) tests, (\d+) errors, (\d+) failures, (\d+) skipped',
                       summary)
    assert counts, summary[-2000:]
    total, errors, failures, skipped = map(int, counts.groups())
    assert total > len(GTESTS) and errors == failures == skipped == 0, summary[-2000:]
