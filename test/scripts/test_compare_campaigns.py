"""scripts/compare_campaigns.py: the same cases with the same checks and verdicts compare
equal; a check that changed its verdict, a check gone or a case not run are named; a file
that is not a campaign's JSON is one line and exit 2."""

import json

from script_module import load


def _script():
    return load('compare_campaigns')


def _case(name, passed=True, **checks):
    return {'case': name, 'passed': passed,
            'checks': {k: [v, 'detail'] for k, v in (checks or {'finite': True}).items()}}


def _write(path, rows):
    path.write_text(json.dumps(rows))
    return str(path)


def test_the_same_campaign_compares_equal_and_new_cases_are_listed(tmp_path, capsys):
    before = _write(tmp_path / 'a.json', [_case('nan_state', finite=True, step=True)])
    after = _write(tmp_path / 'b.json', [_case('nan_state', finite=True, step=True),
                                         _case('target_wrench_storm')])
    assert _script().main([before, after]) == 0
    out = capsys.readouterr().out
    assert '| nan_state | 2 / 2 | pass / pass | yes |' in out
    assert 'only after: target_wrench_storm (pass)' in out


def test_a_changed_verdict_a_gone_check_and_a_missing_case_are_named(tmp_path, capsys):
    before = _write(tmp_path / 'a.json', [_case('nan_state', finite=True, step=True),
                                          _case('late_state'), _case('jump', exit=True)])
    after = _write(tmp_path / 'b.json', [_case('nan_state', False, finite=True, step=False),
                                         _case('jump')])
    assert _script().main([before, after]) == 1
    out = capsys.readouterr().out
    assert 'no: changed step' in out
    assert '| late_state | 1 / - | - | no: not run after |' in out
    assert 'no: gone exit; new finite' in out


def test_a_file_that_is_no_campaign_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / 'bad.json'
    bad.write_text('{"not": "a list"}')
    try:
        _script().main([str(bad), str(bad)])
    except SystemExit as exc:
        assert exc.code == 2
    else:
        raise AssertionError('no exit')
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and 'not a campaign JSON' in err
