"""Random chains against Pinocchio: every method within 1e-10, the DH FK exact."""

from robodyn_ros.dynamics.verification.random_chains import FIGURES, check_random_chains


def test_random_chains_agree_with_pinocchio_and_report_each_chain():
    lines = []
    report = check_random_chains(3, 5, progress=lines.append)
    assert report.failed == 0
    assert set(report.worst) == set(FIGURES)
    assert 0.0 < max(report.worst.values()) < 1e-10
    assert [line.split(':')[0] for line in lines] == ['chain  0', 'chain  1', 'chain  2']
    assert report.format().startswith('3 chains x 5 states x 3 methods')
