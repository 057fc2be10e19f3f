"""A fleet's bags validated at once: a synthetic fleet of three-link arms, one of which
has a joint whose friction grows bag by bag; run in this process, over two processes and
on a Dask LocalCluster, with a damaged bag among them."""

import json
import os

import numpy as np
import pytest

from robodyn_ros.cli import build_parser, run
from robodyn_ros.defaults import REFERENCE_TOPIC
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.io.bag_writer import BagWriter
from robodyn_ros.io.cdr import encode_joint_state
from robodyn_ros.model import load_robot
from robodyn_ros.validation.fleet import FleetOptions, find_bags, validate_fleet
from robodyn_ros.validation.fleet_report import fleet_summary, write_fleet_report

RATE, SECONDS, SHIFT = 250.0, 2.0, 8 * 3600.0  # a bag per 8 h shift
ARMS = {'arm_a': 0.0, 'arm_b': 0.4, 'arm_c': 0.0}  # extra viscous friction per bag [N m s]
BAGS_PER_ARM = 4


def _write_bag(path, model, dyn, start, extra_viscous, seed):
    """A sum of sines tracked with a small error; the measured effort is the model's
    inverse dynamics plus friction, plus an unmodelled viscous term (the drift)."""
    rng = np.random.default_rng(seed)
    names, n = list(model.joint_names), model.n
    amp, w = np.array([0.5, 0.4, 0.3])[:n], 2 * np.pi * np.array([0.5, 0.7, 0.9])[:n]
    bag = BagWriter(path)
    bag.add_topic('/joint_states', 'sensor_msgs/msg/JointState')
    bag.add_topic(REFERENCE_TOPIC, 'sensor_msgs/msg/JointState')
    for k in range(int(SECONDS * RATE)):
        t = k / RATE
        q, qd, qdd = amp * np.sin(w * t), amp * w * np.cos(w * t), -amp * w * w * np.sin(w * t)
        effort = dyn.inverse_dynamics(q, qd, qdd) + dyn.friction_torque(qd) + extra_viscous * qd
        stamp = start + t
        error = 1e-4 * rng.standard_normal(n)
        bag.write('/joint_states', int(stamp * 1e9), encode_joint_state(stamp, names, q, qd,
                                                                        effort))
        bag.write(REFERENCE_TOPIC, int(stamp * 1e9) + 1,
                  encode_joint_state(stamp, names, q + error, qd, effort))
    bag.close()


@pytest.fixture(scope='module')
def fleet(tmp_path_factory):
    root = tmp_path_factory.mktemp('fleet')
    model = load_robot('three_link')
    dyn = RigidBodyDynamics(model)
    for a, (arm, growth) in enumerate(ARMS.items()):
        for k in range(BAGS_PER_ARM):
            _write_bag(str(root / arm / f'shift_{k:02d}'), model, dyn,
                       1.7e9 + k * SHIFT + a * 60.0, growth * k, seed=10 * a + k)
    return root


def _options(tmp_path, **kw):
    return FleetOptions(robot='three_link', out_root=str(tmp_path / 'out'), **kw)


def test_the_drifting_arm_is_named_and_its_last_bag_is_the_worst(fleet, tmp_path):
    bags = find_bags([str(fleet)])
    assert len(bags) == len(ARMS) * BAGS_PER_ARM and bags[0][1] == 'arm_a'
    rows = validate_fleet(bags, _options(tmp_path), jobs=2)
    assert [r['bag'] for r in rows] == [b for b, _ in bags]
    assert all(r['verdict'] == 'PASS' for r in rows), [r['reason'] for r in rows]
    summary = fleet_summary(rows)
    assert summary['drifting_arm'] == 'arm_b' and summary['metric'] == 'worst_residual'
    assert summary['worst_bag'].endswith(os.path.join('arm_b', f'shift_{BAGS_PER_ARM - 1:02d}'))
    others = [v for arm, v in summary['drift_per_day'].items() if arm != 'arm_b']
    assert summary['drift_per_day']['arm_b'] > 10 * max(abs(v) for v in others)
    paths = write_fleet_report(rows, str(tmp_path / 'report'))
    page = open(paths['html'], encoding='utf-8').read()
    assert page.count('<tr class="pass">') == len(rows) and 'data:image/png;base64,' in page
    assert 'http' not in page.replace('http-equiv', '')  # self-contained: nothing fetched
    assert os.path.getsize(paths['residual']) > 10_000


