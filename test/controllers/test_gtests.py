"""The C++ package's gtests (robodyn_controllers/test/*.cpp), built by the test workspace
(BUILD_TESTING on) and run here, so `.ci/run` runs them."""

import glob
import os
import subprocess

import pytest

pytestmark = pytest.mark.integration

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GTESTS = sorted(os.path.basename(p)[:-4] for p in
                glob.glob(os.path.join(ROOT, 'robodyn_controllers', 'test', 'test_*.cpp')))


def test_every_gtest_is_registered_with_cmake():
    cmake = open(os.path.join(ROOT, 'robodyn_controllers', 'CMakeLists.txt'),
                 encoding='utf-8').read()
    assert GTESTS and all(f'ament_add_gtest({name} ' in cmake for name in GTESTS), GTESTS


@pytest.mark.parametrize('name', GTESTS)
def test_the_gtest_passes(plugin_library, colcon_install, name):
    exe = colcon_install / 'build' / 'robodyn_controllers' / name
    if not exe.is_file() and os.environ.get('ROBODYN_TEST_WS'):
        pytest.skip(f'{name}: ROBODYN_TEST_WS was built without ROBODYN_BUILD_TESTING=ON')
    assert exe.is_file(), f'{exe}: not built (BUILD_TESTING off?)'
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and '[  PASSED  ]' in out.stdout, out.stdout[-3000:]
