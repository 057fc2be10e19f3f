"""Contacts found in bags: thresholds derived from a collision-free run, a push found."""

import json

from contact_sim import simulate
from model_helpers import load_robot
import numpy as np
import pytest

from robodyn_ros.cli import build_parser, run
from robodyn_ros.defaults import REFERENCE_TOPIC
from robodyn_ros.dynamics import RigidBodyDynamics
from robodyn_ros.io.bag_writer import BagWriter
from robodyn_ros.io.cdr import encode_joint_state

STATES = '/joint_states'


@pytest.fixture(scope='module')
def panda():
    model = load_robot('panda')
    return model, RigidBodyDynamics(model)  # the dynamics `robodyn contacts` uses


def _bag(path, rows, names, zero_effort=False):
    bag = BagWriter(path)
    bag.add_topic(STATES, 'sensor_msgs/msg/JointState')
    bag.add_topic(REFERENCE_TOPIC, 'sensor_msgs/msg/JointState')  # for robodyn validate
    for t, q, qd, applied, _ in rows:
        effort = np.zeros(7) if zero_effort else applied
        bag.write(STATES, int((100.0 + t) * 1e9),
                  encode_joint_state(100.0 + t, names, q, qd, effort))
        bag.write(REFERENCE_TOPIC, int((100.0 + t) * 1e9) + 1,
                  encode_joint_state(100.0 + t, names, q, qd, applied))
    bag.close()
    return str(path)


@pytest.fixture(scope='module')
def bags(panda, tmp_path_factory):
    model, dyn = panda
    root = tmp_path_factory.mktemp('contacts')
    free = list(simulate(model, dyn, 1.5, push=(9.0, 9.0)))
    pushed = list(simulate(model, dyn, 1.5))
    names = list(model.joint_names)
    return dict(free=_bag(root / 'free', free, names), pushed=_bag(root / 'pushed', pushed,
                                                                     names),
                zero=_bag(root / 'zero', free, names, zero_effort=True), root=root)


def _contacts(argv, capsys):
    code = run(build_parser().parse_args(['contacts', *argv]))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_thresholds_derived_from_a_free_run_find_the_push_and_nothing_else(bags, capsys):
    file = str(bags['root'] / 'collision.yaml')
    code, out, _ = _contacts([bags['free'], '--robot', 'panda', '--derive', file,
                              '--margin', '3'], capsys)
    assert code == 0 and 'written to' in out
    code, out, _ = _contacts([bags['free'], '--robot', 'panda', '--thresholds', file],
                             capsys)
    assert code == 0 and '0 contacts' in out
    code, out, err = _contacts([bags['pushed'], '--robot', 'panda', '--thresholds', file,
                                '--plot', str(bags['root'] / 'r.png')], capsys)
    assert code == 1 and '1 contacts over the thresholds' in err, (out, err)
    line = next(x for x in out.splitlines() if x.startswith('contact '))
    start, end = float(line.split()[1]), float(line.split()[4].rstrip(':'))
    assert 0.5 <= start <= 0.51, line  # within 10 ms of the push
    assert 1.0 <= end <= 1.1, line
    assert (bags['root'] / 'r.png').stat().st_size > 10_000
    code, out, _ = _contacts([bags['pushed'], '--robot', 'panda', '--thresholds', file,
                              '--allow-contacts'], capsys)
    assert code == 0 and '1 contacts' in out


@pytest.mark.parametrize('case, words', [
    ('zero', 'every effort in the bag is 0'), ('exists', 'exists; name a new file'),
    ('margin', 'margin must be within'), ('thresholds', 'thresholds for joints')])
def test_what_cannot_be_answered_is_one_line_and_exit_2(bags, case, words, capsys, tmp_path):
    bad = tmp_path / 'bad.yaml'
    bad.write_text('collision:\n  thresholds: {panda_joint1: 1.0}\n')
    existing = tmp_path / 'existing.yaml'
    existing.write_text('')
    argv = {'zero': [bags['zero'], '--derive', str(tmp_path / 'new.yaml')],
            'exists': [bags['free'], '--derive', str(existing)],
            'margin': [bags['free'], '--derive', str(tmp_path / 'm.yaml'), '--margin', '0.5'],
            'thresholds': [bags['free'], '--thresholds', str(bad)]}[case]
    code, _, err = _contacts([*argv, '--robot', 'panda'], capsys)
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1, err


def test_validate_fails_a_run_with_contacts_unless_they_are_expected(bags, capsys):
    file = str(bags['root'] / 'validate.yaml')
    assert _contacts([bags['free'], '--robot', 'panda', '--derive', file], capsys)[0] == 0

    def validate(*extra):
        code = run(build_parser().parse_args(['validate', bags['pushed'], '--no-plots',
                                              '--out', str(bags['root'] / 'report'),
                                              *extra]))
        out = capsys.readouterr()
        return code, out.out, out.err
    code, out, _ = validate('--robot', 'panda', '--collision', file)
    assert code == 1 and '1 contacts over the collision thresholds' in out, out[-500:]
    report = json.loads((bags['root'] / 'report' / 'report.json').read_text())
    contacts = report['contacts']  # in the report, with the verdict
    assert contacts['count'] == 1 and not contacts['allowed'] and not report['passed']
    assert contacts['contacts'][0]['peak'] and contacts['contacts'][0]['start'] > 0.0
    assert any('contacts over the collision thresholds' in f for f in report['failures'])
    markdown = (bags['root'] / 'report' / 'report.md').read_text()
    assert 'Contacts over the collision thresholds' in markdown and '**FAIL**' in markdown
    code, out, _ = validate('--robot', 'panda', '--collision', file, '--allow-contacts')
    assert code == 0 and '1 contacts' in out and 'expected' in out, out[-500:]
    report = json.loads((bags['root'] / 'report' / 'report.json').read_text())
    assert report['passed'] and report['contacts']['allowed']
    code, _, err = validate('--collision', file)
    assert code == 2 and '--collision needs --robot' in err, err


def test_a_fleet_bag_without_applied_torque_is_refused_by_the_contacts_scan(bags, capsys):
    file = str(bags['root'] / 'fleet.yaml')
    assert _contacts([bags['free'], '--robot', 'panda', '--derive', file], capsys)[0] == 0
    out_dir = bags['root'] / 'fleet'
    code = run(build_parser().parse_args(['validate', bags['free'], bags['zero'],
                                          '--no-plots', '--jobs', '1', '--robot', 'panda',
                                          '--collision', file, '--out', str(out_dir)]))
    out = capsys.readouterr().out
    assert code == 1, out
    rows = {r['bag']: r for r in json.loads((out_dir / 'fleet.json').read_text())['bags']}
    assert rows[bags['free']]['contacts'] == 0, rows[bags['free']]
    assert rows[bags['zero']]['verdict'] == 'ERROR', rows[bags['zero']]
    assert 'every effort in the bag is 0' in rows[bags['zero']]['reason']