def test_the_same_rows_in_one_process_and_in_two(fleet, tmp_path):
    bags = find_bags([str(fleet / 'arm_b'), str(fleet / 'arm_c' / 'shift_0*')])
    assert len(bags) == 2 * BAGS_PER_ARM
    one = validate_fleet(bags, _options(tmp_path), jobs=1)
    two = validate_fleet(bags, _options(tmp_path), jobs=2)
    assert json.dumps(one) == json.dumps(two)


def test_a_dask_cluster_gives_the_same_report(fleet, tmp_path):
    distributed = pytest.importorskip('distributed', reason='dask.distributed not installed')
    bags = find_bags([str(fleet / 'arm_b')])
    local = validate_fleet(bags, _options(tmp_path), jobs=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        remote = validate_fleet(bags, _options(tmp_path), scheduler=cluster.scheduler_address)
    assert json.dumps(remote) == json.dumps(local)
    a = write_fleet_report(local, str(tmp_path / 'local'), plots=False)
    b = write_fleet_report(remote, str(tmp_path / 'remote'), plots=False)
    assert open(a['json'], 'rb').read() == open(b['json'], 'rb').read()


def test_a_damaged_bag_is_one_row_with_its_reason(fleet, tmp_path, capsys):
    broken = tmp_path / 'more' / 'arm_x' / 'shift_00'
    broken.mkdir(parents=True)
    (broken / 'shift_00_0.mcap').write_bytes(b'\x89MCAP0\r\n' + b'\0' * 64)
    code = run(build_parser().parse_args(['validate', str(fleet / 'arm_a'),
                                          str(tmp_path / 'more'), '--robot', 'three_link',
                                          '--jobs', '2', '--no-plots',
                                          '--out', str(tmp_path / 'out')]))
    out = capsys.readouterr().out
    assert code == 1 and f'ERROR: {broken}' in out and '4 of 5 bags passed' in out, out
    report = json.load(open(tmp_path / 'out' / 'fleet.json'))
    row = next(r for r in report['bags'] if r['arm'] == 'arm_x')
    assert row['verdict'] == 'ERROR' and row['reason'], row
    assert report['summary']['errors'] == 1 and report['summary']['passed'] == 4


def test_the_terminal_shows_each_bag_as_it_finishes_then_the_failures_and_the_worst(
        fleet, tmp_path, capsys):
    code = run(build_parser().parse_args(['validate', str(fleet), '--robot', 'three_link',
                                          '--jobs', '2', '--no-plots', '--max-rms', '2e-4',
                                          '--out', str(tmp_path / 'out')]))
    lines = capsys.readouterr().out.splitlines()
    total = len(ARMS) * BAGS_PER_ARM
    assert lines[0] == f'validate: {total} bags, 2 at a time', lines
    done = [line for line in lines if line.startswith('[')]
    assert [line.split(']')[0] for line in done] == [f'[{k}/{total}' for k in
                                                     range(1, total + 1)], lines
    assert all(' bags/s: ' in line and ' RMS ' in line for line in done), done
    worst = lines.index('worst 5 by tracking RMS:')
    ranked = [float(line.split()[0]) for line in lines[worst + 1:worst + 6]]
    assert ranked == sorted(ranked, reverse=True) and len(ranked) == 5, lines
    failed = [line for line in lines if line.startswith('FAIL: ')]
    assert code == (1 if failed else 0) and lines[-1].endswith('fleet.json'), lines


def test_the_page_lists_the_worst_bags_first_each_linking_its_report(fleet, tmp_path):
    rows = validate_fleet(find_bags([str(fleet)]), _options(tmp_path, plots=False))
    rows[0]['verdict'], rows[0]['reason'] = 'ERROR', 'unreadable'
    page = write_fleet_report(rows, str(tmp_path / 'out'), plots=False)['html']
    text = open(page).read()
    links = [part.split('"')[0] for part in text.split('<a href="')[1:]]
    assert len(links) == len(rows) and all(link.endswith('report.md') for link in links)
    assert all(os.path.exists(os.path.join(tmp_path / 'out', link)) for link in links[1:])
    order = [next(r for r in rows if link.startswith(r['report'] + os.sep))
             for link in links]
    assert order[0]['verdict'] == 'ERROR'
    rms = [r['worst_rms'] for r in order[1:]]
    assert rms == sorted(rms, reverse=True)


def test_an_arm_with_one_bag_is_drawn_as_a_marker(tmp_path):
    from robodyn_ros.validation import fleet_report
    calls = []

    class Axes:
        def plot(self, x, y, style, **kw):
            calls.append((list(x), style))

        def __getattr__(self, name):
            return lambda *a, **k: None
    import matplotlib.pyplot as plt
    real = plt.subplots
    plt.subplots = lambda **kw: (real(**kw)[0], Axes())
    try:
        row = {'arm': 'solo', 'start': 1.7e9, 'verdict': 'PASS', 'worst_rms': 1e-4,
               'residual': {}}
        fleet_report._plots([row], {'drifting_arm': None})
    finally:
        plt.subplots = real
    assert calls == [([0.0], '-o')]


@pytest.mark.parametrize('make, words', [('empty', 'no rosbag2 found'),
                                         ('missing', 'no such file')])
def test_no_bag_is_one_line_and_exit_2(tmp_path, capsys, make, words):
    path = tmp_path / 'empty'
    if make == 'empty':
        path.mkdir()
    code = run(build_parser().parse_args(['validate', str(path), '--jobs', '1']))
    err = capsys.readouterr().err
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1, err


def _chromium():
    import shutil
    return next((shutil.which(n) for n in ('chromium-headless-shell', 'chromium',
                                           'chromium-browser', 'google-chrome')
                 if shutil.which(n)), None)


def test_the_html_page_renders_its_table_in_a_headless_browser(fleet, tmp_path):
    """The page opened as a file in headless Chromium: the DOM it renders holds one table
    row per bag, and a screenshot is left in the test's folder."""
    import subprocess
    browser = _chromium()
    if browser is None:
        pytest.skip("no headless Chromium here (scripts/setup.sh installs Debian's "
                    'chromium-headless-shell as root); the page is checked as text by the '
                    'other tests')
    bags = find_bags([str(fleet / 'arm_a'), str(fleet / 'arm_b')])
    paths = write_fleet_report(validate_fleet(bags, _options(tmp_path)), str(tmp_path / 'r'))
    url = 'file://' + os.path.abspath(paths['html'])
    flags = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run']
    dom = subprocess.run([browser, *flags, '--dump-dom', url], capture_output=True,
                         text=True, timeout=120).stdout
    assert dom.count('<tr class="pass">') == len(bags), dom[:500]
    shot = tmp_path / 'fleet.png'
    subprocess.run([browser, *flags, f'--screenshot={shot}', '--window-size=1400,1800', url],
                   capture_output=True, timeout=120)
    assert shot.stat().st_size > 20_000
    print(f'screenshot: {shot}')


def test_the_parent_loads_what_every_worker_needs_before_the_pool_forks(tmp_path):
    """Forked workers inherit the imports, the model and its kernels: a fresh interpreter
    that preloads holds them all before any bag is read."""
    import subprocess
    import sys
    code = ('import sys; from robodyn_ros.validation.fleet import FleetOptions, preload, '
            "_model; preload(FleetOptions(robot='three_link', plots=True)); "
            "print(all(m in sys.modules for m in ('rosbags.rosbag2', 'scipy.signal', "
            "'matplotlib.pyplot', 'robodyn_ros.validation.bag_stream')), "
            "_model.cache_info().currsize)")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.split() == ['True', '1'], out.stderr[-800:]
