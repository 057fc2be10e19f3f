"""Shared test setup: keep DDS on this machine, on a test-only domain."""

import os
import sys

os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
os.environ.setdefault('ROS_DOMAIN_ID', '57')
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


import shutil  # noqa: E402
import subprocess  # noqa: E402

import pytest  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope='session')
def colcon_install(tmp_path_factory):
    """`colcon build` of this package (and the C++ controller package when setup could
    install its build tools) into a temporary workspace, as scripts/build_workspace.sh
    builds a user's; returns the workspace. ROBODYN_TEST_WS names an existing, already
    built workspace to use instead (a developer's, between edits)."""
    from pathlib import Path
    given = os.environ.get('ROBODYN_TEST_WS')
    if given:
        return Path(given)
    colcon = os.path.join(os.path.dirname(sys.executable), 'colcon')
    if not os.path.exists(colcon):
        pytest.fail('colcon is not installed in the venv (requirements.txt lists it)')
    ws = tmp_path_factory.mktemp('ws')
    shutil.copytree(ROOT, ws / 'src' / 'robodyn_ros', ignore=shutil.ignore_patterns(
        '.venv', '.git', 'build', 'install', 'log', 'out', '__pycache__', '*.egg-info'))
    out = subprocess.run(['bash', os.path.join(ROOT, 'scripts', 'build_workspace.sh'),
                          str(ws)], capture_output=True, text=True, timeout=900,
                         env=dict(os.environ, ROBODYN_BUILD_TESTING='ON'))  # + the gtests
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return ws


@pytest.fixture(scope='session')
def plugin_library(colcon_install):
    """The C++ package's dynamics library (librobodyn_dynamics.so) of the workspace; skips
    with the reason when setup could not install the C++ build tools."""
    path = colcon_install / 'install' / 'robodyn_controllers' / 'lib' / 'librobodyn_dynamics.so'
    if not path.is_file():
        pytest.skip('robodyn_controllers (C++) was not built: scripts/setup.sh could not '
                    'install its build tools (Debian -dev packages need root; see '
                    '.venv/setup.log)')
    return path


@pytest.fixture(scope='session')
def ros_launch_env(colcon_install):
    """Environment for `ros2 launch` of the colcon-installed package (skips with the reason
    when the launch system is not installed)."""
    try:
        import launch_ros  # noqa: F401
        import ros2launch  # noqa: F401
    except ImportError:
        pytest.skip('launch_ros / ros2launch are not installed: they come from '
                    '../shared/wheels or a sourced ROS 2 distro (see scripts/setup.sh)')
    prefix = colcon_install / 'install' / 'robodyn_ros'
    plugin = colcon_install / 'install' / 'robodyn_controllers'
    site = prefix / 'lib' / f'python{sys.version_info.major}.{sys.version_info.minor}' / \
        'site-packages'
    venv = os.path.dirname(os.path.dirname(sys.executable))
    env = dict(os.environ)
    prefixes = [str(prefix)] + ([str(plugin)] if plugin.is_dir() else []) + [venv]
    env['AMENT_PREFIX_PATH'] = os.pathsep.join(
        prefixes + [p for p in env.get('AMENT_PREFIX_PATH', '').split(os.pathsep) if p])
    env['PYTHONPATH'] = os.pathsep.join([str(site)] + [
        p for p in env.get('PYTHONPATH', '').split(os.pathsep) if p])
    env['PATH'] = os.pathsep.join([os.path.dirname(sys.executable), env.get('PATH', '')])
    env['PYTHONUNBUFFERED'] = '1'
    return env
