"""Shared test setup: keep DDS on this machine, each test module on a domain of its own."""

import os
import sys

os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
os.environ.setdefault('ROS_DOMAIN_ID', '57')
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


import faulthandler  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

import pytest  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pytest_sessionstart(session):
    """Before any test joins DDS: the shared-memory files of processes that died go (a
    port one left locked blocks the next participant that opens it: dds_transport)."""
    from robodyn_ros.nodes.dds_transport import remove_dead_segments
    remove_dead_segments()


#: The workspace build started at collection: {'ws': Path, 'proc': Popen} (colcon_install).
_BUILD = {}
#: Longest a workspace build may take [s].
BUILD_TIMEOUT = 900
#: Past pytest.ini's per-test ``timeout`` (which fails the test from its own thread and
#: goes on), a test still running is stuck where a signal cannot reach it (a C call with
#: no timeout): every thread's stack is printed and the run ends with exit 1 [s].
HARD_TIMEOUT = 1200
#: Longest the whole run may take [s]: past it the run stops with exit 1 and names the
#: test it reached, before CI's own limit would end it with nothing said (a quiet run
#: takes about 25 min, one beside two CPU hogs about 40).
SESSION_BUDGET = 3600
#: Longest the interpreter may take to exit after the last test (DDS participants, worker
#: threads, atexit handlers) before every thread's stack is printed and it is ended [s].
EXIT_TIMEOUT = 120


#: The ROS domains given in turn to the test modules, one each (ROS_DOMAIN_ID, for the
#: module's in-process nodes and the processes it starts; a module that fixes its own
#: domain passes it explicitly, and those are outside this range: test_style). Why: the
#: DDS participants that tests leave in this process stay until it ends (27 in one domain
#: by the last quarter of a suite), and with ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST Fast
#: DDS announces a participant only to the first participant ports of its domain on the
#: host: two participants past them never find each other (a controller node and its
#: input gateway process: 'not up within 15 s'; measured: a process with 24 participants
#: in the domain is found by a new one at once, one with 32 is not found in 25 s).
MODULE_DOMAINS = [d for d in range(1, 58) if d != 23]  # 23: test_recorder_silence's own
_MODULE_DOMAIN: dict[str, int] = {}


@pytest.fixture(autouse=True, scope='module')
def _module_domain(request):
    """This module's ROS_DOMAIN_ID (:data:`MODULE_DOMAINS`), restored after it."""
    domain = _MODULE_DOMAIN.setdefault(
        request.module.__name__, MODULE_DOMAINS[len(_MODULE_DOMAIN) % len(MODULE_DOMAINS)])
    previous = os.environ.get('ROS_DOMAIN_ID')
    os.environ['ROS_DOMAIN_ID'] = str(domain)
    yield domain
    if previous is None:
        os.environ.pop('ROS_DOMAIN_ID', None)
    else:
        os.environ['ROS_DOMAIN_ID'] = previous


def _module(item):
    return item.nodeid.split('::')[0]


def pytest_collection_modifyitems(session, config, items):
    """The modules that need the colcon workspace run last (whole modules, in their order),
    and the workspace builds in the background from here: its 2-3 minutes of compiling
    overlap the tests before them instead of adding to the run."""
    later = {_module(item) for item in items if 'colcon_install' in item.fixturenames}
    if not later:
        return
    items[:] = [i for i in items if _module(i) not in later] + \
        [i for i in items if _module(i) in later]
    colcon = os.path.join(os.path.dirname(sys.executable), 'colcon')
    if not os.environ.get('ROBODYN_TEST_WS') and os.path.exists(colcon):
        _start_build()  # otherwise colcon_install says why, when a test asks for it


def _start_build():
    """Start scripts/build_workspace.sh on a copy of the tree in a new workspace."""
    from pathlib import Path
    import tempfile
    ws = Path(tempfile.mkdtemp(prefix='robodyn_test_ws_'))
    shutil.copytree(ROOT, ws / 'src' / 'robodyn_ros', ignore=shutil.ignore_patterns(
        '.venv', '.git', 'build', 'install', 'log', 'out', '__pycache__', '*.egg-info'))
    with open(ws / 'build.out', 'w', encoding='utf-8') as log:
        _BUILD.update(ws=ws, proc=subprocess.Popen(
            ['bash', os.path.join(ROOT, 'scripts', 'build_workspace.sh'), str(ws)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            env=dict(os.environ, ROBODYN_BUILD_TESTING='ON')))  # + the gtests


#: The hang guards' state: 'stderr', a duplicate of the terminal's stderr taken before any
#: test captures fd 2 (the stacks must reach the CI log, not a test's capture file), and
#: 'started', the monotonic time of the first test (for SESSION_BUDGET).
_GUARDS = {}


def pytest_configure(config):
    """Keep the terminal's stderr for the hang guards (:data:`_GUARDS`)."""
    _GUARDS['stderr'] = os.fdopen(os.dup(sys.__stderr__.fileno()), 'w')


def _guard(seconds):
    faulthandler.dump_traceback_later(seconds, exit=True, file=_GUARDS.get('stderr', sys.stderr))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """A test that hangs where pytest-timeout cannot end it ends the run, with the stack
    of every thread, instead of holding CI until its own limit (:data:`HARD_TIMEOUT`);
    a run past :data:`SESSION_BUDGET` stops."""
    started = _GUARDS.setdefault('started', time.monotonic())
    if time.monotonic() - started > SESSION_BUDGET:
        pytest.exit(f'the suite ran past its {SESSION_BUDGET} s budget before {item.nodeid}',
                    returncode=1)
    _guard(HARD_TIMEOUT)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


def pytest_sessionfinish(session, exitstatus):
    """The background build stopped if it still runs, its workspace removed; the exit
    guarded by :data:`EXIT_TIMEOUT`."""
    _guard(EXIT_TIMEOUT)
    proc, ws = _BUILD.get('proc'), _BUILD.get('ws')
    if proc is not None and proc.poll() is None:
        os.killpg(proc.pid, 9)
        proc.wait()
    if ws is not None:
        shutil.rmtree(ws, ignore_errors=True)


@pytest.fixture(scope='session')
def colcon_install():
    """`colcon build` of this package (and the C++ controller package when setup could
    install its build tools) into a temporary workspace, as scripts/build_workspace.sh
    builds a user's (started at collection, :func:`pytest_collection_modifyitems`);
    returns the workspace. ROBODYN_TEST_WS names an existing, already built workspace to
    use instead (a developer's, between edits)."""
    from pathlib import Path
    given = os.environ.get('ROBODYN_TEST_WS')
    if given:
        return Path(given)
    if not os.path.exists(os.path.join(os.path.dirname(sys.executable), 'colcon')):
        pytest.fail('colcon is not installed in the venv (requirements.txt lists it)')
    if not _BUILD:  # asked for by a test collection did not see coming
        _start_build()
    proc, ws = _BUILD['proc'], _BUILD['ws']
    try:
        code = proc.wait(timeout=BUILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        pytest.fail(f'the workspace build took over {BUILD_TIMEOUT} s')
    log = (ws / 'build.out').read_text(encoding='utf-8', errors='replace')
    assert code == 0, log[-4000:]
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
