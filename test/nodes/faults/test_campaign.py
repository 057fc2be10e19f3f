"""The fault campaign's CI subset (cases.FAST): the controller in its own process against
scripted faults; every invariant of each case must hold. The whole campaign:
``robodyn faults``."""

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('control_msgs', reason='control_msgs (../shared/wheels) is not installed: '
                    'the campaign drives the FollowJointTrajectory action')

from robodyn_ros.nodes.faults.cases import CASES, FAST  # noqa: E402
from robodyn_ros.nodes.faults.checks import run_case  # noqa: E402

pytestmark = pytest.mark.integration


@pytest.mark.parametrize('case', [c for c in CASES if c.name in FAST], ids=lambda c: c.name)
def test_fault_case_holds_every_invariant(case):
    result = run_case(case)
    assert result.passed, f'{case.name}: {result.failures()}\n{result.output[-1500:]}'


def test_every_numbered_path_has_a_case():
    paths = {c.path for c in CASES}
    assert {str(k) for k in range(1, 19) if k != 13} <= paths  # 13: test/launch
    assert len({c.name for c in CASES}) == len(CASES)
