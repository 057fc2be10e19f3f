"""rcutils' console lines, bare and behind launch's process prefix."""

import pytest

from robodyn_ros.io.console_log import LogLine, logged, parse_log_line

TEXT = '\n'.join([
    '[INFO] [1795933885.529200265] [robodyn_controller]: configured panda: 7 joints',
    '[ros2_control_node-2] [WARN] [1795933886.000000001] [resource_manager]: '
    'MujocoTestSystem: injecting jump for 0.300 s on panda_joint2',
    'Traceback (most recent call last): [not] [a log line]: here',
    '[ros2_control_node-2] [INFO] [1795933887.250000000] [robodyn_controller]: '
    'hold: the reference of panda_joint1 leaves its limits [-2.8973, 2.8973]',
    '[INFO] [1795933888.5] [robodyn_controller]: configured panda: again',
])


def test_a_bare_line_and_a_launched_one_give_their_parts():
    assert parse_log_line(TEXT.splitlines()[0]) == LogLine(
        'INFO', 1795933885.529200265, 'robodyn_controller', 'configured panda: 7 joints')
    line = parse_log_line(TEXT.splitlines()[1])
    assert (line.level, line.logger) == ('WARN', 'resource_manager')
    assert line.stamp == pytest.approx(1795933886.000000001)
    assert line.message.startswith('MujocoTestSystem: injecting jump')


@pytest.mark.parametrize('line', ['Traceback (most recent call last): [not] [a log line]: '
                                  'here', '', '[INFO] [now] [node]: no stamp',
                                  '[NOTICE] [1.5] [node]: no such level'])
def test_a_line_not_in_the_format_is_none(line):
    assert parse_log_line(line) is None


def test_logged_finds_the_words_in_messages_only_in_order():
    """Brackets inside a message stay in it; a logger's name is not its message."""
    found = logged(TEXT, 'configured panda')
    assert [line.stamp for line in found] == [1795933885.529200265, 1795933888.5]
    assert logged(TEXT, 'robodyn_controller') == []
    assert logged(TEXT.splitlines(), 'limits [-2.8973', 'robodyn_controller')[0].stamp == \
        1795933887.25
    assert logged(TEXT, 'injecting jump', logger='robodyn_controller') == []
