"""The fault campaign's CI subset (cases.FAST): the controller in its own process against
scripted faults; every invariant of each case must hold. The whole campaign:
``robodyn faults``."""

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('control_msgs', reason='control_msgs (../shared/wheels) is not installed: '
                    'the campaign drives the FollowJointTrajectory action')

from robodyn_ros.control.safety.supervisor import STATE_GAP as WATCHDOG  # noqa: E402
from robodyn_testing.faults.cases import CASES, FAST  # noqa: E402
from robodyn_testing.faults.checks import run_case  # noqa: E402

pytestmark = pytest.mark.integration


@pytest.mark.parametrize('case', [c for c in CASES if c.name in FAST], ids=lambda c: c.name)
def test_fault_case_holds_every_invariant(case):
    """Every invariant of the case. A case that failed while the node tripped on a gap in
    the harness's state stream (the harness is a Python process: beside two hogs it missed
    its 1 kHz for 49 ms once) runs once more, and the first run's failures are printed; the
    second must hold every invariant on its own."""
    result = run_case(case)
    if not result.passed and STATE_GAP in result.output:
        print(f'{case.name}: run again after a state-gap trip: {result.failures()}')
        result = run_case(case)
    assert result.passed, f'{case.name}: {result.failures()}\n{result.output[-1500:]}'


#: The node's words when it goes safe on missing states (supervisor.py's watchdog).
STATE_GAP = f'-> safe: {WATCHDOG}'


def test_every_numbered_path_has_a_case():
    paths = {c.path for c in CASES}
    assert {str(k) for k in range(1, 19) if k != 13} <= paths  # 13: test/launch
    assert len({c.name for c in CASES}) == len(CASES)
