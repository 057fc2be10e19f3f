"""controller_starter's steps from controller_manager's list (the node's logic, without
DDS: what it asks next for each list it could get back; the launch tests run it against
a real controller_manager)."""

import pytest

pytest.importorskip('controller_manager_msgs', reason='controller_manager_msgs comes from '
                    '../shared/wheels or a sourced ROS 2')

from robodyn_ros.nodes.controller_starter import ControllerStarter  # noqa: E402


class _Logger:
    def __init__(self):
        self.lines = []

    def info(self, text):
        self.lines.append(text)

    warning = info


def _starter():
    """A ControllerStarter without its node: _call and the logger recorded."""
    from controller_manager_msgs.srv import (
        ConfigureController,
        ListControllers,
        LoadController,
        SwitchController,
    )
    starter = object.__new__(ControllerStarter)
    starter.srv = {'list': ListControllers, 'load': LoadController,
                   'configure': ConfigureController, 'switch': SwitchController}
    starter.active = ['joint_state_broadcaster', 'effort_controller']
    starter.inactive = ['joint_trajectory_controller']
    starter.up = False
    starter.asked = []
    starter._call = lambda what, name, request: starter.asked.append((what, name, request))
    logger = _Logger()
    starter.get_logger = lambda: logger
    return starter, logger


JTC, JSB, EFFORT = 'joint_trajectory_controller', 'joint_state_broadcaster', 'effort_controller'


@pytest.mark.parametrize('states, want', [
    ({}, ('load', JTC)),
    ({JTC: 'unconfigured'}, ('configure', JTC)),
    ({JTC: 'inactive'}, ('load', JSB)),
    ({JTC: 'inactive', JSB: 'inactive', EFFORT: 'unconfigured'}, ('configure', EFFORT)),
    ({JTC: 'inactive', JSB: 'inactive', EFFORT: 'inactive'}, ('switch', f'{JSB}, {EFFORT}')),
    ({JTC: 'inactive', JSB: 'active', EFFORT: 'inactive'}, ('switch', EFFORT)),
])
def test_each_list_gives_the_one_next_step(states, want):
    starter, _ = _starter()
    starter._next(states)
    assert [(what, name) for what, name, _ in starter.asked] == [want]
    assert not starter.up


def test_the_switch_activates_only_what_is_not_active_and_strictly():
    starter, _ = _starter()
    starter._next({JTC: 'inactive', JSB: 'active', EFFORT: 'inactive'})
    (_, _, request), = starter.asked
    assert list(request.activate_controllers) == [EFFORT]
    assert request.strictness == 2  # STRICT: all or none


def test_with_everything_up_it_asks_nothing_more_and_says_so():
    starter, logger = _starter()
    starter._next({JTC: 'inactive', JSB: 'active', EFFORT: 'active'})
    assert starter.asked == [] and starter.up
    assert logger.lines == [f'active: {JSB}, {EFFORT}; inactive: {JTC}']


def test_without_controller_manager_it_says_once_that_it_waits():
    class _Absent:
        srv_name = '/controller_manager/list_controllers'

        def service_is_ready(self):
            return False

    starter, logger = _starter()
    del starter._call  # the real one
    starter._calls = {'list': _Absent()}
    starter.pending, starter.said_waiting = None, False
    starter._now = lambda: 29.0
    starter._call('list', '', None)
    assert logger.lines == [] and starter.pending is None
    starter._now = lambda: 31.0
    starter._call('list', '', None)
    starter._call('list', '', None)
    assert logger.lines == ['no /controller_manager/list_controllers service after 30 s: '
                            'waiting for controller_manager']
